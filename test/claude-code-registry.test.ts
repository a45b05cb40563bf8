// Claude Code's own session registry (~/.claude/sessions/<pid>.json, 2.1.332), as captured in
// test/fixtures/claude-code-2.1.332/: the parser, the wait it adds to a `working` record, and
// the reader over a real folder (foreign and broken files skipped).
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { claudeCodeDiscovery } from '../lib/agents/claude-code/discovery.js'
import {
  deriveRegistryWait,
  isRegistryProcess,
  parseRegistryEntry,
  type ProcessProbe,
  readRegistry,
  type RegistryEntry,
} from '../lib/agents/claude-code/session-registry.js'
import { readProcStat } from '../lib/proc/agent-process.js'
import { NEWEST_TESTED, OLDEST_SUPPORTED, parseClaudeVersion } from '../lib/agents/claude-code/versions.js'
import type { SessionRecord } from '../lib/record/types.js'
import { tempDir } from './helpers/emitter.js'
import { sessionRecord } from './helpers/session-record.js'

const FIXTURES = new URL('./fixtures/claude-code-2.1.332/', import.meta.url)

interface Change {
  t: number
  ms: number
  file: string
  content: Record<string, unknown>
}
const changes = (mode: 'auto' | 'default'): Change[] =>
  readFileSync(new URL(`${mode}/registry.jsonl`, FIXTURES), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Change)

/** A session of 2.1.332 working on a tool call (its PreToolUse recorded). */
const record = (over: Partial<SessionRecord>): SessionRecord =>
  sessionRecord({
    sessionId: 'sess-1',
    cwd: '/w',
    project: 'w',
    state: 'working',
    kind: null,
    since: 1000,
    event: 'PreToolUse',
    promptId: 'p1',
    lastTool: { name: 'Bash', input: { command: 'touch x' }, useId: 'toolu_1' },
    lastEventAt: 1000,
    lastEvent: 'PreToolUse',
    stateStamp: 1000,
    events: 3,
    ...over,
  })

t.test('every captured registry file parses, and its status is one of three', async (t) => {
  for (const mode of ['auto', 'default'] as const) {
    const all = changes(mode)
    t.ok(all.length > 10, `${mode}: a capture with many changes`)
    const statuses = new Set<string>()
    for (const c of all) {
      if (!('status' in c.content)) continue
      const entry = parseRegistryEntry(JSON.stringify(c.content))
      t.ok(entry, `${mode} at ${c.ms} ms parses`)
      if (entry) statuses.add(entry.status)
    }
    t.same([...statuses].sort(), ['busy', 'idle', 'waiting'], `${mode}: idle, busy, waiting`)
  }
})

t.test("auto mode: the can't-check dialog is a wait from the registry, before any hook says so", async (t) => {
  const all = changes('auto')
  const firstWait = all.find((c) => c.content.status === 'waiting')!
  t.equal(firstWait.content.waitingFor, 'dialog open')
  const entry = parseRegistryEntry(JSON.stringify(firstWait.content))!
  // The record as the PreToolUse of that turn left it (stamped before the dialog showed).
  const events = readFileSync(new URL('auto/events.jsonl', FIXTURES), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { t: number; event: string })
  const pre = events.find((e) => e.event === 'PreToolUse')!
  const notification = events.find((e) => e.event === 'Notification')!
  t.ok(pre.t < entry.statusUpdatedAt && entry.statusUpdatedAt < notification.t - 5000, 'the registry tells ~6 s before the Notification')
  const wait = deriveRegistryWait(record({ stateStamp: pre.t, lastEventAt: pre.t }), entry)
  t.same(wait, { kind: 'permission', since: entry.statusUpdatedAt, why: 'claude code: dialog open' })
  // Then the Notification (6 s later) makes it a wait by a hook: the registry keeps its start.
  const byHook = record({
    state: 'permission',
    kind: 'permission',
    event: 'Notification',
    since: notification.t,
    stateStamp: notification.t,
  })
  t.same(deriveRegistryWait(byHook, entry), { kind: 'permission', since: entry.statusUpdatedAt, why: 'claude code: dialog open' })
  // In default mode PermissionRequest comes a moment after the registry: the wait keeps the registry's start
  // from the first `ls` on, through PermissionRequest and the Notification after it.
  const byRequest = record({ state: 'permission', kind: 'permission', event: 'PermissionRequest', since: entry.statusUpdatedAt + 220 })
  t.same(
    deriveRegistryWait(byRequest, entry),
    { kind: 'permission', since: entry.statusUpdatedAt, why: 'claude code: dialog open' },
    'a PermissionRequest a moment later',
  )
})

t.test('what the registry does not turn into a wait', async (t) => {
  const waiting: RegistryEntry = {
    sessionId: 'sess-1',
    status: 'waiting',
    waitingFor: 'permission prompt',
    statusUpdatedAt: 5000,
    pid: 1,
    procStart: null,
  }
  t.equal(deriveRegistryWait(record({}), undefined), null, 'no file')
  t.equal(deriveRegistryWait(record({}), { ...waiting, status: 'busy' }), null, 'busy')
  t.equal(deriveRegistryWait(record({}), { ...waiting, status: 'idle' }), null, 'idle')
  t.equal(deriveRegistryWait(record({ state: 'waiting', kind: 'done' }), waiting), null, 'a record a hook set to a wait')
  t.equal(
    deriveRegistryWait(record({ state: 'permission', kind: 'permission', event: 'PermissionRequest', since: 4000 }), waiting),
    null,
    'a PermissionRequest older than the registry wait',
  )
  t.equal(
    deriveRegistryWait(record({ state: 'permission', kind: 'permission', event: 'Notification', since: 4000 }), waiting),
    null,
    'a registry wait younger than the Notification',
  )
  t.equal(
    deriveRegistryWait(record({ state: 'permission', kind: 'permission', event: 'Notification', since: 60_000 }), waiting),
    null,
    'or far older',
  )
  t.equal(deriveRegistryWait(record({ headless: true }), waiting), null, 'headless')
  // Our PreToolUse may be stamped seconds after the dialog showed (a late emitter on a busy machine).
  t.same(deriveRegistryWait(record({ stateStamp: 9000 }), waiting)?.kind, 'permission', 'a waiting older than our stamp still counts')
  t.same(deriveRegistryWait(record({}), { ...waiting, waitingFor: 'input needed' })?.kind, 'question', 'AskUserQuestion')
  t.same(deriveRegistryWait(record({ lastTool: { name: 'AskUserQuestion', input: {}, useId: null } }), waiting)?.kind, 'question')
})

t.test('parseRegistryEntry refuses what is not a registry file', async (t) => {
  for (const text of [
    '',
    'nope',
    '[]',
    'null',
    '{"sessionId":1,"status":"idle","statusUpdatedAt":1}',
    '{"sessionId":"a","status":"idle"}',
    '{"sessionId":"a","statusUpdatedAt":1}',
  ]) {
    t.equal(parseRegistryEntry(text), null, JSON.stringify(text))
  }
  t.same(parseRegistryEntry('{"sessionId":"a","status":"waiting","statusUpdatedAt":1,"waitingFor":7,"pid":"x","procStart":12}'), {
    sessionId: 'a',
    status: 'waiting',
    waitingFor: null,
    statusUpdatedAt: 1,
    pid: null,
    procStart: null,
  })
  t.same(parseRegistryEntry('{"sessionId":"a","status":"idle","statusUpdatedAt":1,"pid":7,"procStart":"85733"}'), {
    sessionId: 'a',
    status: 'idle',
    waitingFor: null,
    statusUpdatedAt: 1,
    pid: 7,
    procStart: 85733,
  })
})

t.test(
  'readRegistry reads <pid>.json files only, skips broken and linked ones and dead processes, keeps the newest per session',
  async (t) => {
    const home = tempDir(t)
    const dir = join(home, '.claude', 'sessions')
    mkdirSync(dir, { recursive: true })
    // This test's own process, named with its start time, stands for a live Claude Code; a pid far
    // above any kernel's pid_max never runs.
    const me = { pid: process.pid, procStart: String(readProcStat(process.pid)?.startTicks) }
    const file = (sessionId: string, status: string, at: number, proc: { pid: number; procStart?: string } = me): string =>
      JSON.stringify({ ...proc, sessionId, status, statusUpdatedAt: at, waitingFor: status === 'waiting' ? 'dialog open' : undefined })
    writeFileSync(join(dir, '100.json'), file('s1', 'busy', 10))
    writeFileSync(join(dir, '101.json'), file('s1', 'waiting', 20))
    writeFileSync(join(dir, '102.json'), '{broken')
    writeFileSync(join(dir, '106.json'), file('s5', 'waiting', 30, { pid: 2 ** 30 }))
    writeFileSync(join(dir, '103.abc.key'), file('s2', 'waiting', 5))
    writeFileSync(join(dir, '104.json.tmp.1'), file('s3', 'waiting', 5))
    writeFileSync(join(home, 'elsewhere.json'), file('s4', 'waiting', 5))
    symlinkSync(join(home, 'elsewhere.json'), join(dir, '105.json'))
    const got = readRegistry({ HOME: home })
    t.same([...got.keys()], ['s1'])
    t.same(got.get('s1'), {
      sessionId: 's1',
      status: 'waiting',
      waitingFor: 'dialog open',
      statusUpdatedAt: 20,
      pid: process.pid,
      procStart: Number(me.procStart),
    })
    t.same(readRegistry({ HOME: join(home, 'none') }).size, 0, 'no folder: nothing')
    t.same(
      [...readRegistry({ HOME: join(home, 'none'), CLAUDE_CONFIG_DIR: join(home, '.claude') }).keys()],
      ['s1'],
      'CLAUDE_CONFIG_DIR is followed',
    )
  },
)

t.test('a registry file is believed only for the process it names (a dead Claude Code, its pid reused)', async (t) => {
  const home = tempDir(t)
  const dir = join(home, '.claude', 'sessions')
  mkdirSync(dir, { recursive: true })
  // Another program holds the pid now (after a reboot): a real `sleep`.
  const other = spawn('sleep', ['100'], { stdio: 'ignore' })
  t.teardown(() => other.kill())
  const gone = spawn('true', [], { stdio: 'ignore' })
  await once(gone, 'exit')
  const entry = (pid: number, sessionId: string, procStart?: string): string =>
    JSON.stringify({
      pid,
      sessionId,
      cwd: home,
      kind: 'interactive',
      status: 'waiting',
      waitingFor: 'permission prompt',
      statusUpdatedAt: Date.now() - 5000,
      ...(procStart ? { procStart } : {}),
    })
  const live = other.pid!
  const liveStart = readProcStat(live)?.startTicks
  t.ok(liveStart !== undefined, 'the sleep runs')
  writeFileSync(join(dir, `${live}.json`), entry(live, 'reused-start', String(liveStart! + 1)))
  writeFileSync(join(dir, '1.json'), entry(live, 'reused-plain'))
  writeFileSync(join(dir, `${gone.pid}.json`), entry(gone.pid!, 'dead-pid', '85733'))
  t.same([...readRegistry({ HOME: home }).keys()], [], 'no wait from a file of another process')
  const listSessions = claudeCodeDiscovery.listSessions
  if (!listSessions) throw new Error('Claude Code discovery lists its registry')
  t.same(
    listSessions({ HOME: home }, {}).map((s) => s.sessionId),
    [],
    'no session found from one either',
  )
  // The same file with the sleep's own start time is that process's.
  writeFileSync(join(dir, `${live}.json`), entry(live, 'reused-start', String(liveStart)))
  t.same([...readRegistry({ HOME: home }).keys()], ['reused-start'], 'the start time it gives is the one that counts')
})

t.test('isRegistryProcess: start time, else the process name; only liveness without /proc', async (t) => {
  const stat = (comm: string, startTicks: number) => () => ({ pid: 7, comm, ppid: 1, startTicks })
  const probe = (over: Partial<ProcessProbe>): ProcessProbe => ({
    stat: stat('claude', 50),
    argv: () => [],
    hasProc: () => true,
    alive: () => true,
    ...over,
  })
  t.equal(isRegistryProcess({ pid: 7, procStart: 50 }, probe({})), true, 'the same start time')
  t.equal(isRegistryProcess({ pid: 7, procStart: 51 }, probe({})), false, 'another start time: another process')
  t.equal(isRegistryProcess({ pid: 7, procStart: null }, probe({})), true, 'no start time: a process named claude')
  t.equal(isRegistryProcess({ pid: 7, procStart: null }, probe({ stat: stat('sleep', 50) })), false, 'no start time: another program')
  t.equal(
    isRegistryProcess(
      { pid: 7, procStart: null },
      probe({ stat: stat('node', 50), argv: () => ['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js'] }),
    ),
    true,
    'its package run by node',
  )
  t.equal(isRegistryProcess({ pid: 7, procStart: 50 }, probe({ stat: () => null })), false, 'gone from /proc')
  t.equal(
    isRegistryProcess({ pid: 7, procStart: 50 }, probe({ stat: () => null, hasProc: () => false })),
    true,
    'no /proc (macOS): alive is all there is',
  )
  t.equal(isRegistryProcess({ pid: 7, procStart: 50 }, probe({ stat: () => null, hasProc: () => false, alive: () => false })), false)
  t.equal(isRegistryProcess({ pid: null, procStart: null }, probe({})), false, 'no pid')
})

t.test('versions: parse, and the pins of the e2e suite', async (t) => {
  t.equal(parseClaudeVersion('2.1.332 (Claude Code)\n'), '2.1.332')
  t.equal(parseClaudeVersion('Claude Code'), null)
  // The e2e suite pins exactly these two builds.
  const pinned = (path: string): string =>
    (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies[
      '@anthropic-ai/claude-code'
    ]!
  t.equal(pinned('./e2e/package.json'), OLDEST_SUPPORTED, 'test/e2e pins the oldest supported build')
  t.equal(pinned(`./e2e/clis/claude-code-${NEWEST_TESTED}/package.json`), NEWEST_TESTED, 'test/e2e/clis pins the newest tested build')
})
