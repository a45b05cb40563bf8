// Pure: a Report (lib/history/types.ts) as text for a terminal (docs/design.md §11.5): bars
// and a sparkline that fit its width, in colour when the caller says so; without `charts`
// (output piped) the same figures as plain text.
import { WAIT_KINDS, type WaitKind } from '../record/types.js'
import type { KindTimes, Report } from '../history/types.js'
import { formatVisible } from '../text/visible-text.js'
import { truncate } from './queue-table.js'
import { deriveKeys } from '../queue/derive.js'
import { formatSpan } from '../duration.js'
import { formatWallStamp, wallClockIn } from './wall-clock.js'

export interface ReportTextOptions {
  /** The terminal's width; 80 when unknown. */
  columns?: number
  /** Bars and a sparkline (a terminal); plain figures otherwise. */
  charts: boolean
  colour: boolean
  /** What the span was asked as (`1d`), for the title. */
  sinceText: string
  /** History lines skipped as torn or foreign. */
  skipped?: number
}

const PALETTE: Record<WaitKind, string> = {
  permission: '\u001b[33m',
  question: '\u001b[36m',
  done: '\u001b[32m',
  error: '\u001b[31m',
  interrupted: '\u001b[35m',
}
const BOLD = '\u001b[1m'
const DIM = '\u001b[2m'
const RESET = '\u001b[0m'

/** Sessions listed at most; --json has every one. */
export const MAX_SESSION_ROWS = 20

/** A moment in the report's zone: `2026-12-02 14:05`. */
export const formatLocal = (at: number, timeZone: string): string => formatWallStamp(wallClockIn(timeZone)(at))

const SPARKS = '▁▂▃▄▅▆▇█'

/** Pure: one character per value, scaled to the largest (a zero stays the lowest bar). */
export const sparkline = (values: readonly number[]): string => {
  const top = Math.max(0, ...values)
  return values
    .map((v) => (top === 0 ? SPARKS[0]! : SPARKS[Math.min(SPARKS.length - 1, Math.round((v / top) * (SPARKS.length - 1)))]!))
    .join('')
}

/** Pure: a bar of `width` cells for `value` of `max`, in segments per kind (coloured when asked). */
export const kindBar = (byKind: KindTimes, max: number, width: number, colour: boolean): string => {
  if (max <= 0 || width <= 0) return ''
  let out = ''
  let cells = 0
  let acc = 0
  for (const k of WAIT_KINDS) {
    acc += byKind[k]
    const upTo = Math.round((acc / max) * width)
    const n = Math.max(0, upTo - cells)
    if (n === 0) continue
    out += colour ? `${PALETTE[k]}${'█'.repeat(n)}${RESET}` : '█'.repeat(n)
    cells += n
  }
  return out
}

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - [...text].length))
const padStart = (text: string, width: number): string => ' '.repeat(Math.max(0, width - [...text].length)) + text

/** The report for a terminal or a pipe. */
export const formatReportText = (r: Report, opts: ReportTextOptions): string => {
  const columns = Math.max(40, opts.columns ?? 80)
  const bold = (t: string): string => (opts.colour ? `${BOLD}${t}${RESET}` : t)
  const dim = (t: string): string => (opts.colour ? `${DIM}${t}${RESET}` : t)
  const out: string[] = []
  out.push(bold(`Agent time blocked on you, last ${opts.sinceText}`))
  const range = `${formatLocal(r.since, r.timeZone)} to ${formatLocal(r.until, r.timeZone)}`
  const zone = ` (${truncate(formatVisible(r.timeZone), 20)})`
  out.push(dim(range.length + zone.length <= columns ? `${range}${zone}` : range))
  if (r.sessions.length === 0) {
    out.push('no history in this span: the history starts with the first state change Trail Boss logs')
    return `${out.join('\n')}\n`
  }
  out.push('')
  out.push(`${bold('blocked')}  ${formatSpan(r.blocked.totalMs)}`)
  // The kinds, as many on a line as fit.
  let line = ''
  let plain = 0
  for (const k of WAIT_KINDS.filter((k) => r.blocked.byKind[k] > 0)) {
    const text = `${k} ${formatSpan(r.blocked.byKind[k])}`
    if (plain > 0 && plain + 3 + text.length > columns) {
      out.push(line)
      line = ''
      plain = 0
    }
    line += `${plain === 0 ? '  ' : ' · '}${opts.colour ? `${PALETTE[k]}${k}${RESET}` : k} ${formatSpan(r.blocked.byKind[k])}`
    plain += (plain === 0 ? 2 : 3) + text.length
  }
  if (line) out.push(line)
  out.push(`${bold(`by ${r.by}`)}`)
  const groups = r.blocked.groups
  const durWidth = Math.max(...groups.map((g) => formatSpan(g.blockedMs).length), 2)
  const waitsText = (n: number): string => `${n} wait${n === 1 ? '' : 's'}`
  const waitsWidth = Math.max(...groups.map((g) => waitsText(g.waits).length))
  const nameWidth = Math.min(Math.max(...groups.map((g) => [...formatVisible(g.name)].length), 4), Math.max(8, Math.floor(columns / 3)))
  const barWidth = opts.charts ? columns - (2 + nameWidth + 2 + durWidth + 2 + 2 + waitsWidth) : 0
  const top = Math.max(...groups.map((g) => g.blockedMs))
  for (const g of groups) {
    const name = pad(truncate(formatVisible(g.name), nameWidth), nameWidth)
    const dur = padStart(formatSpan(g.blockedMs), durWidth)
    const bar = barWidth >= 4 ? `  ${kindBar(g.byKind, top, barWidth, opts.colour)}` : ''
    const shown = barWidth >= 4 ? Math.round((g.blockedMs / (top || 1)) * barWidth) : 0
    out.push(`  ${name}  ${dur}${bar}${' '.repeat(barWidth >= 4 ? barWidth - shown : 0)}  ${waitsText(g.waits)}`)
  }
  out.push('')
  const a = r.answers
  if (a.count === 0) out.push(`${bold('your answers')}  none in this span`)
  else {
    const l = a.longest
    out.push(`${bold('your answers')}  ${a.count} · p50 ${formatSpan(a.p50Ms ?? 0)} · p90 ${formatSpan(a.p90Ms ?? 0)}`)
    if (l)
      out.push(
        `  longest ${formatSpan(l.ms)} (${l.kind ?? 'wait'}, ${l.sessionId.slice(0, 8)}, at ${formatLocal(l.at, r.timeZone).slice(11)})`,
      )
  }
  const peak = r.waitsPerHour.indexOf(Math.max(...r.waitsPerHour))
  const totalWaits = r.waitsPerHour.reduce((s, n) => s + n, 0)
  if (opts.charts) {
    const legend = `0h to 23h${totalWaits > 0 ? `, most at ${String(peak).padStart(2, '0')}h (${r.waitsPerHour[peak]})` : ''}`
    const line = `waits per hour  ${sparkline(r.waitsPerHour)}`
    out.push(
      `${bold('waits per hour')}  ${sparkline(r.waitsPerHour)}${line.length + 2 + legend.length <= columns ? `  ${dim(legend)}` : ''}`,
    )
  } else {
    const hours = r.waitsPerHour.flatMap((n, h) => (n > 0 ? [`${String(h).padStart(2, '0')}h ${n}`] : []))
    out.push(`${bold('waits per hour')}  ${hours.length > 0 ? hours.join(' · ') : 'none'}`)
  }
  out.push('')
  // Sessions, the most blocked first.
  const rows = [...r.sessions].sort((x, y) => y.waitingMs - x.waitingMs || y.workingMs - x.workingMs)
  const shown = rows.slice(0, MAX_SESSION_ROWS)
  const num = 8
  // Each session by the shortest prefix of its id no other session shares, as the queue's keys.
  const keys = deriveKeys(r.sessions.map((x) => x.sessionId))
  const keyOf = (id: string): string => formatVisible(keys.get(id) ?? id)
  const keyWidth = Math.min(16, Math.max(7, ...shown.map((x) => keyOf(x.sessionId).length)))
  // The agent's column only where there is room for it.
  const agentWidth = columns >= 80 ? Math.min(12, Math.max(5, ...shown.map((s) => formatVisible(s.agent).length))) : 0
  const agentCell = (text: string): string => (agentWidth > 0 ? ` ${pad(truncate(text, agentWidth), agentWidth)}` : '')
  // As many of the times as fit beside a project of 7 characters: working and waiting first.
  const fixed = 2 + keyWidth + (agentWidth > 0 ? agentWidth + 1 : 0) + 1
  const cellCount = Math.max(2, Math.min(4, Math.floor((columns - fixed - 7) / (num + 1))))
  const projectWidth = Math.max(7, Math.min(30, columns - fixed - cellCount * (num + 1)))
  const row = (id: string, agent: string, project: string, cells: string[]): string =>
    `  ${pad(truncate(id, keyWidth), keyWidth)}${agentCell(agent)} ${pad(truncate(project, projectWidth), projectWidth)}${cells
      .slice(0, cellCount)
      .map((c) => ` ${padStart(c, num)}`)
      .join('')}`
  out.push(bold(row('SESSION', 'AGENT', 'PROJECT', ['WORKING', 'WAITING', 'IDLE', 'UNKNOWN'])))
  for (const s of shown)
    out.push(
      row(
        keyOf(s.sessionId),
        formatVisible(s.agent),
        formatVisible(s.project),
        [s.workingMs, s.waitingMs, s.idleMs, s.unaccountedMs].map(formatSpan),
      ),
    )
  if (rows.length > shown.length) out.push(dim(`  … and ${rows.length - shown.length} more sessions (--json lists every one)`))
  out.push('')
  const sessionTime = r.sessions.reduce((sum, s) => sum + s.workingMs + s.waitingMs + s.idleMs + s.unaccountedMs, 0)
  out.push(`${bold('unaccounted')}  ${formatSpan(r.unaccountedMs)} of ${formatSpan(sessionTime)} of session time`)
  if (r.unaccountedMs > 0) out.push(dim(truncate('  no line says what the sessions did then: a change no hook or reader saw', columns)))
  if (opts.skipped)
    out.push(dim(`skipped ${opts.skipped} history line${opts.skipped === 1 ? '' : 's'} that did not parse (torn or foreign)`))
  return `${out.join('\n')}\n`
}
