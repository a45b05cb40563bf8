// A throwaway home for the pinned Codex CLI: config.toml pointing at the mock API on
// 127.0.0.1, a trusted project, and a private tmux server. Shared by the capture script
// (test/e2e/capture-codex.ts) and the Codex end-to-end suite.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { forgetRunnerEnv } from './harness.js'
import { startCodexMock, type CodexMockApi } from './mock-openai.js'

export const CODEX_VERSION = '0.171.0'
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const CODEX_BIN = join(REPO, 'test', 'e2e', 'clis', 'codex', 'node_modules', '.bin', 'codex')
export const CODEX_API_KEY = 'sk-mock-trailboss-e2e'
export const POLL_MS = 50

export interface Run {
  stdout: string
  stderr: string
  code: number
}

export const run = (cmd: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 15_000, input?: string, cwd?: string): Promise<Run> =>
  new Promise((resolvePromise) => {
    const child = execFile(cmd, args, { env, cwd, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolvePromise({ stdout, stderr, code })
    })
    if (input !== undefined) child.stdin?.end(input)
    else child.stdin?.end()
  })

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls `probe` until it returns a value other than undefined. */
export const waitFor = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined) return value
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`)
    await sleep(POLL_MS)
  }
}

export interface CodexLab {
  root: string
  home: string
  codexHome: string
  project: string
  scratch: string
  tbHome: string
  socket: string
  api: CodexMockApi
  /** The environment of codex (and so of its hooks) in the panes. */
  env: NodeJS.ProcessEnv
  /** A person's shell outside tmux, for `trailboss` commands. */
  cliEnv: NodeJS.ProcessEnv
  tmux: (...args: string[]) => Promise<Run>
  close: () => Promise<void>
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
  const v = await run(CODEX_BIN, ['--version'], { PATH: process.env.PATH, HOME: tmpdir() }, 20_000)
  if (v.code !== 0 || !v.stdout.includes(CODEX_VERSION)) throw new Error(`\`codex --version\` gave ${JSON.stringify(v.stdout.trim())}; expected ${CODEX_VERSION}`)
  return v.stdout.trim()
}

export const startCodexLab = async (): Promise<CodexLab> => {
  // A short root: a tmux socket path must stay under ~100 bytes.
  const root = mkdtempSync(join(tmpdir(), 'tb-cx-'))
  const home = join(root, 'home')
  const codexHome = join(home, '.codex')
  const project = join(root, 'work', 'proj')
  const scratch = join(root, 'scratch')
  const tbHome = join(root, 'tb')
  const socket = join(root, 'sock')
  for (const d of [home, codexHome, project, scratch]) await mkdir(d, { recursive: true, mode: 0o700 })
  await mkdir(join(project, '.git'), { recursive: true })
  const api = await startCodexMock({ scratchDir: scratch })
  await writeFile(join(codexHome, 'config.toml'), codexConfig(api.url, project), { mode: 0o600 })
  const cliEnv: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    TRAILBOSS_HOME: tbHome,
    CODEX_HOME: codexHome,
  }
  const env: NodeJS.ProcessEnv = { ...cliEnv, MOCK_API_KEY: CODEX_API_KEY, RUST_LOG: 'error' }
  const tmux = (...args: string[]): Promise<Run> => run('tmux', ['-S', socket, '-f', '/dev/null', ...args], env)
  const started = await tmux('new-session', '-d', '-s', 'home', '-x', '160', '-y', '45', '-c', project, 'sh')
  if (started.code !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`)
  await forgetRunnerEnv(tmux)
  return {
    root,
    home,
    codexHome,
    project,
    scratch,
    tbHome,
    socket,
    api,
    env,
    cliEnv,
    tmux,
    close: async () => {
      await tmux('kill-server')
      await api.close()
      if (process.env.TB_E2E_KEEP !== '1') {
        for (let i = 0; ; i++) {
          try {
            rmSync(root, { recursive: true, force: true })
            break
          } catch (err) {
            if (i >= 20) throw err
            await sleep(250)
          }
        }
      }
    },
  }
}

export const capture = async (lab: CodexLab, pane: string, history = false): Promise<string> => {
  const r = await lab.tmux('capture-pane', '-p', ...(history ? ['-S', '-'] : []), '-t', pane)
  if (r.code !== 0) throw new Error(`capture-pane ${pane}: ${r.stderr.trim()}`)
  return r.stdout
}

export const waitForScreen = async (lab: CodexLab, pane: string, re: RegExp, timeoutMs: number, what = String(re)): Promise<string> => {
  try {
    return await waitFor(what, async () => {
      const s = await capture(lab, pane)
      return re.test(s) ? s : undefined
    }, timeoutMs)
  } catch (err) {
    const screen = await capture(lab, pane).catch(() => '(pane gone)')
    throw new Error(`${(err as Error).message}\n--- screen of ${pane} ---\n${screen}`)
  }
}

export const press = async (lab: CodexLab, pane: string, ...keys: string[]): Promise<number> => {
  const t0 = Date.now()
  const r = await lab.tmux('send-keys', '-t', pane, ...keys)
  if (r.code !== 0) throw new Error(`send-keys ${keys.join(' ')}: ${r.stderr.trim()}`)
  return t0
}

/** Types the text, waits for its echo, then presses Enter; returns the time of the Enter. */
export const submit = async (lab: CodexLab, pane: string, text: string): Promise<number> => {
  await lab.tmux('send-keys', '-t', pane, '-l', text)
  const tail = text.slice(-12)
  await waitFor(`"${tail}" echoed in ${pane}`, async () => ((await capture(lab, pane)).includes(tail) ? true : undefined), 5000)
  return press(lab, pane, 'Enter')
}

/** The idle composer of Codex 0.171.0: its footer hint. */
export const CODEX_READY = /\? for shortcuts|context left|esc to interrupt|›/

/** Starts codex in a new tmux window; returns the pane id once its composer is up. */
export const startCodex = async (lab: CodexLab, name: string, args: string[] = []): Promise<string> => {
  const r = await lab.tmux('new-window', '-d', '-t', 'home:', '-n', name, '-c', lab.project, '-P', '-F', '#{pane_id}', CODEX_BIN, '--no-daemon', ...args)
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(lab, pane, /›/, 30_000, `codex's composer in ${name}`)
  return pane
}

export const TRAILBOSS_BIN = join(REPO, 'dist', 'bin', 'trailboss.cjs')

/** `trailboss <args>` as a person's shell outside tmux runs it. */
export const trailboss = (lab: CodexLab, args: string[]): Promise<Run> => run(process.execPath, [TRAILBOSS_BIN, ...args], lab.cliEnv, 20_000)

export interface LsItem {
  sessionId: string
  agent: string
  state: string
  kind: string | null
  n: number | null
  inferred: boolean
  reason: string | null
  tmux: { pane: string; socket: string } | null
  ask: { tool: string | null; input: unknown; message: string | null }
}

export const lsItems = async (lab: CodexLab): Promise<LsItem[]> => {
  const r = await trailboss(lab, ['ls', '--json', '--all'])
  if (r.code !== 0) throw new Error(`trailboss ls --json --all exited ${r.code}: ${r.stderr.trim()}`)
  return (JSON.parse(r.stdout) as { queue: LsItem[] }).queue
}

/** Waits until `ls` shows an item of `pane` matching `want`; returns it. */
export const waitForPaneItem = async (lab: CodexLab, pane: string, want: (i: LsItem) => boolean, timeoutMs: number, what: string): Promise<LsItem> => {
  let last: LsItem[] = []
  try {
    return await waitFor(
      what,
      async () => {
        last = await lsItems(lab)
        return last.find((i) => i.tmux?.pane === pane && want(i))
      },
      timeoutMs,
    )
  } catch (err) {
    const screen = await capture(lab, pane).catch(() => '(pane gone)')
    throw new Error(`${(err as Error).message}\nitems: ${JSON.stringify(last.map((i) => ({ id: i.sessionId.slice(-6), pane: i.tmux?.pane, state: i.state, kind: i.kind, reason: i.reason })))}\n--- screen ---\n${screen}`)
  }
}
