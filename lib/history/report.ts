// Pure: a span of history lines → the Report every surface shows (docs/design.md §11.5). No
// clock, no files: the caller reads the lines (read.ts readHistorySpan) and names the span.
import { WAIT_KINDS, type WaitKind } from '../record/types.js'
import { isWaitState } from './changes.js'
import type { HistoryEntry, HistoryState, KindTimes, Report, ReportGroup, ReportGrouping, ReportSpan, SessionTimes } from './types.js'

export interface ReportOptions {
  since: number
  until: number
  by: ReportGrouping
  /** The IANA zone of the hours of the day (the caller's local one). */
  timeZone: string
}

export const emptyKindTimes = (): KindTimes => Object.fromEntries(WAIT_KINDS.map((k) => [k, 0])) as KindTimes

/** A wait's kind; a line of a wait without one (an older writer) counts as the state's usual kind. */
export const kindOfWait = (state: HistoryState, kind: WaitKind | null): WaitKind =>
  kind ?? (state === 'permission' ? 'permission' : 'question')

/** The states in which a session no longer runs: no time of it counts after them. */
const isOver = (s: HistoryState): boolean => s === 'ended' || s === 'gone'

/** Nearest-rank percentile of sorted values. */
export const percentile = (sorted: readonly number[], q: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

/** The local hour (0–23) of a moment in a zone. */
export const hourIn = (timeZone: string): ((at: number) => number) => {
  const f = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', hourCycle: 'h23' })
  return (at) => Number(f.formatToParts(at).find((p) => p.type === 'hour')?.value ?? 0) % 24
}

interface Wait {
  sessionId: string
  kind: WaitKind
  start: number
  /** When the agent moved on, or null (still waiting at the span's end, or the session ended). */
  answeredAt: number | null
}

interface Lane {
  lines: HistoryEntry[]
}

/**
 * Whether a line goes on with the wait the previous line began: same state and kind, and not a
 * hook's word that a new wait began (a second dialog: `from` is then the same wait state).
 */
const continuesWait = (prev: HistoryEntry, e: HistoryEntry): boolean =>
  prev.to === e.to && prev.kind === e.kind && !(e.by === 'hook' && e.from === e.to)

/**
 * Each session's stretches: a line's state holds from its `at` to the next line's, or to the
 * span's end. A stretch is unaccounted for when no line says what the session did: before its
 * first line when that line is not the session's start (`from` is not null), and between two
 * lines when a hook's line departs from another state than the hook's last line reached (a
 * change nobody logged happened in between).
 */
const stretchesOf = (lines: readonly HistoryEntry[]): { start: number; end: number | null; line: HistoryEntry | null }[] => {
  const out: { start: number; end: number | null; line: HistoryEntry | null }[] = []
  const first = lines[0]
  if (!first) return out
  if (first.from !== null) out.push({ start: Number.NEGATIVE_INFINITY, end: first.at, line: null })
  let lastHookTo: HistoryState | null = null
  lines.forEach((e, i) => {
    if (e.by === 'hook') lastHookTo = e.to
    const next = lines[i + 1]
    const unseen = next !== undefined && next.by === 'hook' && lastHookTo !== null && next.from !== lastHookTo
    out.push({ start: e.at, end: next ? next.at : null, line: unseen ? null : e })
  })
  return out
}

/** The report of the lines in [since, until] (lines before `since` give the states it begins with). */
export const computeReport = (entries: readonly HistoryEntry[], opts: ReportOptions): Report => {
  const { since, until, by } = opts
  const span = Math.max(0, until - since)
  const lanes = new Map<string, Lane>()
  const sorted = entries.filter((e) => e.at <= until).sort((a, b) => a.at - b.at)
  for (const e of sorted) {
    const lane = lanes.get(e.sessionId)
    if (lane) lane.lines.push(e)
    else lanes.set(e.sessionId, { lines: [e] })
  }
  const hourOf = hourIn(opts.timeZone)
  const blockedByKind = emptyKindTimes()
  const groups = new Map<string, ReportGroup>()
  const sessions: SessionTimes[] = []
  const spans: ReportSpan[] = []
  const waits: Wait[] = []
  const clip = (start: number, end: number | null): number => Math.max(0, Math.min(end ?? until, until) - Math.max(start, since))

  for (const [sessionId, { lines }] of lanes) {
    const last = lines[lines.length - 1]!
    const meta = { sessionId, agent: last.agent, project: last.project, host: last.host }
    const times: SessionTimes = { ...meta, workingMs: 0, waitingMs: 0, idleMs: 0, unaccountedMs: 0 }
    const byKind = emptyKindTimes()
    let seen = false
    for (const s of stretchesOf(lines)) {
      const ms = clip(s.start, s.end)
      if (s.line === null) {
        if (ms > 0) {
          times.unaccountedMs += ms
          seen = true
        }
        continue
      }
      const state = s.line.to
      if (isOver(state) || ms <= 0) continue
      seen = true
      if (state === 'working') times.workingMs += ms
      else if (state === 'idle') times.idleMs += ms
      else {
        times.waitingMs += ms
        byKind[kindOfWait(state, s.line.kind)] += ms
      }
      const bar: ReportSpan = {
        ...meta,
        state,
        kind: isWaitState(state) ? kindOfWait(state, s.line.kind) : null,
        start: Math.max(s.start, since),
        end: Math.min(s.end ?? until, until),
      }
      if (s.line.ask !== undefined) bar.ask = s.line.ask
      spans.push(bar)
    }
    // Waits, and when the agent moved on from each.
    const sessionWaits: Wait[] = []
    let open: Wait | null = null
    lines.forEach((e, i) => {
      const prev = lines[i - 1]
      if (open && !(prev && continuesWait(prev, e))) {
        if (!isOver(e.to)) open.answeredAt = e.at
        open = null
      }
      if (isWaitState(e.to) && !open) {
        open = { sessionId, kind: kindOfWait(e.to, e.kind), start: e.at, answeredAt: null }
        sessionWaits.push(open)
      }
    })
    const inSpan = sessionWaits.filter((w) => w.start >= since && w.start < until)
    if (inSpan.length > 0) seen = true
    if (!seen) continue
    sessions.push(times)
    waits.push(...inSpan)
    for (const k of WAIT_KINDS) blockedByKind[k] += byKind[k]
    if (by !== 'kind') {
      const name = meta[by]
      const g = groups.get(name) ?? { name, blockedMs: 0, byKind: emptyKindTimes(), waits: 0 }
      for (const k of WAIT_KINDS) {
        g.byKind[k] += byKind[k]
        g.blockedMs += byKind[k]
      }
      g.waits += inSpan.length
      groups.set(name, g)
    }
  }
  if (by === 'kind')
    for (const k of WAIT_KINDS) {
      const count = waits.filter((w) => w.kind === k).length
      if (blockedByKind[k] === 0 && count === 0) continue
      groups.set(k, { name: k, blockedMs: blockedByKind[k], byKind: { ...emptyKindTimes(), [k]: blockedByKind[k] }, waits: count })
    }

  const answered = waits.filter((w) => w.answeredAt !== null)
  const times = answered.map((w) => w.answeredAt! - w.start).sort((a, b) => a - b)
  let longest: Report['answers']['longest'] = null
  for (const w of answered) {
    const ms = w.answeredAt! - w.start
    if (longest === null || ms > longest.ms) longest = { ms, sessionId: w.sessionId, kind: w.kind, at: w.start }
  }
  const waitsPerHour = Array.from({ length: 24 }, () => 0)
  for (const w of waits) waitsPerHour[hourOf(w.start)]!++
  const totalMs = WAIT_KINDS.reduce((sum, k) => sum + blockedByKind[k], 0)
  return {
    since,
    until,
    timeZone: opts.timeZone,
    by,
    blocked: {
      totalMs,
      byKind: blockedByKind,
      groups: [...groups.values()].sort((a, b) => b.blockedMs - a.blockedMs || b.waits - a.waits || (a.name < b.name ? -1 : 1)),
    },
    answers: { count: times.length, p50Ms: percentile(times, 0.5), p90Ms: percentile(times, 0.9), longest },
    sessions,
    waitsPerHour,
    unaccountedMs: sessions.reduce((sum, s) => sum + s.unaccountedMs, 0),
    spans: span > 0 ? spans : [],
  }
}
