// A throwaway home for the pinned Codex CLI: config.toml pointing at the mock API on
// 127.0.0.1, a trusted project, and a private tmux server. Shared by the capture script
// (test/e2e/capture-codex.ts) and the Codex end-to-end suite.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { capture, type Item, type Lab, lsJson, openLab, REPO, run, waitFor, waitForScreen } from './harness.js'
import { startCodexMock, type CodexMockApi } from './mock-openai.js'

export const CODEX_VERSION = '0.171.0'
export const CODEX_BIN = join(REPO, 'test', 'e2e', 'clis', 'codex', 'node_modules', '.bin', 'codex')
export const CODEX_API_KEY = 'sk-mock-trailboss-e2e'

export interface CodexLab extends Lab {
  codexHome: string
  api: CodexMockApi
}

/** config.toml for the mock provider; the caller may append (hooks, trust). */
export const codexConfig = (apiUrl: string, project: string): string =>
  [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "on-request"',
    'sandbox_mode = "workspace-write"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${apiUrl}"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    `[projects.${JSON.stringify(project)}]`,
    'trust_level = "trusted"',
    '',
    '[tui]',
    'screen_reader_detection_done = true',
    '',
  ].join('\n')

export const checkCodex = async (): Promise<string> => {
  if (!existsSync(CODEX_BIN)) throw new Error(`Codex is not installed at ${CODEX_BIN}: run \`node scripts/install-e2e-clis.mjs\``)
  const v = await run(CODEX_BIN, ['--version'], { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: tmpdir() }, 20_000)
  if (v.code !== 0 || !v.stdout.includes(CODEX_VERSION))
    throw new Error(`\`codex --version\` gave ${JSON.stringify(v.stdout.trim())}; expected ${CODEX_VERSION}`)
  return v.stdout.trim()
}

export const startCodexLab = async (): Promise<CodexLab> => {
  const lab = await openLab({
    prefix: 'tb-cx-',
    homeDirs: ['.codex'],
    runnerEnv: 'forget',
    setup: async ({ home, project, scratch }) => {
      const codexHome = join(home, '.codex')
      const api = await startCodexMock({ scratchDir: scratch })
      await writeFile(join(codexHome, 'config.toml'), codexConfig(api.url, project), { mode: 0o600 })
      return { api, cliEnv: { CODEX_HOME: codexHome }, env: { MOCK_API_KEY: CODEX_API_KEY, RUST_LOG: 'error' } }
    },
  })
  return { ...lab, codexHome: join(lab.home, '.codex') }
}

/** The idle composer of Codex 0.171.0: its footer hint. */
export const CODEX_READY = /\? for shortcuts|context left|esc to interrupt|›/

/** Starts codex in a new tmux window; returns the pane id once its composer is up. */
export const startCodex = async (lab: CodexLab, name: string, args: string[] = []): Promise<string> => {
  const r = await lab.tmux(
    'new-window',
    '-d',
    '-t',
    'home:',
    '-n',
    name,
    '-c',
    lab.project,
    '-P',
    '-F',
    '#{pane_id}',
    CODEX_BIN,
    '--no-daemon',
    ...args,
  )
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(lab, pane, /›/, 30_000, `codex's composer in ${name}`)
  return pane
}

/** Waits until `ls` shows an item of `pane` matching `want`; returns it. */
export const waitForPaneItem = async (
  lab: Lab,
  pane: string,
  want: (i: Item) => boolean,
  timeoutMs: number,
  what: string,
): Promise<Item> => {
  let last: Item[] = []
  try {
    const { value } = await waitFor(
      what,
      async () => {
        last = (await lsJson(lab)).queue
        return last.find((i) => i.tmux?.pane === pane && want(i))
      },
      timeoutMs,
    )
    return value
  } catch (err) {
    const screen = await capture(lab, pane).catch(() => '(pane gone)')
    throw new Error(
      `${(err as Error).message}\nitems: ${JSON.stringify(last.map((i) => ({ id: i.sessionId.slice(-6), pane: i.tmux?.pane, state: i.state, kind: i.kind, reason: i.reason })))}\n--- screen ---\n${screen}`,
      { cause: err },
    )
  }
}
