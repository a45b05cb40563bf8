// The digest of a return (lib/history/digest.ts) and the rule that tells a return
// (lib/history/activity.ts): pure cases, a property, and the state files in a temp home.
import { readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import {
  ASKING_KINDS,
  deriveDigest,
  formatDigestLine,
  formatDigestText,
  isEmptyDigest,
  SINCE_LEAD,
  type OpenWait,
} from '../lib/history/digest.js'
import {
  type Activity,
  claimReturn,
  deriveObserved,
  deriveReturn,
  noteClientActivity,
  QUIET_MS,
  readActivity,
  takeReturn,
} from '../lib/history/activity.js'
import { HISTORY_VERSION, type HistoryEntry, type HistoryState } from '../lib/history/types.js'
import { formatDigestNotice } from '../lib/commands/notify.js'
import { LIVE_STATES, WAIT_KINDS, type WaitKind } from '../lib/record/types.js'

const MIN = 60_000
const T0 = Date.parse('2026-03-02T12:00:00Z')

const line = (at: number, to: HistoryState, kind: WaitKind | null, sessionId = 's1'): HistoryEntry => ({
  v: HISTORY_VERSION,
  at,
  sessionId,
  agent: 'claude-code',
  project: 'api',
  host: 'local',
  from: 'working',
  to,
  kind,
  by: 'hook',
})

const open = (key: string, since: number, project: string | null = 'api'): OpenWait => ({
  key,
  agent: 'claude-code',
  project,
  kind: 'permission',
  since,
})

t.test('deriveDigest: what arrived in (since, until], and the oldest open wait', async (t) => {
  const span = { since: T0, until: T0 + 60 * MIN }
  const d = deriveDigest(
    [
      line(T0 - MIN, 'permission', 'permission'), // before the span
      line(T0, 'waiting', 'question'), // at its start: seen before the person left
      line(T0 + MIN, 'permission', 'permission'),
      line(T0 + 2 * MIN, 'permission', null), // a wait line without a kind: permission
      line(T0 + 3 * MIN, 'waiting', 'question'),
      line(T0 + 4 * MIN, 'waiting', null), // question
      line(T0 + 5 * MIN, 'waiting', 'interrupted'),
      line(T0 + 6 * MIN, 'waiting', 'done'),
      line(T0 + 7 * MIN, 'waiting', 'done', 's2'),
      line(T0 + 8 * MIN, 'waiting', 'error'),
      line(T0 + 9 * MIN, 'working', null),
      line(T0 + 60 * MIN, 'ended', null),
      line(T0 + 61 * MIN, 'permission', 'permission'), // after it
    ],
    [open('3', T0 + 5 * MIN), open('1', T0 + MIN), open('2', T0 + MIN, null)],
    span,
  )
  t.same(d.waits, { count: 5, byKind: { permission: 2, question: 2, interrupted: 1 } })
  t.equal(d.done, 2)
  t.equal(d.errors, 1)
  t.same(d.oldest, { ...open('1', T0 + MIN), ageMs: 59 * MIN }, 'the oldest; a tie goes to the lower key')
  t.notOk(isEmptyDigest(d))
  t.equal(
    formatDigestLine(d),
    'While you were away (1h): 5 waits (2 permission, 2 question, 1 interrupted), 2 turns finished, 1 error; oldest open: 1 api (claude-code, permission), 59m',
  )
  t.equal(
    formatDigestText(d, SINCE_LEAD),
    [
      'Since the last digest (1h):',
      '  5 waits (2 permission, 2 question, 1 interrupted)',
      '  2 turns finished',
      '  1 error',
      '  oldest open: 1 api (claude-code, permission), 59m',
      '',
    ].join('\n'),
  )
  const quiet = deriveDigest([line(T0 + MIN, 'working', null)], [open('1', T0 - MIN)], span)
  t.ok(isEmptyDigest(quiet), 'an open wait alone is no news')
  t.equal(
    formatDigestLine(deriveDigest([line(T0 + MIN, 'waiting', 'question')], [], span)),
    'While you were away (1h): 1 wait (1 question), 0 turns finished, 0 errors',
  )
})

t.test('the digest is visible text: a project or agent with controls is shown escaped', async (t) => {
  const d = deriveDigest(
    [line(T0 + MIN, 'waiting', 'question')],
    [{ ...open('1', T0), project: 'evil\u001b[2J\u202e', agent: 'a\u0007' }],
    {
      since: T0,
      until: T0 + MIN,
    },
  )
  for (const text of [formatDigestLine(d), formatDigestText(d)]) {
    t.notMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f\u202e]/, 'no control or bidi character')
    t.match(text, /evil\^\[\[2J\\u202e/)
  }
})

t.test('property: every line into a wait in the span is counted once, by its kind', async () => {
  const STATES: HistoryState[] = [...LIVE_STATES, 'gone']
  const entry = fc.record({
    at: fc.integer({ min: T0 - 30 * MIN, max: T0 + 90 * MIN }),
    to: fc.constantFrom(...STATES),
    kind: fc.option(fc.constantFrom(...WAIT_KINDS)),
  })
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 40 }), (es) => {
      const entries = es.map((e) => line(e.at, e.to, e.kind))
      const span = { since: T0, until: T0 + 60 * MIN }
      const d = deriveDigest(entries, [], span)
      const inSpan = entries.filter((e) => e.at > span.since && e.at <= span.until && (e.to === 'permission' || e.to === 'waiting'))
      const sum = ASKING_KINDS.reduce((n, k) => n + d.waits.byKind[k], 0)
      return (
        d.waits.count === sum &&
        sum + d.done + d.errors === inSpan.length &&
        d.errors === inSpan.filter((e) => e.kind === 'error').length &&
        isEmptyDigest(d) === (inSpan.length === 0)
      )
    }),
  )
})

const seen = (commandAt: number | null, clientAt: number | null, away: Activity['away'] = null): Activity => ({ commandAt, clientAt, away })

t.test('deriveReturn: judged from what was seen before this command', async (t) => {
  const now = T0 + 60 * MIN
  t.equal(deriveReturn(seen(null, null), now), null, 'nothing known: no return')
  t.same(deriveReturn(seen(now - QUIET_MS, null), now), { since: now - QUIET_MS, back: now }, 'quiet for 30 minutes exactly')
  t.equal(deriveReturn(seen(now - QUIET_MS + 1, null), now), null, 'a minute short of quiet is not a return')
  t.equal(deriveReturn(seen(now - 40 * MIN, now - 5 * MIN), now), null, 'the person typed in tmux 5 minutes ago')
  t.same(deriveReturn(seen(now - 50 * MIN, now - 45 * MIN), now), { since: now - 45 * MIN, back: now }, 'tmux quiet too')
  // Status saw the person come back in tmux before this command: that return is this command's.
  const away = { since: now - 50 * MIN, back: now - 2 * MIN }
  t.same(deriveReturn(seen(now - 50 * MIN, now - MIN, away), now), away)
  t.equal(deriveReturn(seen(now - MIN, now - MIN, away), now), null, 'a command after the return ended it')
})

t.test('deriveObserved: status turns client activity after a quiet stretch into a return', async (t) => {
  const base = seen(T0, T0 + MIN)
  t.equal(deriveObserved(base, T0 + MIN), null, 'the same activity: nothing to write')
  t.same(deriveObserved(base, T0 + 10 * MIN), { v: 1, at: T0 + 10 * MIN }, 'activity within the stretch')
  t.same(deriveObserved(base, T0 + 40 * MIN), { v: 1, at: T0 + 40 * MIN, away: { since: T0 + MIN, back: T0 + 40 * MIN } })
  // Back, quiet again, back again, no command in between: one return from the first start.
  const back = { since: T0 + MIN, back: T0 + 40 * MIN }
  t.same(deriveObserved(seen(T0, T0 + 40 * MIN, back), T0 + 80 * MIN), {
    v: 1,
    at: T0 + 80 * MIN,
    away: { since: T0 + MIN, back: T0 + 80 * MIN },
  })
  t.same(deriveObserved(seen(T0 + 39 * MIN, T0 + 2 * MIN), T0 + 41 * MIN), { v: 1, at: T0 + 41 * MIN }, 'a command in between: no gap')
  // The first activity ever seen, with no command before it: nothing to measure a gap from.
  t.same(deriveObserved(seen(null, null), T0), { v: 1, at: T0 })
})

t.test('the files: 0600, a return shown once, races included', async (t) => {
  const home = t.testdir()
  const env = { TRAILBOSS_HOME: home }
  t.equal(takeReturn(env, T0), null, 'the first command: nothing known before it')
  t.equal(statSync(join(home, 'activity.json')).mode & 0o777, 0o600)
  t.equal(takeReturn(env, T0 + 10 * MIN), null)
  t.same(takeReturn(env, T0 + 50 * MIN), { since: T0 + 10 * MIN, back: T0 + 50 * MIN })
  t.equal(takeReturn(env, T0 + 51 * MIN), null, 'shown: the next command is no return')
  t.ok(noteClientActivity(env, T0 + 90 * MIN))
  t.equal(statSync(join(home, 'activity-tmux.json')).mode & 0o777, 0o600)
  t.same(JSON.parse(readFileSync(join(home, 'activity-tmux.json'), 'utf8')), {
    v: 1,
    at: T0 + 90 * MIN,
    away: { since: T0 + 51 * MIN, back: T0 + 90 * MIN },
  })
  t.same(readActivity(env), { commandAt: T0 + 51 * MIN, clientAt: T0 + 90 * MIN, away: { since: T0 + 51 * MIN, back: T0 + 90 * MIN } })
  // Two commands read the same state: the one that creates the mark shows it.
  const span = deriveReturn(readActivity(env), T0 + 91 * MIN)
  t.ok(span)
  t.equal(claimReturn(env, span!, T0 + 91 * MIN), true)
  t.equal(claimReturn(env, span!, T0 + 91 * MIN), false)
  t.equal(statSync(join(home, 'digest-shown')).mode & 0o777, 0o700)
})

t.test("notify --digest's notice: a title, a line per figure, and the one-line form for tmux", async (t) => {
  const d = deriveDigest([line(T0 + MIN, 'permission', 'permission'), line(T0 + 2 * MIN, 'waiting', 'done')], [open('2', T0 + MIN)], {
    since: T0,
    until: T0 + 90 * MIN,
  })
  t.same(formatDigestNotice(d), {
    title: 'Trail Boss: Since the last digest (1h 30m)',
    body: '1 wait (1 permission)\n1 turn finished\n0 errors\noldest open: 2 api (claude-code, permission), 1h 29m',
    line: 'Since the last digest (1h 30m): 1 wait (1 permission), 1 turn finished, 0 errors; oldest open: 2 api (claude-code, permission), 1h 29m',
  })
})

t.test('a link in place of the marks folder: no mark made through it, no digest', async (t) => {
  const home = t.testdir({ elsewhere: {} })
  symlinkSync(join(home, 'elsewhere'), join(home, 'digest-shown'))
  t.equal(claimReturn({ TRAILBOSS_HOME: home }, { since: T0, back: T0 + 40 * MIN }, T0 + 40 * MIN), false)
  t.same(readdirSync(join(home, 'elsewhere')), [])
})
