// The report's page, read as a person's browser reads it: a known day of four sessions (one with
// a hostile id, project and ask) is rendered, checked as text, then loaded in a real headless
// Chromium (test/helpers/chromium.ts), where the lanes, the bars and their sizes are read back
// from the DOM and compared with the figures of the report.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { HistoryState, KindTimes, Report, ReportGroup, ReportSpan, SessionTimes } from '../lib/history/types.js'
import { WAIT_KINDS, type WaitKind } from '../lib/record/types.js'
import { writeReportHtml } from '../lib/fs/report-html-file.js'
import { formatDuration, renderReportHtml } from '../lib/render/report-html.js'
import { formatVisible } from '../lib/text/visible-text.js'
import { inspectPage } from './helpers/chromium.js'

const MIN = 60_000
const HOUR = 60 * MIN
/** Asia/Kolkata is UTC+5:30 all year: local hours that no whole-hour shift of UTC gives. */
const ZONE = 'Asia/Kolkata'
const ZONE_OFFSET = 5.5 * HOUR
/** 2026-12-02 08:00 in Kolkata. */
const SINCE = Date.UTC(2026, 11, 2, 8, 0) - ZONE_OFFSET
const UNTIL = SINCE + 8 * HOUR
const at = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number)
  return SINCE + (h! - 8) * HOUR + m! * MIN
}

const HOSTILE_ASK = `Bash: echo "<script>alert('x')</script>" & rm -rf '/tmp/a b' \u001b[31mred\u001b[0m\u0007 \u202egnp.exe`
const HOSTILE_ID = `"><img src=x onerror=alert(1)>\u202e`
const HOSTILE_PROJECT = `<b>ops</b> & "co"`

interface Session {
  sessionId: string
  agent: string
  project: string
  host: string
  /** [state or kind, from, to, ask?]: a kind stands for its wait (permission → permission, the others → waiting). */
  steps: [HistoryState | WaitKind, string, string, string?][]
}

const SESSIONS: Session[] = [
  {
    sessionId: 'a1b2c3d4-5e6f-4a0b-9c1d-2e3f4a5b6c7d',
    agent: 'claude-code',
    project: 'api',
    host: 'local',
    steps: [
      ['working', '08:00', '08:40'],
      ['permission', '08:40', '08:43', 'Bash: npm test'],
      ['working', '08:43', '10:10'],
      ['done', '10:10', '10:55'],
      ['idle', '10:55', '12:00'],
      ['working', '12:00', '13:30'],
      ['question', '13:30', '13:34', 'Which database should the migration target?'],
      ['working', '13:34', '15:00'],
      ['ended', '15:00', '16:00'],
    ],
  },
  {
    sessionId: '019a7c2e-codex-web',
    agent: 'codex',
    project: 'web',
    host: 'local',
    steps: [
      ['working', '09:15', '10:00'],
      ['permission', '10:00', '10:20', HOSTILE_ASK],
      ['working', '10:20', '11:40'],
      ['error', '11:40', '11:50', 'API Error: 529 overloaded'],
      ['working', '11:50', '14:00'],
      ['done', '14:00', '16:00'],
    ],
  },
  {
    sessionId: HOSTILE_ID,
    agent: 'gemini',
    project: HOSTILE_PROJECT,
    host: 'build-box',
    steps: [
      ['working', '11:00', '11:30'],
      ['interrupted', '11:30', '11:45'],
      ['gone', '11:45', '13:00'],
    ],
  },
  {
    sessionId: 'ses_5f1e0c-opencode',
    agent: 'opencode',
    project: 'docs',
    host: 'local',
    steps: [
      ['idle', '08:00', '09:00'],
      ['working', '09:00', '09:20'],
      ['permission', '09:20', '09:21', 'Edit README.md'],
      ['working', '09:21', '10:00'],
      ['done', '10:00', '12:00'],
      ['idle', '12:00', '16:00'],
    ],
  },
]

const isKind = (s: string): s is WaitKind => (WAIT_KINDS as readonly string[]).includes(s)
const noKinds = (): KindTimes => Object.fromEntries(WAIT_KINDS.map((k) => [k, 0])) as KindTimes

/** A small reference computation of a report from the sessions' steps, independent of the renderer. */
const knownReport = (): Report => {
  const spans: ReportSpan[] = SESSIONS.flatMap((s) =>
    s.steps.map(([what, from, to, ask]): ReportSpan => {
      const kind = isKind(what) ? what : null
      const state: HistoryState = kind === 'permission' ? 'permission' : kind ? 'waiting' : (what as HistoryState)
      return {
        sessionId: s.sessionId,
        agent: s.agent,
        project: s.project,
        host: s.host,
        state,
        kind,
        start: at(from),
        end: at(to),
        ...(ask ? { ask } : {}),
      }
    }),
  )
  const waits = spans.filter((s) => s.kind !== null)
  const byKind = noKinds()
  const groups = new Map<string, ReportGroup>()
  const waitsPerHour = Array.from({ length: 24 }, () => 0)
  for (const w of waits) {
    const ms = w.end - w.start
    byKind[w.kind!] += ms
    const g = groups.get(w.project) ?? { name: w.project, blockedMs: 0, byKind: noKinds(), waits: 0 }
    g.blockedMs += ms
    g.byKind[w.kind!] += ms
    g.waits++
    groups.set(w.project, g)
    waitsPerHour[new Date(w.start + ZONE_OFFSET).getUTCHours()]!++
  }
  // An answer: a wait the same session moved on from by working again.
  const answered = waits
    .filter((w) => spans.some((s) => s.sessionId === w.sessionId && s.start === w.end && s.state === 'working'))
    .sort((a, b) => a.end - a.start - (b.end - b.start))
  const rank = (p: number): number =>
    answered[Math.max(0, Math.ceil(p * answered.length) - 1)]!.end - answered[Math.max(0, Math.ceil(p * answered.length) - 1)]!.start
  const longest = answered.at(-1)!
  const sessions: SessionTimes[] = SESSIONS.map((s) => {
    const own = spans.filter((sp) => sp.sessionId === s.sessionId)
    const sum = (pred: (sp: ReportSpan) => boolean): number => own.filter(pred).reduce((n, sp) => n + sp.end - sp.start, 0)
    return {
      sessionId: s.sessionId,
      agent: s.agent,
      project: s.project,
      host: s.host,
      workingMs: sum((sp) => sp.state === 'working'),
      waitingMs: sum((sp) => sp.kind !== null),
      idleMs: sum((sp) => sp.state === 'idle'),
      unaccountedMs: UNTIL - SINCE - sum(() => true),
    }
  })
  return {
    since: SINCE,
    until: UNTIL,
    timeZone: ZONE,
    by: 'project',
    blocked: {
      totalMs: waits.reduce((n, w) => n + w.end - w.start, 0),
      byKind,
      groups: [...groups.values()].sort((a, b) => b.blockedMs - a.blockedMs),
    },
    answers: {
      count: answered.length,
      p50Ms: rank(0.5),
      p90Ms: rank(0.9),
      longest: { ms: longest.end - longest.start, sessionId: longest.sessionId, kind: longest.kind, at: longest.start },
    },
    sessions,
    waitsPerHour,
    unaccountedMs: sessions.reduce((n, s) => n + s.unaccountedMs, 0),
    spans,
  }
}

const emptyReport = (): Report => ({
  since: SINCE,
  until: UNTIL,
  timeZone: ZONE,
  by: 'agent',
  blocked: { totalMs: 0, byKind: noKinds(), groups: [] },
  answers: { count: 0, p50Ms: null, p90Ms: null, longest: null },
  sessions: [],
  waitsPerHour: Array.from({ length: 24 }, () => 0),
  unaccountedMs: 0,
  spans: [],
})

const GENERATED_AT = Date.UTC(2026, 11, 2, 11, 0) // 16:30 in Kolkata

/** Screenshots of the pages the tests drew stay here (git-ignored) to be looked at. */
const SCREENSHOTS = join(import.meta.dirname, 'screenshots')

/** What the page shows, read from its DOM: every figure the checks below compare. */
const READ_PAGE = `(() => {
  const attrs = (sel, ...names) => [...document.querySelectorAll(sel)].map((e) => Object.fromEntries(names.map((n) => [n, e.getAttribute(n)])))
  const titleOf = (e) => e.querySelector(':scope > title')?.textContent ?? null
  return {
    lanes: [...document.querySelectorAll('svg.timeline g.lane')].map((g) => g.getAttribute('data-session')),
    bars: [...document.querySelectorAll('svg.timeline rect.bar')].map((r) => ({ state: r.getAttribute('data-state'), hover: titleOf(r), width: Number(r.getAttribute('width')), visible: r.getBoundingClientRect().width > 0 })),
    legend: [...document.querySelectorAll('#timeline .legend li')].map((li) => li.textContent),
    charts: Object.fromEntries(['kind', 'group', 'answers'].map((c) => [c, attrs('rect.chart-bar[data-chart="' + c + '"]', 'data-key', 'width')])),
    hours: attrs('rect.hour-bar', 'data-hour', 'height'),
    sessions: [...document.querySelectorAll('svg.sessions g.session')].map((g) => Object.fromEntries([...g.querySelectorAll('rect.session-bar')].map((r) => [r.getAttribute('data-part'), Number(r.getAttribute('width'))]))),
    scripts: document.querySelectorAll('script').length,
    images: document.querySelectorAll('img').length,
    text: document.body.innerText,
    width: document.documentElement.scrollWidth,
  }
})()`

interface PageFacts {
  lanes: string[]
  bars: { state: string; hover: string; width: number; visible: boolean }[]
  legend: string[]
  charts: Record<'kind' | 'group' | 'answers', { 'data-key': string; width: string }[]>
  hours: { 'data-hour': string; height: string }[]
  sessions: Record<string, number>[]
  scripts: number
  images: number
  text: string
  width: number
}

/** Sizes are proportional to figures when each size over the largest equals each figure over the largest (to the page's 0.01 rounding). */
const proportional = (t: Test, sizes: readonly number[], figures: readonly number[], what: string): void => {
  const maxSize = Math.max(...sizes)
  const maxFigure = Math.max(...figures)
  t.ok(maxFigure > 0 && maxSize > 0, `${what}: something is drawn`)
  const off = sizes.map((s, i) => Math.abs(s / maxSize - figures[i]! / maxFigure) * maxSize).filter((d) => d > 0.02)
  t.same(off, [], `${what}: sizes ${sizes.join(', ')} against figures ${figures.join(', ')}`)
}

t.test('the page as text: self-contained, every hostile text escaped', async (t) => {
  const html = renderReportHtml(knownReport(), { generatedAt: GENERATED_AT, title: 'Tuesday <i>fleet</i>' })
  // An attribute's value starts with a quote the escaping never leaves in text.
  t.notMatch(html, /https?:|\/\/|\s(?:src|href|srcset|action)="|url\(|@import/i, 'no URL, so no asset and no fetch')
  t.match(
    html,
    /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/,
    'its policy forbids any load and any script',
  )
  t.notMatch(html, /<script|<img|<b>ops|<i>fleet/i, 'no markup from the history or the title')
  t.match(html, '&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;', 'the ask is escaped')
  t.match(html, '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\\u202e', 'the session id is escaped and its bidi override shown')
  t.match(html, '&lt;b&gt;ops&lt;/b&gt; &amp; &quot;co&quot;', 'the project is escaped')
  t.match(html, 'Tuesday &lt;i&gt;fleet&lt;/i&gt;', 'the title is escaped')
  t.notMatch(html, /[\u0000-\u0008\u000b-\u001f\u007f\u202e]/, 'no control character and no bidi override reaches the page')
  t.match(html, '^[[31mred^[[0m^G', 'the escape sequence and the bell are shown as text')
  t.match(html, /holds your agents' commands/, "the note that the page holds the agents' commands")
  t.match(html, '2026-12-02 08:00 to 2026-12-02 16:00, Asia/Kolkata', 'the span in the report’s zone')
  t.match(html, 'made 2026-12-02 16:30', 'when it was made, in the same zone')
  t.equal(
    renderReportHtml(knownReport(), { generatedAt: GENERATED_AT }),
    renderReportHtml(knownReport(), { generatedAt: GENERATED_AT }),
    'pure',
  )
})

t.test('durations, ticks and zones as the page shows them', async (t) => {
  const cases: [number, string][] = [
    [0, '0s'],
    [59_400, '59s'],
    [60_000, '1m'],
    [125_000, '2m 5s'],
    [HOUR, '1h'],
    [5 * HOUR + 38 * MIN, '5h 38m'],
    [24 * HOUR, '1d'],
    [50 * HOUR, '2d 2h'],
    [-5, '0s'],
  ]
  for (const [ms, text] of cases) t.equal(formatDuration(ms), text, `${ms} ms`)
  const ticks = (html: string): string[] => [...html.matchAll(/class="tick-label"[^>]*>([^<]*)</g)].map((m) => m[1]!)
  // Kolkata is 5:30 ahead: ticks fall on its round hours, not on UTC's.
  t.same(ticks(renderReportHtml(knownReport(), { generatedAt: GENERATED_AT })), [
    '08:00',
    '09:00',
    '10:00',
    '11:00',
    '12:00',
    '13:00',
    '14:00',
    '15:00',
    '16:00',
  ])
  const utc = renderReportHtml({ ...knownReport(), timeZone: 'UTC' }, { generatedAt: GENERATED_AT })
  t.same(ticks(utc), ['03:00', '04:00', '05:00', '06:00', '07:00', '08:00', '09:00', '10:00'], 'the same span in UTC')
  t.match(utc, '2026-12-02 02:30 to 2026-12-02 10:30, UTC')
  const week = renderReportHtml({ ...knownReport(), until: SINCE + 7 * 24 * HOUR }, { generatedAt: GENERATED_AT })
  t.same(ticks(week), ['Dec 3', 'Dec 4', 'Dec 5', 'Dec 6', 'Dec 7', 'Dec 8', 'Dec 9'], 'a week: a tick each local midnight')
  const twoDays = renderReportHtml({ ...knownReport(), until: SINCE + 40 * HOUR }, { generatedAt: GENERATED_AT })
  t.same(
    ticks(twoDays),
    ['Dec 2 12:00', 'Dec 2 18:00', 'Dec 3 00:00', 'Dec 3 06:00', 'Dec 3 12:00', 'Dec 3 18:00', 'Dec 4 00:00'],
    'the day beside the time past one day',
  )
  const unknown = renderReportHtml({ ...knownReport(), timeZone: 'Mars/Olympus_Mons' }, { generatedAt: GENERATED_AT })
  t.match(unknown, '2026-12-02 02:30 to 2026-12-02 10:30, UTC', 'a zone Intl does not know falls back to UTC, and says so')
})

t.test('figures out of bounds draw nothing the browser refuses', async (t) => {
  // A clock stepped back can make a span end before it starts; a negative or NaN length is an SVG error in the console.
  const odd = knownReport()
  odd.spans[0] = { ...odd.spans[0]!, end: odd.spans[0]!.start - HOUR }
  odd.sessions[0] = { ...odd.sessions[0]!, idleMs: -HOUR }
  odd.waitsPerHour[3] = -1
  odd.blocked.byKind.error = Number.NaN
  const html = renderReportHtml(odd, { generatedAt: GENERATED_AT })
  t.notMatch(html, /(?:width|height|x|y)="(?:-|NaN|Infinity)/, 'no negative or non-numeric length')
})

t.test('the page file is 0600, written whole over an older one', async (t) => {
  const dir = t.testdir({ 'report.html': 'old page' })
  const file = join(dir, 'report.html')
  chmodSync(file, 0o644)
  const html = renderReportHtml(knownReport(), { generatedAt: GENERATED_AT })
  writeReportHtml(file, html)
  t.equal(readFileSync(file, 'utf8'), html)
  t.equal(statSync(file).mode & 0o777, 0o600, "readable by the person alone: it holds the agents' commands")
  t.same(readdirSync(dir), ['report.html'], 'no temp file left beside it')
  writeReportHtml(join(dir, 'new.html'), html)
  t.equal(statSync(join(dir, 'new.html')).mode & 0o777, 0o600, 'a new file too')
  t.throws(() => writeReportHtml(join(dir, 'missing', 'x.html'), html), { code: 'ENOENT' }, 'a folder that is not there is an error')
})

t.test('in Chromium: lanes, bars, charts and hovers of a known day', async (t) => {
  const report = knownReport()
  const dir = t.testdir()
  const file = join(dir, 'report.html')
  writeReportHtml(file, renderReportHtml(report, { generatedAt: GENERATED_AT }))
  mkdirSync(SCREENSHOTS, { recursive: true })
  const page = await inspectPage(file, { evaluate: READ_PAGE, screenshot: join(SCREENSHOTS, 'report.png'), fullPage: true })
  const facts = page.value as PageFacts
  t.same(page.errors, [], 'no console error, no exception, no refused load')
  t.equal(facts.scripts, 0, 'no script element, hostile text included')
  t.equal(facts.images, 0, 'no image element from the hostile session id')
  t.ok(facts.width <= 1200, 'no horizontal scroll at 1200 px')

  t.same(
    facts.lanes,
    SESSIONS.map((s) => formatVisible(s.sessionId)),
    'one lane per session, in order of first appearance',
  )
  t.equal(facts.bars.length, report.spans.length, 'one bar per span')
  t.same(
    facts.bars.map((b) => b.state),
    report.spans.map((s) => s.state),
    'each bar has its span’s state',
  )
  t.ok(
    facts.bars.every((b) => b.visible),
    'every bar takes room on the page',
  )
  t.same(facts.legend, ['working', 'permission', 'waiting', 'idle', 'ended', 'gone'], 'the legend names every state')
  report.spans.forEach((span, i) => {
    if (span.ask !== undefined)
      t.equal(facts.bars[i]!.hover, formatVisible(span.ask, { newlines: true }), `the hover of bar ${i} is its ask`)
  })
  const hostile = facts.bars[report.spans.findIndex((s) => s.ask === HOSTILE_ASK)]!
  t.match(hostile.hover, `echo "<script>alert('x')</script>" & rm -rf '/tmp/a b' ^[[31mred`, 'the hostile ask reads as text')
  // Bars are as long as their spans, up to the sliver a very short span gets.
  const pxPerMs = facts.bars[0]!.width / (report.spans[0]!.end - report.spans[0]!.start)
  proportional(
    t,
    facts.bars.map((b) => b.width),
    report.spans.map((s) => Math.max((s.end - s.start) * pxPerMs, 1) / pxPerMs),
    'timeline bars',
  )

  t.same(
    facts.charts.kind.map((r) => r['data-key']),
    [...WAIT_KINDS],
    'a bar per kind of wait',
  )
  proportional(
    t,
    facts.charts.kind.map((r) => Number(r.width)),
    WAIT_KINDS.map((k) => report.blocked.byKind[k]),
    'blocked by kind',
  )
  t.same(
    facts.charts.group.map((r) => r['data-key']),
    report.blocked.groups.map((g) => g.name),
    'a bar per project',
  )
  proportional(
    t,
    facts.charts.group.map((r) => Number(r.width)),
    report.blocked.groups.map((g) => g.blockedMs),
    'blocked by project',
  )
  t.same(
    facts.charts.answers.map((r) => r['data-key']),
    ['p50', 'p90', 'longest'],
  )
  proportional(
    t,
    facts.charts.answers.map((r) => Number(r.width)),
    [report.answers.p50Ms!, report.answers.p90Ms!, report.answers.longest!.ms],
    'answer times',
  )
  t.same(
    facts.hours.map((h) => Number(h['data-hour'])),
    Array.from({ length: 24 }, (_, h) => h),
    '24 hour bars',
  )
  proportional(
    t,
    facts.hours.map((h) => Number(h.height)),
    report.waitsPerHour,
    'waits per hour',
  )
  t.equal(facts.sessions.length, report.sessions.length, "a row per session's times")
  const parts = ['working', 'waiting', 'idle', 'unaccounted'] as const
  proportional(
    t,
    facts.sessions.flatMap((s) => parts.map((p) => s[p]!)),
    report.sessions.flatMap((s) => [s.workingMs, s.waitingMs, s.idleMs, s.unaccountedMs]),
    'each session’s times',
  )
  // Unaccounted: codex-web's first 1h 15m, and the 6h the hostile session is not seen. Blocked:
  // api 3m + 45m + 4m, web 20m + 10m + 2h, the hostile one 15m, docs 1m + 2h.
  t.match(facts.text, /Time unaccounted for\s+7h 15m/, 'the time unaccounted for')
  t.match(facts.text, /Agent time blocked on you\s+5h 38m/, 'the time blocked')
})

t.test('in Chromium: an empty report still reads', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'empty.html')
  writeFileSync(file, renderReportHtml(emptyReport(), { generatedAt: GENERATED_AT }))
  mkdirSync(SCREENSHOTS, { recursive: true })
  const page = await inspectPage(file, { evaluate: READ_PAGE, screenshot: join(SCREENSHOTS, 'report-empty.png'), fullPage: true })
  const facts = page.value as PageFacts
  t.same(page.errors, [])
  t.same(facts.lanes, [], 'no lane')
  t.same(facts.bars, [], 'no bar')
  t.match(facts.text, 'No state changes in this span.')
  t.match(facts.text, 'No sessions in this span.')
  t.match(facts.text, /by agent\s+No waits in this span\./, 'no group: said so')
  t.equal(facts.hours.length, 24, 'the 24 hours, all empty')
  t.ok(
    facts.hours.every((h) => Number(h.height) === 0),
    'every hour bar is empty',
  )
  t.ok(facts.charts.kind.length === WAIT_KINDS.length && facts.charts.kind.every((r) => Number(r.width) === 0), 'every kind at zero')
  t.match(facts.text, /Answers\s+0/)
})

t.test('in Chromium: the check sees what a broken page does', async (t) => {
  // The page checks above pass on an empty error list; this one shows the list is filled.
  const dir = t.testdir({
    'broken.html': `<!doctype html><title>broken</title><p id="p">x</p><script>
console.error('no data for', 'row 4'); setTimeout(() => { throw new Error('late failure') }, 10)</script>`,
  })
  const page = await inspectPage(join(dir, 'broken.html'), { evaluate: "document.getElementById('p').textContent" })
  t.equal(page.value, 'x')
  t.same(
    page.errors.map((e) => e.split('\n')[0]),
    ['console.error: no data for row 4', 'exception: Error: late failure'],
  )
  await t.rejects(inspectPage(join(dir, 'missing.html')), /could not load/, 'a page that is not there fails the check')
})
