// The Gemini CLI end-to-end harness: the real Gemini CLI (pinned in test/e2e/clis/gemini) in
// panes of a private tmux server, against our Gemini API mock on 127.0.0.1, with the hooks that
// `trailboss install --agent gemini` writes into a throwaway HOME. The generic helpers (waits,
// screens, `trailboss` runs) are the Claude Code harness's.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { capture, EMIT_BIN, type Lab, openLab, REPO, run, TRAILBOSS_BIN, waitFor } from './harness.js'
import { type MockGeminiApi, startMockGeminiApi } from './mock-gemini-api.js'

export const GEMINI_VERSION = '0.61.0'
export const GEMINI_JS = join(REPO, 'test', 'e2e', 'clis', 'gemini', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js')

/** Idle: the prompt's placeholder and no spinner or dialog (the input box stays while the model works). */
export const geminiReady = (screen: string): boolean =>
  /Type your message/.test(screen) && !/esc to cancel|Executing Hook|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(screen) && !/Allow once/.test(screen)

/** Fails loudly when the pinned CLI is missing: the suite must never pass by not running. */
export const checkGemini = async (): Promise<string> => {
  if (!existsSync(GEMINI_JS)) throw new Error(`Gemini CLI is not installed at ${GEMINI_JS}: run \`node scripts/install-e2e-clis.mjs\``)
  const v = await run(process.execPath, [GEMINI_JS, '--version'], { ...process.env, HOME: tmpdir() }, 60_000)
  if (v.code !== 0 || !v.stdout.includes(GEMINI_VERSION))
    throw new Error(`\`gemini --version\` gave ${JSON.stringify(v.stdout.trim())} (exit ${v.code}); expected ${GEMINI_VERSION}`)
  if (!existsSync(TRAILBOSS_BIN) || !existsSync(EMIT_BIN)) throw new Error('dist/ is missing: run `npm run build`')
  return v.stdout.trim()
}

/** Pids and everything below them (`ps`), for a teardown that leaves nothing running. */
export const processTree = async (roots: readonly number[]): Promise<number[]> => {
  const r = await run('ps', ['-eo', 'pid=,ppid='], process.env)
  const children = new Map<number, number[]>()
  for (const line of r.stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number)
    if (pid && ppid) children.set(ppid, [...(children.get(ppid) ?? []), pid])
  }
  const out: number[] = []
  const walk = (pid: number): void => {
    out.push(pid)
    for (const c of children.get(pid) ?? []) walk(c)
  }
  roots.forEach(walk)
  return out
}

/**
 * Gemini CLI 0.61.0 outlives its pane: after `kill-pane` or `kill-server` it (and the child it
 * relaunches itself as) keeps running under init and ignores SIGTERM. Every pid a pane started
 * is remembered here and killed with its whole tree at the end.
 */
const killAll = async (pids: readonly number[]): Promise<void> => {
  for (const pid of await processTree(pids)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}

/** Gemini CLI's settings for the mock: no updates, no telemetry, the API key. */
export const GEMINI_SETTINGS = {
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  security: { auth: { selectedType: 'gemini-api-key' } },
}

/** The environment Gemini CLI needs for the mock at `apiUrl`. */
export const geminiEnv = (apiUrl: string): NodeJS.ProcessEnv => ({
  GEMINI_API_KEY: 'mock-key',
  GOOGLE_GEMINI_BASE_URL: apiUrl,
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
})

/** Ends every process of `pids` and below (SIGKILL: Gemini CLI ignores SIGTERM). */
export const killTrees = async (pids: readonly number[]): Promise<void> => killAll(pids)

/** A throwaway HOME with Gemini CLI set up for the mock (no updates, no telemetry), tmux, and `trailboss install --agent gemini`. */
export type GeminiLab = Lab & { api: MockGeminiApi; installOutput: string; pids: number[] }

export const startGeminiE2e = async (): Promise<GeminiLab> => {
  const pids: number[] = []
  let tree: number[] = []
  const lab = await openLab({
    prefix: 'tb-ge-',
    homeDirs: ['.gemini'],
    // Not 'forget': without tap's preload, a session's second shell command ran with no
    // permission dialog in about half the runs (not understood; docs/gemini-cli.md).
    runnerEnv: 'keep',
    setup: async ({ home, scratch }) => {
      const api = await startMockGeminiApi({ scratchDir: scratch })
      // A person's own settings, with a foreign hook that install must keep.
      const settings = {
        ...GEMINI_SETTINGS,
        hooks: { AfterAgent: [{ matcher: '*', hooks: [{ type: 'command', command: 'true', name: 'mine', timeout: 2000 }] }] },
      }
      await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2), { mode: 0o600 })
      return { api, env: geminiEnv(api.url) }
    },
    // The pids' trees first: a pane's pid is lost with its pane.
    teardown: { before: async () => void (tree = await processTree(pids)), after: () => killAll(tree) },
  })
  const installed = await run(process.execPath, [TRAILBOSS_BIN, 'install', '--agent', 'gemini'], lab.cliEnv, 20_000)
  if (installed.code !== 0) {
    await lab.close()
    throw new Error(`trailboss install --agent gemini failed (exit ${installed.code}): ${installed.stderr.trim()}`)
  }
  return { ...lab, pids, installOutput: installed.stdout }
}

/** Starts Gemini CLI in a new tmux window and waits for its prompt; returns the pane. */
export const startGemini = async (e2e: GeminiLab, name: string, args: string[] = []): Promise<string> => {
  const r = await e2e.tmux(
    'new-window',
    '-d',
    '-t',
    'home:',
    '-n',
    name,
    '-c',
    e2e.project,
    '-P',
    '-F',
    '#{pane_id} #{pane_pid}',
    process.execPath,
    GEMINI_JS,
    ...args,
  )
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const [pane = '', pid] = r.stdout.trim().split(' ')
  if (Number(pid) > 0) e2e.pids.push(Number(pid))
  await waitForGeminiReady(e2e, pane, `Gemini CLI's prompt in ${name}`)
  return pane
}

export const waitForGeminiReady = async (e2e: Lab, pane: string, what = 'the idle prompt', timeoutMs = 60_000): Promise<void> => {
  try {
    await waitFor(what, async () => (geminiReady(await capture(e2e, pane)) ? true : undefined), timeoutMs)
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- screen of ${pane} ---\n${await capture(e2e, pane).catch(() => '(pane gone)')}`, {
      cause: err,
    })
  }
}

/**
 * Types a prompt and presses Enter; returns the time of the Enter. Keys typed while Gemini CLI
 * is still drawing a fresh screen can be lost, so the text is typed again until it shows.
 */
export const submitGemini = async (e2e: Lab, pane: string, text: string): Promise<number> => {
  for (let i = 0; ; i++) {
    await e2e.tmux('send-keys', '-t', pane, '-l', text)
    try {
      await waitFor(`"${text}" echoed in ${pane}`, async () => ((await capture(e2e, pane)).includes(`> ${text}`) ? true : undefined), 5000)
      break
    } catch (err) {
      if (i >= 2) throw err
      await e2e.tmux('send-keys', '-t', pane, 'C-u')
    }
  }
  const t0 = Date.now()
  await e2e.tmux('send-keys', '-t', pane, 'Enter')
  // Gemini CLI 0.61 sometimes leaves an Enter unread right after a cancelled turn: the text stays
  // in its input box. A person presses Enter again; an Enter on an empty box submits nothing.
  const inputBox = (screen: string): string =>
    screen
      .split('\n')
      .filter((l) => /^\s*> /.test(l))
      .at(-1) ?? ''
  for (let i = 0; i < 2; i++) {
    const left = await waitFor(
      `"${text}" submitted in ${pane}`,
      async () => (inputBox(await capture(e2e, pane)).includes(text) ? undefined : true),
      3000,
    ).then(
      () => true,
      () => false,
    )
    if (left) break
    await e2e.tmux('send-keys', '-t', pane, 'Enter')
  }
  return t0
}
