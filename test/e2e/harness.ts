// The end-to-end harness: the real Claude Code CLI in panes of a private tmux server, talking to
// the mock API on 127.0.0.1, with Trail Boss's hooks installed in a throwaway HOME. Two builds
// are pinned: the oldest supported (test/e2e/package.json) and the newest tested
// (test/e2e/clis/claude-code-<version>/). Every wait is a poll with a deadline.
import type { Test } from 'tap'
import type { JsonItem } from '../../lib/render/queue-table.js'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { NEWEST_TESTED, OLDEST_SUPPORTED } from '../../lib/agents/claude-code/versions.js'
import { startMockApi, type MockApi } from './mock-api.js'
import { CLAUDE_QUIET_ENV } from '../helpers/claude-quiet-env.js'

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** One pinned Claude Code build: its version and where `npm ci` put its executable. */
export interface ClaudeBuild {
  version: string
  bin: string
}

/** The oldest supported build, pinned in test/e2e/package.json. */
export const OLDEST: ClaudeBuild = { version: OLDEST_SUPPORTED, bin: join(REPO, 'test', 'e2e', 'node_modules', '.bin', 'claude') }
/** The newest tested build, pinned in its own folder (scripts/install-e2e-clis.mjs installs it). */
export const NEWEST: ClaudeBuild = {
  version: NEWEST_TESTED,
  bin: join(REPO, 'test', 'e2e', 'clis', `claude-code-${NEWEST_TESTED}`, 'node_modules', '.bin', 'claude'),
}
export const BUILDS: readonly ClaudeBuild[] = [OLDEST, NEWEST]
export const CLAUDE_CODE_VERSION = OLDEST.version
export const CLAUDE_BIN = OLDEST.bin

/**
 * The permission mode a session starts in. `default` asks before each risky tool (the only mode
 * of 2.1.197); `auto` is 2.1.332's default, where behind a gateway (as the mock is) a tool call
 * opens "Auto mode can't check actions in this session" instead of a permission dialog.
 */
export type PermissionMode = 'default' | 'auto'

/** The footer Claude Code shows at its idle prompt: `? for shortcuts`, or the auto-mode line. */
export const PROMPT_READY = /\? for shortcuts|⏵⏵ auto mode on|⏸ manual mode on/
export const TRAILBOSS_BIN = join(REPO, 'dist', 'bin', 'trailboss.cjs')
export const EMIT_BIN = join(REPO, 'dist', 'hooks', 'emit.cjs')
/** The idle notification's delay (`messageIdleNotifThresholdMs`); Claude Code's default is 60 s. */
export const IDLE_NOTIF_MS = 3000
/** Claude Code waits this long before the permission Notification (a constant in its binary). */
export const PERMISSION_NOTIF_MS = 6000
const POLL_MS = 50
/**
 * After this long a wait polls every SLOW_POLL_MS instead: a state that takes seconds is timed to
 * that much, and the `ls` runs of three suites waiting at once no longer keep the cores from the
 * agents they wait on (each poll of a fleet step is one `ls` run, ~60 ms of CPU).
 */
const FAST_POLL_FOR_MS = 2000
const SLOW_POLL_MS = 200
/**
 * A hook-driven state must show within this. A bound, not the measure (the latency tables are):
 * both builds run at once, every poll is an `ls` run, and on a loaded 2-core machine a finished
 * turn once took over 5 s to show.
 */
export const HOOK_BOUND_MS = 15_000
const API_KEY = 'sk-ant-api03-trailboss-e2e-0123456789abcdefghij'

export interface Run {
  stdout: string
  stderr: string
  code: number
}

export const run = (
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 10_000,
  input?: string,
  cwd?: string,
): Promise<Run> =>
  new Promise((resolvePromise) => {
    const child = execFile(
      cmd,
      args,
      { env, cwd, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolvePromise({ stdout, stderr, code })
      },
    )
    if (input !== undefined) child.stdin?.end(input)
    else child.stdin?.end()
  })

/**
 * tap adds its own preload (`NODE_OPTIONS=--import …/@tapjs/processinfo/…`, `_TAPJS_*`) to every
 * child it sees spawned, whatever env it is given: the tmux server too, and from its global
 * environment every agent and every hook emitter started in a pane. An emitter then runs tap's
 * module-loader thread before its own code, and one was seen parked in that loader's wait for 28
 * minutes, none of its deadlines armed yet (docs/reliability.md). Taken out of the server's global
 * environment before any agent starts, so panes run as a person's do.
 */
export const forgetRunnerEnv = async (tmux: (...args: string[]) => Promise<Run>): Promise<void> => {
  const names = ['NODE_OPTIONS', ...Object.keys(process.env).filter((k) => k.startsWith('_TAPJS_'))]
  const r = await tmux(...names.flatMap((n, i) => [...(i > 0 ? [';'] : []), 'set-environment', '-g', '-u', n]))
  if (r.code !== 0) throw new Error(`tmux set-environment -u failed: ${r.stderr}`)
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export class Timeout extends Error {}

/** Polls `probe` until it returns a value other than undefined; returns it and how long it took. */
export const waitFor = async <T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  from = Date.now(),
): Promise<{ value: T; ms: number }> => {
  const started = Date.now()
  const deadline = started + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined) return { value, ms: Date.now() - from }
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline)
      throw new Timeout(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`)
    await sleep(Date.now() - started < FAST_POLL_FOR_MS ? POLL_MS : SLOW_POLL_MS)
  }
}

/** One item of `trailboss ls --json` (docs/design.md §6.3), as the CLI writes it. */
export type Item = JsonItem

export interface Listing {
  version: number
  queue: Item[]
}

/** What every agent's run has: a throwaway HOME, a private tmux server, our records. */
export interface Lab {
  root: string
  home: string
  project: string
  scratch: string
  tbHome: string
  socket: string
  /** The environment of the agent (and so of the hooks) in the panes. */
  env: NodeJS.ProcessEnv
  /** The environment of a person's shell outside tmux, for `trailboss` commands. */
  cliEnv: NodeJS.ProcessEnv
  tmux: (...args: string[]) => Promise<Run>
  close: () => Promise<void>
}

export interface E2e extends Lab {
  api: MockApi
  /** The Claude Code build every pane of this run starts. */
  build: ClaudeBuild
  /** The permission mode every pane of this run starts in (a flag only where the build's default differs). */
  mode: PermissionMode
}

/** Fails loudly when the pinned CLI is missing: the suite must never pass by not running. */
export const checkClaude = async (build: ClaudeBuild = OLDEST): Promise<string> => {
  if (!existsSync(build.bin))
    throw new Error(`Claude Code ${build.version} is not installed at ${build.bin}: run \`npm test\` once (its pretest installs it)`)
  const v = await run(build.bin, ['--version'], { ...process.env, DISABLE_AUTOUPDATER: '1' }, 20_000)
  if (v.code !== 0 || !v.stdout.includes(build.version)) {
    throw new Error(`\`claude --version\` gave ${JSON.stringify(v.stdout.trim())} (exit ${v.code}); expected ${build.version}`)
  }
  if (!existsSync(TRAILBOSS_BIN) || !existsSync(EMIT_BIN)) throw new Error('dist/ is missing: run `npm run build`')
  return v.stdout.trim()
}

/**
 * Lab folders removed once, removed again as this file's process exits: an agent killed with its
 * tmux server runs its SessionEnd hook after that, and the emitter makes the home again to record
 * the end (eight such folders were left in /tmp by one run).
 */
const removedRoots = new Set<string>()
process.on('exit', () => {
  for (const dir of removedRoots) rmSync(dir, { recursive: true, force: true })
})

/** An agent may still write its session files for a moment after its pane was killed. */
const removeTree = async (dir: string): Promise<void> => {
  removedRoots.add(dir)
  for (let i = 0; ; i++) {
    try {
      rmSync(dir, { recursive: true, force: true })
      return
    } catch (err) {
      if (i >= 20) throw err
      await sleep(250)
    }
  }
}

/** The folders of a lab, all under one short temp root (a tmux socket path must stay under ~100 bytes). */
export type LabDirs = Pick<Lab, 'root' | 'home' | 'project' | 'scratch' | 'tbHome' | 'socket'>

export interface LabOptions<A> {
  /** The temp root's name prefix (`tb-e2e-`): which agent's run left a folder behind. */
  prefix: string
  /** Folders under HOME the agent's configuration lives in (`.claude`). */
  homeDirs: readonly string[]
  /**
   * Whether panes keep tap's preload (`NODE_OPTIONS`, `_TAPJS_*`): `forget` (forgetRunnerEnv) runs
   * them as a person's are; Gemini CLI's lab keeps it, since without it a session's second shell
   * command ran with no permission dialog in about half the runs (docs/gemini-cli.md).
   */
  runnerEnv: 'forget' | 'keep'
  /** Starts the agent's API mock and writes its configuration; what the panes and a person's shell add. */
  setup: (dirs: LabDirs) => Promise<{ api: A; env: NodeJS.ProcessEnv; cliEnv?: NodeJS.ProcessEnv }>
  /** Around the server's end: `before` while the panes still exist, `after` once it is gone. */
  teardown?: { before?: () => Promise<void>; after?: () => Promise<void> }
}

/**
 * A throwaway HOME with a project (a git root) and a scratch folder outside it, the agent's mock
 * and a private tmux server whose first session (`home`) holds a plain shell: the place a
 * person's client sits before `go`. `close` ends the server and the mock and removes the root
 * (kept with TB_E2E_KEEP=1).
 */
export const openLab = async <A extends { close: () => Promise<void> }>(opts: LabOptions<A>): Promise<Lab & { api: A }> => {
  const root = mkdtempSync(join(tmpdir(), opts.prefix))
  const dirs: LabDirs = {
    root,
    home: join(root, 'home'),
    project: join(root, 'work', 'proj'),
    scratch: join(root, 'scratch'),
    tbHome: join(root, 'tb'),
    socket: join(root, 'sock'),
  }
  for (const d of [dirs.home, dirs.project, dirs.scratch, ...opts.homeDirs.map((h) => join(dirs.home, h))])
    await mkdir(d, { recursive: true, mode: 0o700 })
  await mkdir(join(dirs.project, '.git'), { recursive: true })
  const agent = await opts.setup(dirs)
  const cliEnv: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    // The default tmux server discovery asks is the lab's, never the person's.
    TMUX_TMPDIR: dirs.root,
    HOME: dirs.home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    TRAILBOSS_HOME: dirs.tbHome,
    ...agent.cliEnv,
  }
  const env: NodeJS.ProcessEnv = { ...cliEnv, ...agent.env }
  const tmux = (...args: string[]): Promise<Run> => run('tmux', ['-S', dirs.socket, '-f', '/dev/null', ...args], env)
  const lab = {
    ...dirs,
    api: agent.api,
    env,
    cliEnv,
    tmux,
    close: async () => {
      await opts.teardown?.before?.()
      await tmux('kill-server')
      await opts.teardown?.after?.()
      await agent.api.close()
      if (process.env.TB_E2E_KEEP !== '1') await removeTree(root)
    },
  }
  try {
    const started = await tmux('new-session', '-d', '-s', 'home', '-x', '160', '-y', '45', '-c', dirs.project, 'sh')
    if (started.code !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`)
    if (opts.runnerEnv === 'forget') await forgetRunnerEnv(tmux)
  } catch (err) {
    await lab.close()
    throw err
  }
  return lab
}

export interface StartOptions {
  /** Skip installing hooks (for the session that runs before install). */
  noHooks?: boolean
  build?: ClaudeBuild
  /** `default` unless asked: the classic permission dialogs on every build. */
  mode?: PermissionMode
}

export const startE2e = async (opts: StartOptions = {}): Promise<E2e> => {
  const build = opts.build ?? OLDEST
  const mode = opts.mode ?? 'default'
  if (mode === 'auto' && build === OLDEST) throw new Error(`Claude Code ${build.version} has no auto mode`)
  const lab = await openLab({
    prefix: 'tb-e2e-',
    homeDirs: ['.claude'],
    runnerEnv: 'forget',
    setup: async ({ home, project, scratch }) => {
      const api = await startMockApi({ scratchDir: scratch })
      const claudeJson = {
        hasCompletedOnboarding: true,
        lastOnboardingVersion: build.version,
        theme: 'dark',
        customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
        projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
        messageIdleNotifThresholdMs: IDLE_NOTIF_MS,
      }
      await writeFile(join(home, '.claude.json'), JSON.stringify(claudeJson, null, 2), { mode: 0o600 })
      const env: NodeJS.ProcessEnv = {
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: API_KEY,
        ...CLAUDE_QUIET_ENV,
      }
      return { api, env }
    },
  })
  await lab.tmux('set-option', '-g', 'remain-on-exit', 'off')
  const e2e: E2e = { ...lab, build, mode }
  if (!opts.noHooks) await installHooks(e2e)
  return e2e
}

/** `trailboss install` (user scope) into the throwaway HOME, as a person runs it. */
export const installHooks = async (e2e: E2e): Promise<string> => {
  const r = await run(process.execPath, [TRAILBOSS_BIN, 'install'], e2e.cliEnv, 20_000)
  const settings = join(e2e.home, '.claude', 'settings.json')
  if (r.code !== 0 || !existsSync(settings)) throw new Error(`trailboss install failed (exit ${r.code}): ${r.stderr.trim()}`)
  return r.stdout
}

export interface Pane {
  pane: string
  sessionId: string
}

/** The flags that start a session of this run's build in this run's mode. */
export const modeArgs = (e2e: Pick<E2e, 'build' | 'mode'>): string[] =>
  e2e.build === OLDEST || e2e.mode === 'auto' ? [] : ['--permission-mode', e2e.mode]

/** Starts claude in a new tmux window and waits for its input prompt. */
export const startClaude = async (
  e2e: E2e,
  name: string,
  args: string[] = [],
  sessionId: string | null = randomUUID(),
): Promise<Pane & { startMs: number }> => {
  const t0 = Date.now()
  const idArgs = sessionId ? ['--session-id', sessionId] : []
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
    '#{pane_id}',
    e2e.build.bin,
    ...idArgs,
    ...modeArgs(e2e),
    ...args,
  )
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(e2e, pane, PROMPT_READY, 30_000, `claude's prompt in ${name}`)
  return { pane, sessionId: sessionId ?? '', startMs: Date.now() - t0 }
}

/** The pane's visible text, or with `history` also what scrolled off. */
export const capture = async (e2e: Lab, pane: string, history = false): Promise<string> => {
  const r = await e2e.tmux('capture-pane', '-p', ...(history ? ['-S', '-'] : []), '-t', pane)
  if (r.code !== 0) throw new Error(`capture-pane ${pane}: ${r.stderr.trim()}`)
  return r.stdout
}

/** Waits until the pane's visible text matches `re`; returns that text. */
export const waitForScreen = async (e2e: Lab, pane: string, re: RegExp, timeoutMs: number, what = String(re)): Promise<string> => {
  try {
    return (
      await waitFor(
        what,
        async () => {
          const screen = await capture(e2e, pane)
          return re.test(screen) ? screen : undefined
        },
        timeoutMs,
      )
    ).value
  } catch (err) {
    const screen = await capture(e2e, pane).catch(() => '(pane gone)')
    throw new Error(`${(err as Error).message}\n--- screen of ${pane} ---\n${screen}`, { cause: err })
  }
}

/** Types text the way a person does: the characters, then Enter as a separate key. */
export const typeText = async (e2e: Lab, pane: string, text: string): Promise<void> => {
  await e2e.tmux('send-keys', '-t', pane, '-l', text)
  const tail = text.slice(-12)
  await waitFor(`"${tail}" echoed in ${pane}`, async () => ((await capture(e2e, pane)).includes(tail) ? true : undefined), 5000)
}

/** Presses keys and returns the moment they were sent: the start of every latency figure. */
export const press = async (e2e: Lab, pane: string, ...keys: string[]): Promise<number> => {
  const t0 = Date.now()
  const r = await e2e.tmux('send-keys', '-t', pane, ...keys)
  if (r.code !== 0) throw new Error(`send-keys ${keys.join(' ')}: ${r.stderr.trim()}`)
  return t0
}

/**
 * Answers the dialog `open` matches on `pane`: `answer` presses what it takes and returns the time
 * of the key a latency counts from. While the dialog is still there `settleMs` later it is answered
 * again, up to `tries` answers in all: Claude Code 2.1.332 may let a key go (seen on a quiet
 * machine and in CI), and the steps after it would type into the dialog. Returns the time of the
 * last answer; `note` is told of each one again.
 */
export const answerDialog = async (
  e2e: Lab,
  pane: string,
  open: RegExp,
  answer: () => Promise<number>,
  opts: { tries: number; settleMs: number; note: (text: string) => void },
): Promise<number> => {
  let at = await answer()
  for (let i = 1; i < opts.tries; i++) {
    const gone = await waitFor('the dialog to close', async () => (open.test(await capture(e2e, pane)) ? undefined : true), opts.settleMs)
      .then(() => true)
      .catch(() => false)
    if (gone) break
    opts.note(`the dialog (${open.source}) was still open ${Date.now() - at} ms after its answer: answered again`)
    at = await answer()
  }
  return at
}

/** Types a prompt and presses Enter; returns the time of the Enter. */
export const submit = async (e2e: Lab, pane: string, text: string): Promise<number> => {
  await typeText(e2e, pane, text)
  return press(e2e, pane, 'Enter')
}

/** A control-mode client (`tmux -C`) attached to `target`: a real client that needs no terminal. */
export const attachClient = async (lab: Lab, target: string): Promise<{ name: string; child: ChildProcess }> => {
  const child = spawn('tmux', ['-S', lab.socket, '-C', 'attach-session', '-t', target], {
    env: lab.env,
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  const { value } = await waitFor(
    'the control client to attach',
    async () => {
      const r = await lab.tmux('list-clients', '-F', '#{client_name} #{client_pid}')
      return r.stdout
        .split('\n')
        .find((l) => l.endsWith(` ${child.pid}`))
        ?.split(' ')[0]
    },
    5000,
  )
  return { name: value, child }
}

/** The pane a client shows. */
export const clientPane = async (lab: Lab, client: string): Promise<string> =>
  (await lab.tmux('display-message', '-p', '-c', client, '#{pane_id}')).stdout.trim()

/**
 * The assertions of one build's script, each message prefixed with its version: both builds'
 * scripts report into the same test, interleaved.
 */
export const taggedAsserts = (parent: Test, build: ClaudeBuild) => {
  const tag = `[${build.version}] `
  return {
    pass: (m: string) => parent.pass(tag + m),
    fail: (m: string) => parent.fail(tag + m),
    equal: (a: unknown, b: unknown, m = 'should be equal') => parent.equal(a, b, tag + m),
    match: (a: unknown, b: unknown, m = 'should match pattern') => parent.match(a, b, tag + m),
    same: (a: unknown, b: unknown, m = 'should be equivalent') => parent.same(a, b, tag + m),
    comment: (m: string) => parent.comment(tag + m),
  }
}

/** `trailboss <args>` as a person's shell outside tmux runs it. */
export const trailboss = (e2e: Lab, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> =>
  run(process.execPath, [TRAILBOSS_BIN, ...args], { ...e2e.cliEnv, ...env }, 20_000)

/** `trailboss ls --json --all`, parsed. */
export const lsJson = async (e2e: Lab): Promise<Listing> => {
  const r = await trailboss(e2e, ['ls', '--json', '--all'])
  if (r.code !== 0) throw new Error(`trailboss ls --json --all exited ${r.code}: ${r.stderr.trim()}`)
  return JSON.parse(r.stdout) as Listing
}

export const itemOf = (listing: Listing, sessionId: string): Item | undefined => listing.queue.find((i) => i.sessionId === sessionId)

/** The record files as the emitter wrote them (pending events not folded). */
export const readRecords = async (e2e: Lab): Promise<Record<string, unknown>[]> => {
  const dir = join(e2e.tbHome, 'sessions')
  const names = await readdir(dir).catch(() => [] as string[])
  const out: Record<string, unknown>[] = []
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      out.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as Record<string, unknown>)
    } catch {
      // Mid-rename or not ours: the next poll sees it.
    }
  }
  return out
}

export interface Expect {
  state: string
  kind?: string | null
  queued?: boolean
}

/** Waits until `ls --json --all` shows the session as expected; returns the item and the latency. */
export const waitForItem = async (
  e2e: Lab,
  sessionId: string,
  want: Expect | ((item: Item) => boolean),
  from: number,
  timeoutMs: number,
): Promise<{ item: Item; ms: number; recordMs: number | null; listing: Listing }> => {
  let last: Item | undefined
  let listing: Listing | undefined
  // When the emitter's record file first shows the state (before any check on read): the
  // hook path alone, without the cost of an `ls` run per poll.
  let recordMs: number | null = null
  const recordShows = async (): Promise<boolean> => {
    if (typeof want === 'function') return false
    const rec = JSON.parse(await recordText(e2e, sessionId).catch(() => '{}')) as { state?: string; kind?: string | null }
    return rec.state === want.state && (want.kind === undefined || rec.kind === want.kind)
  }
  const test =
    typeof want === 'function'
      ? want
      : (i: Item) =>
          i.state === want.state &&
          (want.kind === undefined || i.kind === want.kind) &&
          (want.queued === undefined || (i.n !== null) === want.queued)
  let done = false
  const recordPoll = (async () => {
    while (!done && recordMs === null && typeof want !== 'function') {
      if (await recordShows().catch(() => false)) recordMs = Date.now() - from
      else await sleep(20)
    }
  })()
  try {
    const r = await waitFor(
      `session ${sessionId.slice(0, 8)} to be ${JSON.stringify(typeof want === 'function' ? 'as expected' : want)}`,
      async () => {
        listing = await lsJson(e2e)
        last = itemOf(listing, sessionId)
        return last && test(last) ? last : undefined
      },
      timeoutMs,
      from,
    )
    done = true
    await recordPoll
    return { item: r.value, ms: r.ms, recordMs, listing: listing! }
  } catch (err) {
    throw new Error(`${(err as Error).message}\nlast item: ${JSON.stringify(last ?? null)}\nrecord: ${await recordText(e2e, sessionId)}`, {
      cause: err,
    })
  } finally {
    done = true
  }
}

export const recordText = async (e2e: Lab, sessionId: string): Promise<string> =>
  readFile(join(e2e.tbHome, 'sessions', `${sessionId}.json`), 'utf8').catch(() => '(no record)')

/** Latency figures of one run, printed at the end for docs/claude-code.md. */
export class Latencies {
  readonly rows: { scenario: string; ms: number; recordMs: number | null; note: string }[] = []
  /** `ms`: until `ls --json` showed it; `recordMs`: until the record file did (hook path only). */
  add(scenario: string, r: number | { ms: number; recordMs?: number | null }, note = ''): void {
    const { ms, recordMs = null } = typeof r === 'number' ? { ms: r } : r
    this.rows.push({ scenario, ms, recordMs, note })
  }
  format(): string {
    const head = `${'scenario'.padEnd(56)} ${'record'.padStart(8)} ${'ls'.padStart(8)}`
    const rows = this.rows.map(
      (r) =>
        `${r.scenario.padEnd(56)} ${(r.recordMs === null ? '-' : `${r.recordMs} ms`).padStart(8)} ${`${r.ms} ms`.padStart(8)}${r.note ? `  ${r.note}` : ''}`,
    )
    return [head, ...rows].join('\n')
  }
}
