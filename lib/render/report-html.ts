// Pure: a report (lib/history/types.ts) as one self-contained HTML page: inline CSS and inline
// SVG, no script, no asset and no URL, so the page reads the same offline, and its policy forbids
// fetching anything at all. Every text from the history (session ids, projects, asks) is hostile:
// it is made visible (lib/text/visible-text.ts) and then escaped for HTML.
import type { HistoryState, KindTimes, Report, ReportSpan } from '../history/types.js'
import { WAIT_KINDS } from '../record/types.js'
import { formatVisible } from '../text/visible-text.js'
import { formatWallStamp, formatWallTime, wallClockIn, type WallTime } from './wall-clock.js'

export interface ReportHtmlOptions {
  /** When the page was made (ms since the epoch), shown on it; a parameter so the page is a function of its inputs. */
  generatedAt: number
  title?: string
}

export const DEFAULT_REPORT_TITLE = 'Trail Boss report'

/** The states of the timeline, in the legend's order, with their colours. */
export const STATE_COLOURS: Readonly<Record<HistoryState, string>> = {
  working: '#3f9b4f',
  permission: '#e0a025',
  waiting: '#3b7dd8',
  idle: '#c9ced6',
  ended: '#6b7280',
  gone: '#c2413b',
}

/** Geometry of the drawings, in SVG user units (the page scales them down on a narrow window). */
const WIDTH = 1100
const LABEL_W = 250
const PLOT_W = WIDTH - LABEL_W - 20
const LANE_H = 22
const BAR_H = 14
const AXIS_H = 24
const CHART_BAR_W = 520
const CHART_ROW_H = 22
const HOURS_H = 120
const LABEL_CHARS = 34

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text safe inside an element or a quoted attribute. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)

/** History text as the page shows it: controls made visible, then escaped. */
const shown = (text: string, opts: { newlines?: boolean } = {}): string => escapeHtml(formatVisible(text, opts))

/** At most `max` characters (code points, so no surrogate is cut in half), an ellipsis when cut. */
const clip = (text: string, max: number): string => {
  const cps = Array.from(text)
  return cps.length <= max ? text : `${cps.slice(0, max - 1).join('')}…`
}

/** A number for an SVG attribute: two decimals at most; 0 for a figure that is not one (NaN would be a console error). */
const num = (n: number): string => (Number.isFinite(n) ? String(Math.round(n * 100) / 100) : '0')
/** A width or a height: never below 0 (a negative one is a console error too), whatever a figure says. */
const len = (n: number): string => num(Math.max(0, n))

/** A duration for people: `45s`, `12m 5s`, `3h 20m`, `2d 4h`. */
export const formatDuration = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 ? `${m}m ${s % 60}s` : `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`
  const d = Math.floor(h / 24)
  return h % 24 ? `${d}d ${h % 24}h` : `${d}d`
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

interface Clock {
  zone: string
  /** `2026-12-02 14:05` in the zone. */
  stamp: (at: number) => string
  /** `14:05`. */
  time: (at: number) => string
  /** `Dec 2`. */
  day: (at: number) => string
  /** How far the zone's wall clock is ahead of UTC at `at`, in ms. */
  offset: (at: number) => number
}

/** Wall-clock times in the report's zone; an unknown zone (never from Intl itself) falls back to UTC, and the page says which. */
const makeClock = (timeZone: string): Clock => {
  let read: (at: number) => WallTime
  try {
    read = wallClockIn(timeZone)
  } catch {
    return makeClock('UTC')
  }
  return {
    // As the report names it: ICU resolves some names to older ones (Asia/Kolkata to Asia/Calcutta).
    zone: timeZone,
    stamp: (at) => formatWallStamp(read(at)),
    time: (at) => formatWallTime(read(at)),
    day: (at) => {
      const p = read(at)
      return `${MONTHS[p.month - 1]} ${p.day}`
    },
    offset: (at) => {
      const p = read(at)
      const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
      return wall - (at - (((at % 1000) + 1000) % 1000))
    },
  }
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** Steps of the time axis; the first that gives at most 8 ticks is used. */
const DAY = 24 * HOUR
const TICK_STEPS = [MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY]

/**
 * Ticks on round wall-clock times of the zone (a 5:30 offset included), across the span, each
 * with its label: the time, the day too when the span is longer than one, the day alone for
 * steps of a day. The offset is the zone's at the start: a span across a change of clock has its
 * later ticks an hour off the round time.
 */
const deriveTicks = (since: number, until: number, clock: Clock): { at: number; label: string }[] => {
  const length = until - since
  if (!(length > 0)) return []
  const step = TICK_STEPS.find((s) => length / s <= 8) ?? Math.ceil(length / 8 / DAY) * DAY
  const label = (at: number): string => (step >= DAY ? clock.day(at) : length > DAY ? `${clock.day(at)} ${clock.time(at)}` : clock.time(at))
  const offset = clock.offset(since)
  const ticks: { at: number; label: string }[] = []
  for (let wall = Math.ceil((since + offset) / step) * step; wall - offset <= until; wall += step)
    ticks.push({ at: wall - offset, label: label(wall - offset) })
  return ticks
}

/** The sessions of the timeline, in order of first appearance, each with its spans. */
const deriveLanes = (spans: readonly ReportSpan[]): { sessionId: string; spans: ReportSpan[] }[] => {
  const lanes = new Map<string, ReportSpan[]>()
  for (const span of spans) {
    const lane = lanes.get(span.sessionId)
    if (lane) lane.push(span)
    else lanes.set(span.sessionId, [span])
  }
  return [...lanes].map(([sessionId, spans]) => ({ sessionId, spans }))
}

/** A lane's name: project, agent, the host when not local, and the start of the session id. */
const laneName = (s: Pick<ReportSpan, 'sessionId' | 'agent' | 'project' | 'host'>): string =>
  `${s.project} · ${s.agent}${s.host === 'local' ? '' : ` @ ${s.host}`} · ${clip(s.sessionId, 9)}`

/** What hovering a bar of the timeline shows: the ask when it is a wait that asked something, else its state and times. */
const spanHover = (span: ReportSpan, clock: Clock): string =>
  span.ask !== undefined
    ? shown(span.ask, { newlines: true })
    : escapeHtml(
        `${span.kind ?? span.state} · ${clock.time(span.start)}–${clock.time(span.end)} (${formatDuration(span.end - span.start)})`,
      )

const renderTimeline = (report: Report, clock: Clock): string => {
  const lanes = deriveLanes(report.spans)
  if (lanes.length === 0) return '<p class="empty">No state changes in this span.</p>'
  const { since, until } = report
  const length = Math.max(1, until - since)
  const x = (at: number): number => LABEL_W + (Math.min(Math.max(at, since), until) - since) * (PLOT_W / length)
  const height = AXIS_H + lanes.length * LANE_H + 4
  const ticks = deriveTicks(since, until, clock)
    .map(({ at, label }) => {
      const tx = num(x(at))
      return `<line class="tick" x1="${tx}" x2="${tx}" y1="${AXIS_H - 4}" y2="${height}"/><text class="tick-label" x="${tx}" y="${AXIS_H - 8}">${escapeHtml(label)}</text>`
    })
    .join('')
  const rows = lanes
    .map((lane, i) => {
      const y = AXIS_H + i * LANE_H
      const first = lane.spans[0]!
      const name = formatVisible(laneName(first))
      const bars = lane.spans
        .map((span) => {
          const x0 = x(span.start)
          // A span too short to see still gets a sliver, so every change is on the page.
          const w = Math.max(1, x(span.end) - x0)
          return `<rect class="bar state-${escapeHtml(span.state)}" data-state="${escapeHtml(span.state)}" data-kind="${escapeHtml(span.kind ?? '')}" x="${num(x0)}" y="${y + (LANE_H - BAR_H) / 2}" width="${len(w)}" height="${BAR_H}"><title>${spanHover(span, clock)}</title></rect>`
        })
        .join('')
      return `<g class="lane" data-session="${shown(lane.sessionId)}"><rect class="lane-bg" x="${LABEL_W}" y="${y}" width="${PLOT_W}" height="${LANE_H}"/><text class="lane-label" x="${LABEL_W - 8}" y="${y + LANE_H / 2 + 4}"><title>${escapeHtml(name)}</title>${escapeHtml(clip(name, LABEL_CHARS))}</text>${bars}</g>`
    })
    .join('')
  return `<svg class="timeline" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="timeline, one lane per session">${ticks}${rows}</svg>`
}

const renderLegend = (): string =>
  `<ul class="legend">${Object.keys(STATE_COLOURS)
    .map((state) => `<li><span class="swatch state-${state}"></span>${state}</li>`)
    .join('')}</ul>`

interface ChartRow {
  key: string
  label: string
  value: number
  text: string
}

/** Horizontal bars, each as long as its value against the largest (all empty when every value is 0). */
const renderBarChart = (name: string, rows: readonly ChartRow[]): string => {
  if (rows.length === 0) return '<p class="empty">No waits in this span.</p>'
  const max = Math.max(0, ...rows.map((r) => r.value))
  const height = rows.length * CHART_ROW_H + 4
  const body = rows
    .map((r, i) => {
      const y = i * CHART_ROW_H
      const w = max > 0 ? Math.max(0, (r.value / max) * CHART_BAR_W) : 0
      const label = escapeHtml(formatVisible(r.label))
      return `<g class="row"><text class="row-label" x="${LABEL_W - 8}" y="${y + 15}"><title>${label}</title>${escapeHtml(clip(formatVisible(r.label), LABEL_CHARS))}</text><rect class="chart-bar" data-chart="${name}" data-key="${escapeHtml(r.key)}" data-value="${r.value}" x="${LABEL_W}" y="${y + 3}" width="${len(w)}" height="${BAR_H}"><title>${label}: ${escapeHtml(r.text)}</title></rect><text class="row-value" x="${num(LABEL_W + w + 6)}" y="${y + 15}">${escapeHtml(r.text)}</text></g>`
    })
    .join('')
  return `<svg class="chart" data-chart="${name}" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">${body}</svg>`
}

const kindRows = (byKind: KindTimes): ChartRow[] =>
  WAIT_KINDS.map((kind) => ({ key: kind, label: kind, value: byKind[kind], text: formatDuration(byKind[kind]) }))

const renderAnswers = (report: Report, clock: Clock): string => {
  const { p50Ms, p90Ms, longest, count } = report.answers
  const rows: ChartRow[] = [
    { key: 'p50', label: 'p50', value: p50Ms ?? 0, text: p50Ms === null ? '—' : formatDuration(p50Ms) },
    { key: 'p90', label: 'p90', value: p90Ms ?? 0, text: p90Ms === null ? '—' : formatDuration(p90Ms) },
    { key: 'longest', label: 'longest', value: longest?.ms ?? 0, text: longest ? formatDuration(longest.ms) : '—' },
  ]
  const where = longest
    ? `<p>The longest: ${shown(longest.kind ?? 'wait')} of session ${shown(clip(longest.sessionId, 9))}, from ${escapeHtml(clock.stamp(longest.at))}.</p>`
    : ''
  return `<p>${count} ${count === 1 ? 'answer' : 'answers'}, from a wait's start to the agent moving on.</p>${renderBarChart('answers', rows)}${where}`
}

/** Waits that began in each hour of the day: 24 columns, each as tall as its count against the largest. */
const renderHours = (waitsPerHour: readonly number[]): string => {
  const counts = Array.from({ length: 24 }, (_, h) => waitsPerHour[h] ?? 0)
  const max = Math.max(0, ...counts)
  const colW = (WIDTH - LABEL_W) / 24
  const base = HOURS_H - 20
  const cols = counts
    .map((n, h) => {
      const barH = max > 0 ? Math.max(0, (n / max) * (base - 16)) : 0
      const cx = LABEL_W + h * colW
      return `<g class="hour"><rect class="hour-bar" data-hour="${h}" data-value="${n}" x="${num(cx + 2)}" y="${num(base - barH)}" width="${len(colW - 4)}" height="${len(barH)}"><title>${String(h).padStart(2, '0')}:00–${String(h).padStart(2, '0')}:59: ${n} ${n === 1 ? 'wait' : 'waits'}</title></rect><text class="hour-label" x="${num(cx + colW / 2)}" y="${base + 14}">${h}</text>${n > 0 ? `<text class="hour-value" x="${num(cx + colW / 2)}" y="${num(base - barH - 4)}">${n}</text>` : ''}</g>`
    })
    .join('')
  return `<svg class="chart hours" data-chart="hours" width="${WIDTH}" height="${HOURS_H}" viewBox="0 0 ${WIDTH} ${HOURS_H}"><line class="axis" x1="${LABEL_W}" x2="${WIDTH}" y1="${base}" y2="${base}"/>${cols}</svg>`
}

const SESSION_PARTS = ['working', 'waiting', 'idle', 'unaccounted'] as const

/** Each session's time as one stacked bar, all on the scale of the longest. */
const renderSessions = (report: Report): string => {
  if (report.sessions.length === 0) return '<p class="empty">No sessions in this span.</p>'
  const parts = (s: Report['sessions'][number]): Record<(typeof SESSION_PARTS)[number], number> => ({
    working: s.workingMs,
    waiting: s.waitingMs,
    idle: s.idleMs,
    unaccounted: s.unaccountedMs,
  })
  const max = Math.max(0, ...report.sessions.map((s) => s.workingMs + s.waitingMs + s.idleMs + s.unaccountedMs))
  const scale = max > 0 ? CHART_BAR_W / max : 0
  const height = report.sessions.length * CHART_ROW_H + 4
  const rows = report.sessions
    .map((s, i) => {
      const y = i * CHART_ROW_H
      const name = formatVisible(laneName(s))
      const values = parts(s)
      let x = LABEL_W
      const segs = SESSION_PARTS.map((part) => {
        const w = Math.max(0, values[part] * scale)
        const seg = `<rect class="session-bar part-${part}" data-part="${part}" data-value="${values[part]}" x="${num(x)}" y="${y + 3}" width="${len(w)}" height="${BAR_H}"><title>${part}: ${formatDuration(values[part])}</title></rect>`
        x += w
        return seg
      }).join('')
      const text = `${formatDuration(s.workingMs)} working · ${formatDuration(s.waitingMs)} waiting · ${formatDuration(s.idleMs)} idle`
      return `<g class="session" data-session="${shown(s.sessionId)}"><text class="row-label" x="${LABEL_W - 8}" y="${y + 15}"><title>${escapeHtml(name)}</title>${escapeHtml(clip(name, LABEL_CHARS))}</text>${segs}<text class="row-value" x="${num(x + 6)}" y="${y + 15}">${text}</text></g>`
    })
    .join('')
  return `<svg class="chart sessions" data-chart="sessions" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">${rows}</svg><ul class="legend">${SESSION_PARTS.map((p) => `<li><span class="swatch part-${p}"></span>${p}</li>`).join('')}</ul>`
}

const STYLE = `
:root{color-scheme:light;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff}
body{margin:24px auto;max-width:${WIDTH + 40}px;padding:0 20px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.meta{color:#59636e;margin:0}
.note{border-left:4px solid #e0a025;background:#fff8e6;padding:8px 12px;margin:16px 0}
.figures{display:flex;gap:32px;flex-wrap:wrap;padding:0;margin:16px 0;list-style:none}
.figures strong{display:block;font-size:20px}
svg{display:block;max-width:100%;height:auto;font-size:12px}
.lane-bg{fill:#f6f8fa}.tick{stroke:#d0d7de;stroke-width:1}.axis{stroke:#8c959f}
.tick-label,.hour-label,.hour-value{text-anchor:middle;fill:#59636e}
.lane-label,.row-label{text-anchor:end;fill:#1f2328}.row-value{fill:#59636e}
.bar:hover,.chart-bar:hover,.hour-bar:hover,.session-bar:hover{stroke:#1f2328;stroke-width:1.5}
.chart-bar,.hour-bar{fill:#3b7dd8}
.legend{display:flex;gap:16px;flex-wrap:wrap;list-style:none;padding:0;margin:8px 0}
.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:-1px;border-radius:2px}
.empty{color:#59636e;font-style:italic}
${Object.entries(STATE_COLOURS)
  .map(([state, colour]) => `.state-${state}{fill:${colour};background:${colour}}`)
  .join('\n')}
.part-working{fill:${STATE_COLOURS.working};background:${STATE_COLOURS.working}}
.part-waiting{fill:${STATE_COLOURS.waiting};background:${STATE_COLOURS.waiting}}
.part-idle{fill:${STATE_COLOURS.idle};background:${STATE_COLOURS.idle}}
.part-unaccounted{fill:#fff;stroke:#8c959f;stroke-dasharray:3 2;background:repeating-linear-gradient(45deg,#fff 0 3px,#8c959f 3px 4px)}
`

/** The whole page. Pure: the time it was made comes in `opts`. */
export const renderReportHtml = (report: Report, opts: ReportHtmlOptions): string => {
  const clock = makeClock(report.timeZone)
  const title = opts.title ?? DEFAULT_REPORT_TITLE
  const groupRows = report.blocked.groups.map((g) => ({
    key: g.name,
    label: g.name,
    value: g.blockedMs,
    text: `${formatDuration(g.blockedMs)} · ${g.waits} ${g.waits === 1 ? 'wait' : 'waits'}`,
  }))
  const sessionTotal = report.sessions.reduce((sum, s) => sum + s.workingMs + s.waitingMs + s.idleMs + s.unaccountedMs, 0)
  const unaccountedShare = sessionTotal > 0 ? ` (${Math.round((report.unaccountedMs / sessionTotal) * 100)}% of the sessions' time)` : ''
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shown(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${shown(title)}</h1>
<p class="meta">${escapeHtml(clock.stamp(report.since))} to ${escapeHtml(clock.stamp(report.until))}, ${escapeHtml(clock.zone)} · by ${escapeHtml(report.by)} · made ${escapeHtml(clock.stamp(opts.generatedAt))}</p>
</header>
<p class="note">This page holds your agents' commands and questions as they asked them. Keep it private: it is written readable by you alone; share it only as you would the commands themselves.</p>
<ul class="figures">
<li>Agent time blocked on you<strong id="blocked-total">${formatDuration(report.blocked.totalMs)}</strong></li>
<li>Answers<strong>${report.answers.count}</strong></li>
<li>Sessions<strong>${report.sessions.length}</strong></li>
<li>Time unaccounted for<strong id="unaccounted">${formatDuration(report.unaccountedMs)}</strong></li>
</ul>
<section id="timeline">
<h2>Timeline</h2>
${renderLegend()}
${renderTimeline(report, clock)}
</section>
<section id="blocked">
<h2>Blocked on you, by kind</h2>
${renderBarChart('kind', kindRows(report.blocked.byKind))}
<h2>Blocked on you, by ${escapeHtml(report.by)}</h2>
${renderBarChart('group', groupRows)}
</section>
<section id="answers">
<h2>Your answer times</h2>
${renderAnswers(report, clock)}
</section>
<section id="hours">
<h2>Waits per hour of the day (${escapeHtml(clock.zone)})</h2>
${renderHours(report.waitsPerHour)}
</section>
<section id="sessions">
<h2>Each session's time</h2>
${renderSessions(report)}
<p>Time unaccounted for: ${formatDuration(report.unaccountedMs)}${unaccountedShare}. Trail Boss logs the changes it sees; a session's time before its first line, or after it was last seen, is not known.</p>
</section>
</body>
</html>
`
}
