// A mixed fleet: Claude Code, Codex, Gemini CLI, GitHub Copilot CLI and OpenCode in ONE throwaway
// HOME and ONE private tmux server, each against its own mock on 127.0.0.1 and each set up by
// `trailboss install` for its agent, as a person with all five would. Built from the agents' own
// harnesses: the Claude Code lab (harness.ts) is the base; the others' configuration is added to
// its HOME, and their variables to the tmux server's global environment, so every window gets
// them (Copilot's cache folder alone goes to its own window: OpenCode would cache there too).
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { checkCopilot, COPILOT_CACHE, setupCopilot, startCopilot } from './copilot-env.js'
import { codexConfig, CODEX_API_KEY, CODEX_BIN, checkCodex } from './codex-env.js'
import { checkGemini, GEMINI_SETTINGS, type GeminiLab, geminiEnv, killTrees, processTree, startGemini } from './gemini-harness.js'
import { checkClaude, type E2e, startClaude, startE2e, trailboss, waitForScreen } from './harness.js'
import { type CodexMockApi, startCodexMock } from './mock-openai.js'
import { type ChatMockApi } from './mock-chat.js'
import { type MockGeminiApi, startMockGeminiApi } from './mock-gemini-api.js'
import { type OpencodeMockApi } from './mock-opencode-api.js'
import { checkOpencode, OPENCODE_BIN, OPENCODE_READY, setupOpencode } from './opencode-env.js'

export interface FleetLab extends E2e {
  codexApi: CodexMockApi
  geminiApi: MockGeminiApi
  copilotApi: ChatMockApi
  opencodeApi: OpencodeMockApi
  /** Pids of the Gemini CLI panes: it outlives its pane, so teardown kills their trees. */
  geminiPids: number[]
}

/** The pinned versions, or a loud failure: the suite must never pass by not running. */
export const checkFleet = async (): Promise<string> =>
  // At once: each asks its CLI for its version, and Copilot's first start unpacks its package.
  (
    await Promise.all([
      checkClaude().then((v) => `claude ${v}`),
      checkCodex().then((v) => `codex ${v}`),
      checkGemini().then((v) => `gemini ${v}`),
      checkCopilot().then((v) => `copilot ${v}`),
      checkOpencode(),
    ])
  ).join(', ')

const installFor = async (lab: E2e, agent: string): Promise<void> => {
  const r = await trailboss(lab, ['install', '--agent', agent])
  if (r.code !== 0) throw new Error(`trailboss install --agent ${agent} failed (exit ${r.code}): ${r.stderr.trim()}`)
}

/** The command an OpenCode TOOL call runs: the marker it touches in the project. */
export const opencodeMarker = (n: number): string => `oc-mark-${n}`

export const startFleet = async (): Promise<FleetLab> => {
  // Claude Code's lab, with `trailboss install` (Claude Code is the default agent) already run.
  const base = await startE2e()
  const codexApi = await startCodexMock({ scratchDir: base.scratch })
  const geminiApi = await startMockGeminiApi({ scratchDir: base.scratch })
  for (const d of ['.copilot', join('.config', 'opencode'), join('.local', 'share')])
    await mkdir(join(base.home, d), { recursive: true, mode: 0o700 })
  const copilot = await setupCopilot(base)
  const opencode = await setupOpencode((n) => `touch ${opencodeMarker(n)}`)(base)
  const geminiPids: number[] = []
  const lab: FleetLab = {
    ...base,
    codexApi,
    geminiApi,
    geminiPids,
    copilotApi: copilot.api,
    opencodeApi: opencode.api,
    close: async () => {
      // The pids' trees first: a pane's pid is lost with its pane.
      const tree = await processTree(geminiPids)
      await base.close()
      await killTrees(tree)
      await codexApi.close()
      await geminiApi.close()
      await copilot.api.close()
      await opencode.api.close()
    },
  }
  try {
    await mkdir(join(base.home, '.codex'), { recursive: true, mode: 0o700 })
    await writeFile(join(base.home, '.codex', 'config.toml'), codexConfig(codexApi.url, base.project), { mode: 0o600 })
    await mkdir(join(base.home, '.gemini'), { recursive: true, mode: 0o700 })
    await writeFile(join(base.home, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS, null, 2), { mode: 0o600 })
    await installFor(lab, 'codex')
    await installFor(lab, 'gemini')
    await installFor(lab, 'copilot')
    await installFor(lab, 'opencode')
    const copilotVars = Object.fromEntries(Object.entries(copilot.env).filter(([name]) => name !== 'XDG_CACHE_HOME'))
    const vars: NodeJS.ProcessEnv = {
      MOCK_API_KEY: CODEX_API_KEY,
      RUST_LOG: 'error',
      ...geminiEnv(geminiApi.url),
      ...copilotVars,
      ...opencode.env,
    }
    for (const [name, value] of Object.entries(vars)) {
      const r = await lab.tmux('set-environment', '-g', name, value ?? '')
      if (r.code !== 0) throw new Error(`tmux set-environment ${name}: ${r.stderr.trim()}`)
    }
  } catch (err) {
    await lab.close()
    throw err
  }
  return lab
}

/** Claude Code in a new window, at its prompt; its session id is the one it was started with. */
export const startFleetClaude = (lab: FleetLab): Promise<{ pane: string; sessionId: string }> => startClaude(lab, 'claude')

/** Codex in a new window, at its composer (it names its session at the first prompt). */
export const startFleetCodex = async (lab: FleetLab): Promise<string> => {
  const r = await lab.tmux(
    'new-window',
    '-d',
    '-t',
    'home:',
    '-n',
    'codex',
    '-c',
    lab.project,
    '-P',
    '-F',
    '#{pane_id}',
    CODEX_BIN,
    '--no-daemon',
  )
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  const screen = await waitForScreen(lab, pane, /\? for shortcuts|Review hooks/, 30_000, "codex's composer")
  if (/Review hooks/.test(screen)) throw new Error('Codex asks to review the hooks: the trust entries install wrote do not match')
  return pane
}

/** Gemini CLI in a new window, at its prompt; its pid is kept for teardown. */
export const startFleetGemini = (lab: FleetLab): Promise<string> => {
  const g: GeminiLab = { ...lab, api: lab.geminiApi, installOutput: '', pids: lab.geminiPids }
  return startGemini(g, 'gemini')
}

/** GitHub Copilot CLI in a new window, at its prompt. */
export const startFleetCopilot = (lab: FleetLab): Promise<string> => startCopilot(lab, 'copilot', { XDG_CACHE_HOME: COPILOT_CACHE })

/**
 * OpenCode in a new window, at its prompt. Its start alone took 30–40 s of a loaded 2-core machine,
 * half of it on the CPU, so beside four other starting CLIs it gets a wider bound than its own suite's.
 */
export const startFleetOpencode = async (lab: FleetLab): Promise<string> => {
  const r = await lab.tmux('new-window', '-d', '-t', 'home:', '-n', 'opencode', '-c', lab.project, '-P', '-F', '#{pane_id}', OPENCODE_BIN)
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(lab, pane, OPENCODE_READY, 150_000, "OpenCode's prompt")
  return pane
}
