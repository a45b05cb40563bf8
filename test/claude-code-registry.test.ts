// Claude Code's own session registry (~/.claude/sessions/<pid>.json, 2.1.332), as captured in
// test/fixtures/claude-code-2.1.332/: the parser, the wait it adds to a `working` record, and
// the reader over a real folder (foreign and broken files skipped).
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { deriveRegistryWait, parseRegistryEntry, readRegistry, type RegistryEntry } from '../lib/agents/claude-code/session-registry.js'
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
  const events = readFileSync(new URL('auto/events.jsonl', FIXTURES), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { t: number; event: string })
  const pre = events.find((e) => e.event === 'PreToolUse')!
  const notification = events.find((e) => e.event === 'Notification')!
  t.ok(pre.t < entry.statusUpdatedAt && entry.statusUpdatedAt < notification.t - 5000, 'the registry tells ~6 s before the Notification')
  const wait = deriveRegistryWait(record({ stateStamp: pre.t, lastEventAt: pre.t }), entry)
  t.same(wait, { kind: 'permission', since: entry.statusUpdatedAt, why: 'claude code: dialog open' })
  // Then the Notification (6 s later) makes it a wait by a hook: the registry keeps its start.
  const byHook = record({ state: 'permission', kind: 'permission', event: 'Notification', since: notification.t, stateStamp: notification.t })
  t.same(deriveRegistryWait(byHook, entry), { kind: 'permission', since: entry.statusUpdatedAt, why: 'claude code: dialog open' })
  // In default mode PermissionRequest comes a moment after the registry: the wait keeps the registry's start
  // from the first `ls` on, through PermissionRequest and the Notification after it.
  const byRequest = record({ state: 'permission', kind: 'permission', event: 'PermissionRequest', since: entry.statusUpdatedAt + 220 })
  t.same(deriveRegistryWait(byRequest, entry), { kind: 'permission', since: entry.statusUpdatedAt, why: 'claude code: dialog open' }, 'a PermissionRequest a moment later')
})

t.test('what the registry does not turn into a wait', async (t) => {
  const waiting: RegistryEntry = { sessionId: 'sess-1', status: 'waiting', waitingFor: 'permission prompt', statusUpdatedAt: 5000, pid: 1 }
  t.equal(deriveRegistryWait(record({}), undefined), null, 'no file')
  t.equal(deriveRegistryWait(record({}), { ...waiting, status: 'busy' }), null, 'busy')
  t.equal(deriveRegistryWait(record({}), { ...waiting, status: 'idle' }), null, 'idle')
  t.equal(deriveRegistryWait(record({ state: 'waiting', kind: 'done' }), waiting), null, 'a record a hook set to a wait')
  t.equal(deriveRegistryWait(record({ state: 'permission', kind: 'permission', event: 'PermissionRequest', since: 4000 }), waiting), null, 'a PermissionRequest older than the registry wait')
  t.equal(deriveRegistryWait(record({ state: 'permission', kind: 'permission', event: 'Notification', since: 4000 }), waiting), null, 'a registry wait younger than the Notification')
  t.equal(deriveRegistryWait(record({ state: 'permission', kind: 'permission', event: 'Notification', since: 60_000 }), waiting), null, 'or far older')
  t.equal(deriveRegistryWait(record({ headless: true }), waiting), null, 'headless')
  // Our PreToolUse may be stamped seconds after the dialog showed (a late emitter on a busy machine).
  t.same(deriveRegistryWait(record({ stateStamp: 9000 }), waiting)?.kind, 'permission', 'a waiting older than our stamp still counts')
  t.same(deriveRegistryWait(record({}), { ...waiting, waitingFor: 'input needed' })?.kind, 'question', 'AskUserQuestion')
  t.same(deriveRegistryWait(record({ lastTool: { name: 'AskUserQuestion', input: {}, useId: null } }), waiting)?.kind, 'question')
})

t.test('parseRegistryEntry refuses what is not a registry file', async (t) => {
  for (const text of ['', 'nope', '[]', 'null', '{"sessionId":1,"status":"idle","statusUpdatedAt":1}', '{"sessionId":"a","status":"idle"}', '{"sessionId":"a","statusUpdatedAt":1}']) {
    t.equal(parseRegistryEntry(text), null, JSON.stringify(text))
  }
  t.same(parseRegistryEntry('{"sessionId":"a","status":"waiting","statusUpdatedAt":1,"waitingFor":7,"pid":"x"}'), { sessionId: 'a', status: 'waiting', waitingFor: null, statusUpdatedAt: 1, pid: null })
})

t.test('readRegistry reads <pid>.json files only, skips broken and linked ones and dead processes, keeps the newest per session', async (t) => {
  const home = tempDir(t)
  const dir = join(home, '.claude', 'sessions')
  mkdirSync(dir, { recursive: true })
  // pid 1 always runs; a pid far above any kernel's pid_max never does.
  const file = (sessionId: string, status: string, at: number, pid = 1): string => JSON.stringify({ pid, sessionId, status, statusUpdatedAt: at, waitingFor: status === 'waiting' ? 'dialog open' : undefined })
  writeFileSync(join(dir, '100.json'), file('s1', 'busy', 10))
  writeFileSync(join(dir, '101.json'), file('s1', 'waiting', 20))
  writeFileSync(join(dir, '102.json'), '{broken')
  writeFileSync(join(dir, '106.json'), file('s5', 'waiting', 30, 2 ** 30))
  writeFileSync(join(dir, '103.abc.key'), file('s2', 'waiting', 5))
  writeFileSync(join(dir, '104.json.tmp.1'), file('s3', 'waiting', 5))
  writeFileSync(join(home, 'elsewhere.json'), file('s4', 'waiting', 5))
  symlinkSync(join(home, 'elsewhere.json'), join(dir, '105.json'))
  const got = readRegistry({ HOME: home })
  t.same([...got.keys()], ['s1'])
  t.same(got.get('s1'), { sessionId: 's1', status: 'waiting', waitingFor: 'dialog open', statusUpdatedAt: 20, pid: 1 })
  t.same(readRegistry({ HOME: join(home, 'none') }).size, 0, 'no folder: nothing')
  t.same([...readRegistry({ HOME: join(home, 'none'), CLAUDE_CONFIG_DIR: join(home, '.claude') }).keys()], ['s1'], 'CLAUDE_CONFIG_DIR is followed')
})

t.test('versions: parse, and the pins of the e2e suite', async (t) => {
  t.equal(parseClaudeVersion('2.1.332 (Claude Code)\n'), '2.1.332')
  t.equal(parseClaudeVersion('Claude Code'), null)
  // The e2e suite pins exactly these two builds.
  const pinned = (path: string): string => (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@anthropic-ai/claude-code']!
  t.equal(pinned('./e2e/package.json'), OLDEST_SUPPORTED, 'test/e2e pins the oldest supported build')
  t.equal(pinned(`./e2e/clis/claude-code-${NEWEST_TESTED}/package.json`), NEWEST_TESTED, 'test/e2e/clis pins the newest tested build')
})
