// The report's computation (lib/history/report.ts), pure: known histories give known figures,
// and properties hold for any history fast-check makes.
import fc from 'fast-check'
import t from 'tap'
import { computeReport, percentile } from '../lib/history/report.js'
import { blockedAt, emptyTodaySummary, foldToday, localDayStart } from '../lib/history/today.js'
import { LOOKBACK_MS } from '../lib/history/read.js'
import { formatReportText } from '../lib/render/report-text.js'
import { WAIT_KINDS } from '../lib/record/types.js'
import { HISTORY_VERSION, type HistoryEntry, type HistoryState } from '../lib/history/types.js'
import type { WaitKind } from '../lib/record/types.js'

const T0 = Date.UTC(2026, 11, 2, 8, 0, 0)
const MIN = 60_000

const line = (
  sessionId: string,
  at: number,
  from: HistoryState | null,
  to: HistoryState,
  kind: WaitKind | null = null,
  extra: Partial<HistoryEntry> = {},
): HistoryEntry => ({
  v: HISTORY_VERSION,
  at,
  sessionId,
  agent: 'claude-code',
  project: 'web',
  host: 'local',
  from,
  to,
  kind,
  by: 'hook',
  ...extra,
})

const opts = { since: T0, until: T0 + 60 * MIN, by: 'project' as const, timeZone: 'UTC' }

t.test('one session: working, a permission answered in 2 minutes, a finished turn left open', async (t) => {
  const r = computeReport(
    [
      line('a', T0, null, 'idle'),
      line('a', T0 + 5 * MIN, 'idle', 'working'),
      line('a', T0 + 10 * MIN, 'working', 'permission', 'permission', { ask: 'Bash: rm -rf build' }),
      line('a', T0 + 12 * MIN, 'permission', 'working'),
      line('a', T0 + 20 * MIN, 'working', 'waiting', 'done'),
    ],
    opts,
  )
  t.equal(r.blocked.totalMs, 2 * MIN + 40 * MIN)
  t.same(r.blocked.byKind, { permission: 2 * MIN, question: 0, done: 40 * MIN, error: 0, interrupted: 0 })
  t.same(
    r.blocked.groups.map((g) => [g.name, g.blockedMs, g.waits]),
    [['web', 42 * MIN, 2]],
  )
  t.same(r.answers, {
    count: 1,
    p50Ms: 2 * MIN,
    p90Ms: 2 * MIN,
    longest: { ms: 2 * MIN, sessionId: 'a', kind: 'permission', at: T0 + 10 * MIN },
  })
  t.same(r.sessions, [
    {
      sessionId: 'a',
      agent: 'claude-code',
      project: 'web',
      host: 'local',
      workingMs: 13 * MIN,
      waitingMs: 42 * MIN,
      idleMs: 5 * MIN,
      unaccountedMs: 0,
    },
  ])
  t.equal(r.waitsPerHour[8], 2, 'both waits began in the 08 hour (UTC)')
  t.equal(r.unaccountedMs, 0)
  t.equal(r.spans.length, 5)
  t.match(r.spans[2], { state: 'permission', kind: 'permission', ask: 'Bash: rm -rf build', start: T0 + 10 * MIN, end: T0 + 12 * MIN })
})

t.test('hours of the day are local to the zone given', async (t) => {
  const r = computeReport([line('a', T0, null, 'working'), line('a', T0 + MIN, 'working', 'waiting', 'question')], {
    ...opts,
    timeZone: 'Asia/Kolkata',
  })
  // 08:01 UTC is 13:31 in India (UTC+5:30).
  t.equal(r.waitsPerHour[13], 1)
  t.equal(r.waitsPerHour[8], 0)
})

t.test('unaccounted: before a first line that is not a start, and where a hook line skips a change', async (t) => {
  const r = computeReport(
    [
      // b existed before the span (from: working) but no line says since when.
      line('b', T0 + 10 * MIN, 'working', 'waiting', 'done', { project: 'api' }),
      // A change nobody logged: the hook line departs from `permission`, not from `waiting`.
      line('b', T0 + 30 * MIN, 'permission', 'working', null, { project: 'api' }),
    ],
    opts,
  )
  const b = r.sessions[0]!
  t.equal(b.unaccountedMs, 10 * MIN + 20 * MIN)
  t.equal(b.waitingMs, 0, 'the wait that a skipped change cut short is not counted')
  t.equal(b.workingMs, 30 * MIN)
  t.equal(r.unaccountedMs, 30 * MIN)
})

t.test('lines before the span give its first state; ended and gone sessions stop counting', async (t) => {
  const r = computeReport(
    [
      line('c', T0 - 30 * MIN, null, 'working'),
      line('c', T0 + 15 * MIN, 'working', 'permission', 'permission'),
      line('c', T0 + 20 * MIN, 'permission', 'gone', null, { by: 'read' }),
      line('d', T0 - 50 * MIN, null, 'ended'),
    ],
    opts,
  )
  t.same(
    r.sessions.map((s) => [s.sessionId, s.workingMs, s.waitingMs, s.unaccountedMs]),
    [['c', 15 * MIN, 5 * MIN, 0]],
    'd ended before the span and is not listed',
  )
  t.equal(r.answers.count, 0, 'a wait that ends with the session is no answer')
  t.equal(
    r.waitsPerHour.reduce((s, n) => s + n, 0),
    1,
  )
})

t.test('a read line that repeats a wait continues it; a hook line from the same wait state is a new one', async (t) => {
  const r = computeReport(
    [
      line('e', T0, null, 'working'),
      line('e', T0 + 1 * MIN, 'working', 'waiting', 'done', { by: 'read' }),
      line('e', T0 + 2 * MIN, 'working', 'waiting', 'done'),
      line('e', T0 + 3 * MIN, 'waiting', 'working'),
      line('e', T0 + 4 * MIN, 'working', 'permission', 'permission'),
      line('e', T0 + 5 * MIN, 'permission', 'permission', 'permission'),
      line('e', T0 + 8 * MIN, 'permission', 'working'),
    ],
    opts,
  )
  t.equal(r.answers.count, 3)
  t.same([r.answers.p50Ms, r.answers.longest?.ms], [2 * MIN, 3 * MIN])
  t.equal(r.waitsPerHour[8], 3)
})

t.test('--by kind groups the blocked time by kind; --by agent by agent', async (t) => {
  const entries = [
    line('f', T0, null, 'working'),
    line('f', T0 + 10 * MIN, 'working', 'permission', 'permission'),
    line('f', T0 + 11 * MIN, 'permission', 'working'),
    line('g', T0, null, 'working', null, { agent: 'gemini' }),
    line('g', T0 + 10 * MIN, 'working', 'waiting', 'error', { agent: 'gemini' }),
  ]
  const byKind = computeReport(entries, { ...opts, by: 'kind' })
  t.same(
    byKind.blocked.groups.map((g) => [g.name, g.blockedMs, g.waits]),
    [
      ['error', 50 * MIN, 1],
      ['permission', MIN, 1],
    ],
  )
  const byAgent = computeReport(entries, { ...opts, by: 'agent' })
  t.same(
    byAgent.blocked.groups.map((g) => [g.name, g.blockedMs]),
    [
      ['gemini', 50 * MIN],
      ['claude-code', MIN],
    ],
  )
})

t.test('percentile is the nearest rank', async (t) => {
  t.equal(percentile([], 0.5), null)
  t.equal(percentile([5], 0.9), 5)
  t.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5), 5)
  t.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9)
})

const STATES: HistoryState[] = ['idle', 'working', 'permission', 'waiting', 'ended', 'gone']
const arbEntry = fc
  .record({
    sessionId: fc.constantFrom('s1', 's2', 's3'),
    at: fc.integer({ min: T0 - 120 * MIN, max: T0 + 90 * MIN }),
    from: fc.option(fc.constantFrom(...STATES)),
    to: fc.constantFrom(...STATES),
    kind: fc.option(fc.constantFrom(...WAIT_KINDS)),
    by: fc.constantFrom('hook' as const, 'read' as const),
    project: fc.constantFrom('web', 'api'),
  })
  .map((e) =>
    line(e.sessionId, e.at, e.from, e.to, e.to === 'permission' || e.to === 'waiting' ? e.kind : null, { by: e.by, project: e.project }),
  )

t.test('properties of any history', async () => {
  fc.assert(
    fc.property(fc.array(arbEntry, { maxLength: 40 }), fc.constantFrom('project', 'agent', 'host', 'kind' as const), (entries, by) => {
      const r = computeReport(entries, { ...opts, by })
      const span = opts.until - opts.since
      const kindSum = WAIT_KINDS.reduce((s, k) => s + r.blocked.byKind[k], 0)
      const groupSum = r.blocked.groups.reduce((s, g) => s + g.blockedMs, 0)
      const waitingSum = r.sessions.reduce((s, x) => s + x.waitingMs, 0)
      return (
        r.blocked.totalMs <= span * r.sessions.length &&
        kindSum === r.blocked.totalMs &&
        groupSum === r.blocked.totalMs &&
        waitingSum === r.blocked.totalMs &&
        r.sessions.every((s) => s.workingMs + s.waitingMs + s.idleMs + s.unaccountedMs <= span) &&
        r.answers.count <= r.waitsPerHour.reduce((s, n) => s + n, 0) &&
        (r.answers.p50Ms ?? 0) <= (r.answers.p90Ms ?? 0) &&
        (r.answers.p90Ms ?? 0) <= (r.answers.longest?.ms ?? 0) &&
        r.spans.every((x) => x.start >= opts.since && x.end <= opts.until && x.end > x.start)
      )
    }),
    { numRuns: 500 },
  )
})

t.test("today's summary (status {blocked}) agrees with the report, folded at once or in parts", async (t) => {
  const dayStart = localDayStart(T0 + 30 * MIN)
  const now = dayStart + 90 * MIN
  const arbDay = fc
    .record({
      sessionId: fc.constantFrom('s1', 's2', 's3'),
      at: fc.integer({ min: dayStart - LOOKBACK_MS, max: now }),
      from: fc.option(fc.constantFrom(...STATES)),
      to: fc.constantFrom(...STATES),
      kind: fc.option(fc.constantFrom(...WAIT_KINDS)),
      by: fc.constantFrom('hook' as const, 'read' as const),
    })
    .map((e) => line(e.sessionId, e.at, e.from, e.to, e.to === 'permission' || e.to === 'waiting' ? e.kind : null, { by: e.by }))
  fc.assert(
    fc.property(fc.array(arbDay, { maxLength: 40 }), fc.nat(40), (raw, cut) => {
      const entries = [...raw].sort((a, b) => a.at - b.at)
      const want = computeReport(entries, { since: dayStart, until: now, by: 'project', timeZone: 'UTC' }).blocked.totalMs
      const whole = emptyTodaySummary(dayStart)
      if (foldToday(whole, entries) !== 'ok' || blockedAt(whole, now) !== want) return false
      const parts = emptyTodaySummary(dayStart)
      return (
        foldToday(parts, entries.slice(0, cut)) === 'ok' && foldToday(parts, entries.slice(cut)) === 'ok' && blockedAt(parts, now) === want
      )
    }),
    { numRuns: 500 },
  )
  const sum = emptyTodaySummary(dayStart)
  foldToday(sum, [line('s1', dayStart + 10 * MIN, null, 'working')])
  t.equal(
    foldToday(sum, [line('s1', dayStart + 5 * MIN, 'working', 'gone', null, { by: 'read' })]),
    'unordered',
    'a line dated before the last',
  )
})

t.test('the terminal table fits its width, in colour only when asked, plain when piped', async (t) => {
  const entries = [
    line('a', T0, null, 'working'),
    line('a', T0 + 10 * MIN, 'working', 'permission', 'permission', { ask: 'Bash: npm test' }),
    line('a', T0 + 12 * MIN, 'permission', 'working'),
    line('b', T0, null, 'working', null, { project: 'a-project-with-a-very-long-name-indeed-that-goes-on', agent: 'gemini' }),
    line('b', T0 + 5 * MIN, 'working', 'waiting', 'question', {
      project: 'a-project-with-a-very-long-name-indeed-that-goes-on',
      agent: 'gemini',
    }),
  ]
  const r = computeReport(entries, opts)
  const visible = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '')
  for (const columns of [40, 60, 80, 120, 200]) {
    const text = formatReportText(r, { columns, charts: true, colour: true, sinceText: '1d' })
    for (const l of text.split('\n')) t.ok([...visible(l)].length <= columns, `${columns} columns: ${JSON.stringify(visible(l))}`)
    t.match(text, /█/, 'bars')
    t.match(text, /▁/, 'a sparkline')
    t.match(text, /\u001b\[/, 'colour')
  }
  const wide = formatReportText(r, { columns: 200, charts: true, colour: false, sinceText: '1d' })
  const barOf = (name: RegExp): number => (wide.split('\n').find((l) => name.test(l)) ?? '').split('█').length - 1
  t.ok(barOf(/^ {2}a-project/) > barOf(/^ {2}web /), 'the longer blocked time has the longer bar')
  const piped = formatReportText(r, { columns: 80, charts: false, colour: false, sinceText: '1d' })
  t.notMatch(piped, /[█▁\u001b]/, 'piped: no bars, no sparkline, no escape codes')
  t.match(piped, /blocked {2}57m/)
  t.match(piped, /your answers {2}1 · p50 2m · p90 2m/)
  t.match(piped, /waits per hour {2}08h 2\n/)
})
