// The history log (docs/design.md §11) with real processes: the built emitter appends the
// changes its events make, readers (the built CLI) append what a check on read finds, racing
// readers log each change once, a torn line is skipped, gc --history removes old days.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { EMITTER, baseEnv, payload, pool, runEmitter, tempDir, type ChildEnv } from './helpers/emitter.js'
import { waitFor } from './helpers/wait-for.js'
import { runCli } from './helpers/cli.js'
import { appendEntry } from '../lib/history/append.js'
import { dayOf } from '../lib/history/files.js'
import { HISTORY_VERSION, type HistoryEntry } from '../lib/history/types.js'

t.setTimeout(300_000)

/** The shipped hook of agents that spool (the build writes each agent's variables into it). */
const SPOOL_SH = new URL('../dist/hooks/spool.sh', import.meta.url).pathname

/** The built emitter with `--agent`, as an agent's hook command runs it; its exit code. */
const runEmitterAs = (agent: string, input: unknown, env: ChildEnv): Promise<number | null> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [EMITTER, '--agent', agent], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    child.on('close', resolve)
    child.stdin.end(JSON.stringify(input))
  })

/** A pane on a tmux server whose socket is not there: every reader finds the session gone. */
const goneTmux = (root: string): Record<string, string> => ({ TMUX: `${join(root, 'no-such-socket')},4242,0`, TMUX_PANE: '%7' })

const historyLines = (env: Record<string, string | undefined>): HistoryEntry[] => {
  const dir = join(String(env.TRAILBOSS_HOME), 'history')
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .flatMap((n) =>
      fs
        .readFileSync(join(dir, n), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as HistoryEntry),
    )
}

const emit = async (
  env: Record<string, string | undefined>,
  sid: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<void> => {
  const r = await runEmitter(JSON.stringify(payload(sid, name, { cwd: '/srv/web', ...extra })), env)
  if (r.code !== 0 || r.stdout !== '' || r.stderr !== '') throw new Error(`emitter: ${r.code} ${r.stderr}`)
}

t.test('the emitter logs each change its events make, once, in a private daily file', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { CLAUDE_CODE_ENTRYPOINT: 'cli', ...goneTmux(root) })
  await emit(env, 'hist-a', 'SessionStart', { source: 'startup' })
  await emit(env, 'hist-a', 'UserPromptSubmit', { prompt_id: 'p1', prompt: 'go' })
  // Not a change: the same state.
  await emit(env, 'hist-a', 'PreToolUse', { prompt_id: 'p1', tool_name: 'Bash', tool_input: { command: 'make test' }, tool_use_id: 'tu1' })
  await emit(env, 'hist-a', 'PermissionRequest', { prompt_id: 'p1', tool_name: 'Bash', tool_input: { command: 'make test' } })
  await emit(env, 'hist-a', 'PostToolUse', { prompt_id: 'p1', tool_name: 'Bash', tool_input: { command: 'make test' }, tool_use_id: 'tu1' })
  await emit(env, 'hist-a', 'Stop', { prompt_id: 'p1', last_assistant_message: 'All green.' })
  const lines = historyLines(env)
  t.same(
    lines.map((l) => [l.from, l.to, l.kind, l.by]),
    [
      [null, 'idle', null, 'hook'],
      ['idle', 'working', null, 'hook'],
      ['working', 'permission', 'permission', 'hook'],
      ['permission', 'working', null, 'hook'],
      ['working', 'waiting', 'done', 'hook'],
    ],
  )
  t.match(lines[2], { sessionId: 'hist-a', agent: 'claude-code', project: 'web', host: 'local', ask: 'Bash: make test' })
  t.equal(lines[4]!.ask, 'All green.')
  const rec = JSON.parse(fs.readFileSync(join(String(env.TRAILBOSS_HOME), 'sessions', 'hist-a.json'), 'utf8')) as { since: number }
  t.equal(lines[4]!.at, Math.round(rec.since), "a line is dated by its event's own stamp")
  for (let i = 1; i < lines.length; i++) t.ok(lines[i]!.at >= lines[i - 1]!.at, 'in the order of the events')
  const dir = join(String(env.TRAILBOSS_HOME), 'history')
  const mode = (p: string): string => (fs.statSync(p).mode & 0o777).toString(8)
  t.equal(mode(dir), '700')
  t.equal(mode(join(dir, `${dayOf(lines[0]!.at)}.jsonl`)), '600')
  t.equal(mode(join(dir, '.marks')), '700')
  t.equal(mode(join(dir, '.marks', dayOf(lines[0]!.at))), '700')
})

t.test('readers racing on the same check on read log its change once', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { CLAUDE_CODE_ENTRYPOINT: 'cli', ...goneTmux(root) })
  for (let round = 0; round < 3; round++) {
    const ids = [0, 1, 2].map((i) => `race-${round}-${i}`)
    for (const sid of ids) {
      await emit(env, sid, 'SessionStart', { source: 'startup' })
      await emit(env, sid, 'UserPromptSubmit', { prompt_id: 'p1' })
    }
    // Six readers at once, each finding the three panes gone.
    const runs = await Promise.all(Array.from({ length: 6 }, () => runCli(['ls', '--json', '--all'], env)))
    for (const r of runs) t.equal(r.code, 0, r.stderr)
    const lines = historyLines(env)
    for (const sid of ids) {
      const gone = lines.filter((l) => l.sessionId === sid && l.to === 'gone')
      t.equal(gone.length, 1, `${sid}: one line for the pane found gone, whoever found it`)
      t.match(gone[0], { from: 'working', by: 'read' })
      const rec = JSON.parse(fs.readFileSync(join(String(env.TRAILBOSS_HOME), 'sessions', `${sid}.json`), 'utf8')) as {
        lastEventAt: number
      }
      t.equal(gone[0]!.at, Math.round(rec.lastEventAt), 'dated by the last sign of life, not by when a reader looked')
    }
  }
  // Later readers find it logged already.
  const before = historyLines(env).length
  await runCli(['ls', '--json', '--all'], env)
  t.equal(historyLines(env).length, before)
})

t.test('concurrent emitters and readers: every line whole, each change once', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { CLAUDE_CODE_ENTRYPOINT: 'cli', ...goneTmux(root) })
  const sessions = Array.from({ length: 6 }, (_, i) => `mix-${i}`)
  const steps: [string, Record<string, unknown>][] = [
    ['SessionStart', { source: 'startup' }],
    ['UserPromptSubmit', { prompt_id: 'p1' }],
    ['Stop', { prompt_id: 'p1', last_assistant_message: 'x'.repeat(3000) }],
  ]
  for (const [name, extra] of steps)
    await pool<unknown>(
      [...sessions.map((sid) => () => emit(env, sid, name, extra)), ...[0, 1].map(() => () => runCli(['status'], env))],
      8,
    )
  const dir = join(String(env.TRAILBOSS_HOME), 'history')
  const text = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => fs.readFileSync(join(dir, n), 'utf8'))
    .join('')
  for (const l of text.split('\n').filter(Boolean)) t.doesNotThrow(() => JSON.parse(l), 'a whole line')
  const lines = historyLines(env)
  const keys = lines.map((l) => `${l.sessionId} ${l.at} ${l.to}`)
  t.equal(new Set(keys).size, keys.length, 'no change twice')
  for (const sid of sessions) {
    const hook = lines.filter((l) => l.sessionId === sid && l.by === 'hook').map((l) => l.to)
    t.same(hook, ['idle', 'working', 'waiting'], `${sid}: every hook change`)
  }
  t.ok(
    lines.every((l) => Buffer.byteLength(JSON.stringify(l)) < 4096),
    'a long ask is cut: lines stay well under one pipe buffer',
  )
})

t.test('a session id that could not name a file is refused', async (t) => {
  const root = tempDir(t)
  const env = { TRAILBOSS_HOME: join(root, 'tb') }
  const e: HistoryEntry = {
    v: HISTORY_VERSION,
    at: Date.now(),
    sessionId: '../escape',
    agent: 'claude-code',
    project: 'p',
    host: 'local',
    from: null,
    to: 'idle',
    kind: null,
    by: 'hook',
  }
  t.equal(appendEntry(env, e), 'refused')
  t.equal(fs.existsSync(join(root, 'tb', 'history')), false)
  t.equal(appendEntry(env, { ...e, sessionId: 'ok-id' }), 'logged')
  t.equal(appendEntry(env, { ...e, sessionId: 'ok-id' }), 'logged-already')
})

t.test('report skips torn and foreign lines and says how many', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { CLAUDE_CODE_ENTRYPOINT: 'cli', ...goneTmux(root) })
  await emit(env, 'torn-a', 'SessionStart', { source: 'startup' })
  await emit(env, 'torn-a', 'UserPromptSubmit', { prompt_id: 'p1' })
  await emit(env, 'torn-a', 'Stop', { prompt_id: 'p1' })
  const clean = await runCli(['report', '--json'], env)
  t.equal(clean.code, 0, clean.stderr)
  const before = JSON.parse(clean.stdout) as { blocked: { totalMs: number }; sessions: unknown[]; skippedLines?: number }
  t.equal(before.skippedLines, undefined)
  const file = join(String(env.TRAILBOSS_HOME), 'history', `${dayOf(Date.now())}.jsonl`)
  fs.appendFileSync(file, 'not json\n{"some":"other file"}\n{"v":1,"at":12,"sessionId":"torn-a","ag')
  const after = await runCli(['report', '--json', '--since', '2d'], env)
  t.equal(after.code, 0, after.stderr)
  const got = JSON.parse(after.stdout) as typeof before
  t.equal(got.skippedLines, 2, 'the unfinished last line is left for its writer, not counted')
  t.equal(got.sessions.length, 1)
  const text = await runCli(['report'], env)
  t.match(text.stdout, /skipped 2 history lines/)
})

t.test('gc --history removes the days older than it, and keeps marks a month', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root)
  const dir = join(String(env.TRAILBOSS_HOME), 'history')
  const day = (daysAgo: number): string => dayOf(Date.now() - daysAgo * 86_400_000)
  fs.mkdirSync(join(dir, '.marks'), { recursive: true, mode: 0o700 })
  for (const ago of [0, 10, 40]) {
    fs.writeFileSync(join(dir, `${day(ago)}.jsonl`), '', { mode: 0o600 })
    fs.mkdirSync(join(dir, '.marks', day(ago)), { mode: 0o700 })
    fs.writeFileSync(join(dir, '.marks', day(ago), `s.${ago}.idle`), '')
  }
  fs.writeFileSync(join(dir, 'notes.txt'), 'mine')
  const dry = await runCli(['gc', '--dry-run'], env)
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, new RegExp(`would remove history of ${day(40)}`))
  t.notMatch(dry.stdout, new RegExp(day(10)))
  t.ok(fs.existsSync(join(dir, `${day(40)}.jsonl`)), 'a dry run removes nothing')
  const week = await runCli(['gc', '--history', '7d'], env)
  t.equal(week.code, 0, week.stderr)
  t.match(week.stdout, new RegExp(`removed history of ${day(10)}`))
  t.same(fs.readdirSync(dir).sort(), ['.marks', `${day(0)}.jsonl`, 'notes.txt'].sort())
  t.same(
    fs.readdirSync(join(dir, '.marks')).sort(),
    [day(0), day(10)].sort(),
    "a 10-day-old day's marks stay: its changes are not logged again",
  )
  const bad = await runCli(['gc', '--history', 'soon'], env)
  t.equal(bad.code, 2)
})

/** A zone whose day began at least three hours ago, so that lines of the last two hours are today there. */
const zoneWellIntoItsDay = (): string => {
  for (const zone of ['UTC', 'Asia/Tokyo', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Honolulu']) {
    const hour = Number(new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', hourCycle: 'h23' }).format(Date.now()))
    if (hour >= 3) return zone
  }
  throw new Error('no zone is three hours into its day')
}

const MIN = 60_000

t.test("status --format '{blocked}': today's blocked time, kept up to date as lines come", async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { TZ: zoneWellIntoItsDay() })
  // Two hours ago, or the next UTC midnight when the hour of lines would straddle one: every line in one daily file.
  const twoHoursAgo = Date.now() - 2 * 3_600_000
  const base = dayOf(twoHoursAgo) === dayOf(twoHoursAgo + 65 * MIN) ? twoHoursAgo : Date.parse(`${dayOf(twoHoursAgo + 65 * MIN)}T00:00:00Z`)
  const file = (at: number): string => join(String(env.TRAILBOSS_HOME), 'history', `${dayOf(at)}.jsonl`)
  const write = (...lines: HistoryEntry[]): void => {
    fs.mkdirSync(join(String(env.TRAILBOSS_HOME), 'history'), { recursive: true, mode: 0o700 })
    for (const l of lines) fs.appendFileSync(file(l.at), `${JSON.stringify(l)}\n`, { mode: 0o600 })
  }
  const l = (
    sid: string,
    min: number,
    from: HistoryEntry['from'],
    to: HistoryEntry['to'],
    kind: HistoryEntry['kind'] = null,
    by: HistoryEntry['by'] = 'hook',
  ): HistoryEntry => ({
    v: HISTORY_VERSION,
    at: base + min * MIN,
    sessionId: sid,
    agent: 'claude-code',
    project: 'web',
    host: 'local',
    from,
    to,
    kind,
    by,
  })
  const blocked = async (): Promise<string> => {
    const r = await runCli(['status', '--format', 'blocked {blocked}'], env)
    t.equal(r.code, 0, r.stderr)
    return r.stdout
  }
  t.equal(await blocked(), 'blocked 0s\n', 'no history: nothing blocked, and the segment says so')
  write(
    l('a', 0, null, 'working'),
    l('a', 10, 'working', 'permission', 'permission'),
    l('a', 17, 'permission', 'working'),
    l('a', 30, 'working', 'ended'),
  )
  t.equal(await blocked(), 'blocked 7m\n')
  t.ok(fs.existsSync(join(String(env.TRAILBOSS_HOME), 'history', '.today.json')), 'the summary is kept')
  // More lines: the summary reads only what was appended.
  write(l('b', 40, null, 'working'), l('b', 45, 'working', 'waiting', 'question'), l('b', 56, 'waiting', 'ended'))
  t.equal(await blocked(), 'blocked 18m\n')
  // A reader's line dated before the session's last one: the summary is made again from the files.
  write(l('b', 50, 'waiting', 'gone', null, 'read'))
  t.equal(await blocked(), 'blocked 12m\n', 'the question ended with the pane, at 50')
  // A file replaced by a shorter one (gc and a new day, an edit): made again too.
  fs.writeFileSync(
    file(base),
    `${JSON.stringify(l('c', 60, null, 'working'))}\n${JSON.stringify(l('c', 61, 'working', 'permission', 'permission'))}\n${JSON.stringify(l('c', 64, 'permission', 'ended'))}\n`,
  )
  t.equal(await blocked(), 'blocked 3m\n')
})

t.test("the spool's fold logs the same changes as the emitter run by the hook itself", async (t) => {
  const payloads = fs
    .readFileSync(new URL('./fixtures/codex/hooks.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { payload?: Record<string, unknown> })
    .flatMap((c) => (c.payload ? [c.payload] : []))
    .slice(0, 20)
  const direct = tempDir(t)
  const directEnv = baseEnv(direct)
  for (const p of payloads) {
    const r = await runEmitterAs('codex', p, directEnv)
    t.equal(r, 0)
  }
  const spooled = tempDir(t)
  const spoolEnv = baseEnv(spooled)
  for (const p of payloads) {
    const r = spawnSync('/bin/sh', [SPOOL_SH, 'codex', process.execPath], {
      input: JSON.stringify(p),
      env: spoolEnv as NodeJS.ProcessEnv,
      encoding: 'utf8',
    })
    t.equal(r.status, 0, r.stderr)
  }
  const want = historyLines(directEnv).map((l) => [l.sessionId, l.from, l.to, l.kind])
  t.ok(want.length >= 5, 'the events change the state several times')
  const spoolDir = join(String(spoolEnv.TRAILBOSS_HOME), 'sessions', '.spool')
  await waitFor(
    () =>
      historyLines(spoolEnv).length >= want.length &&
      (!fs.existsSync(spoolDir) || fs.readdirSync(spoolDir).every((n) => n.startsWith('.'))),
    'the detached folds to log every change',
    60_000,
  )
  t.same(
    historyLines(spoolEnv).map((l) => [l.sessionId, l.from, l.to, l.kind]),
    want,
  )
})
