// Agent time blocked today (local day), for `status --format '{blocked}'` (docs/design.md §11.7).
// `status` runs every few seconds and a busy day holds tens of thousands of lines, so the day's
// blocked time is kept in a small summary (history/.today.json) and brought up to date from the
// bytes appended since: each session's last state, and the blocked time of the stretches already
// closed. The same definitions as the report's (report.ts): a line that arrives out of order
// (a reader's, dated before the session's last line) makes the summary start over from the files.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js'
import { writeFileAtomic } from '../fs/atomic-write.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import type { Env } from '../paths.js'
import { isWaitState } from './changes.js'
import { dayFile, daysBetween, historyDir } from './files.js'
import { LOOKBACK_MS, readDayFrom } from './read.js'
import type { HistoryEntry, HistoryState } from './types.js'

export const TODAY_SUMMARY_VERSION = 1

/** A session's last line, as far as blocked time needs it. */
interface LastLine {
  at: number
  to: HistoryState
  /** The `to` of its last hook line (report.ts: a hook line from another state skips a change). */
  hookTo: HistoryState | null
}

export interface TodaySummary {
  v: typeof TODAY_SUMMARY_VERSION
  /** The local day's start (ms): a summary of another day is not used. */
  dayStart: number
  /** Bytes of each daily file folded in. */
  offsets: Record<string, number>
  sessions: Record<string, LastLine>
  /** Blocked time of the stretches closed by a later line, from dayStart on. */
  closedMs: number
}

/** The start of the local day of `now` (the process's zone, TZ). */
export const localDayStart = (now: number): number => {
  const d = new Date(now)
  d.setHours(0, 0, 0, 0)
  return d.getTime()
}

export const emptyTodaySummary = (dayStart: number): TodaySummary => ({
  v: TODAY_SUMMARY_VERSION,
  dayStart,
  offsets: {},
  sessions: {},
  closedMs: 0,
})

const clip = (start: number, end: number, dayStart: number): number => Math.max(0, end - Math.max(start, dayStart))

/**
 * Pure: folds lines (in time order) into the summary, in place; 'unordered' when a line is dated
 * before its session's last one (the summary must then be made again from all the lines).
 */
export const foldToday = (sum: TodaySummary, entries: readonly HistoryEntry[]): 'ok' | 'unordered' => {
  for (const e of entries) {
    if (e.at < sum.dayStart - LOOKBACK_MS) continue
    const last = sum.sessions[e.sessionId]
    if (last) {
      if (e.at < last.at) return 'unordered'
      const unseen = e.by === 'hook' && last.hookTo !== null && e.from !== last.hookTo
      if (!unseen && isWaitState(last.to)) sum.closedMs += clip(last.at, e.at, sum.dayStart)
    }
    sum.sessions[e.sessionId] = { at: e.at, to: e.to, hookTo: e.by === 'hook' ? e.to : (last?.hookTo ?? null) }
  }
  return 'ok'
}

/** Pure: blocked time from the day's start to `now`: the closed stretches and the waits still open. */
export const blockedAt = (sum: TodaySummary, now: number): number => {
  let ms = sum.closedMs
  for (const s of Object.values(sum.sessions)) if (isWaitState(s.to) && s.at <= now) ms += clip(s.at, now, sum.dayStart)
  return ms
}

const summaryFile = (env: Env): string => join(historyDir(env), '.today.json')

const readSummary = (env: Env, dayStart: number): TodaySummary | null => {
  const got = readRegularFile(summaryFile(env), { cap: READ_CAP.state, ownOnly: true })
  if (!got.ok) return null
  try {
    const v = JSON.parse(got.text) as TodaySummary
    return v.v === TODAY_SUMMARY_VERSION && v.dayStart === dayStart && typeof v.closedMs === 'number' && v.sessions && v.offsets ? v : null
  } catch {
    return null
  }
}

/** Reads what was appended since the summary, from each daily file of the day and its look-back. */
const bringUpToDate = (env: Env, sum: TodaySummary, now: number): 'ok' | 'unordered' | 'replaced' => {
  const dir = historyDir(env)
  const fresh: HistoryEntry[] = []
  for (const day of daysBetween(sum.dayStart - LOOKBACK_MS, now)) {
    const name = `${day}.jsonl`
    const asked = sum.offsets[name] ?? 0
    const got = readDayFrom(dayFile(dir, day), asked)
    if (!got.found) continue
    if (got.from !== asked) return 'replaced'
    sum.offsets[name] = got.offset
    for (const e of got.entries) if (e.at <= now) fresh.push(e)
  }
  // Stable: lines of one moment keep the order they were written in.
  fresh.sort((a, b) => a.at - b.at)
  return foldToday(sum, fresh)
}

/**
 * Agent time blocked today, in ms: the summary brought up to date (made again from the files
 * when there is none for today, a file was replaced, or a line came out of order), then saved.
 */
export const readBlockedToday = (env: Env, now: number): number => {
  const dayStart = localDayStart(now)
  const kept = readSummary(env, dayStart)
  let sum = kept ?? emptyTodaySummary(dayStart)
  const before = JSON.stringify(sum)
  if (bringUpToDate(env, sum, now) !== 'ok') {
    sum = emptyTodaySummary(dayStart)
    bringUpToDate(env, sum, now)
  }
  // No history yet: nothing to keep.
  if (Object.keys(sum.offsets).length === 0) return 0
  const text = JSON.stringify(sum)
  if (text !== before)
    try {
      const tmp = join(historyDir(env), '.tmp')
      mkdirSync(tmp, { recursive: true, mode: PRIVATE_DIR_MODE })
      writeFileAtomic(summaryFile(env), text, tmp, 'today')
    } catch {
      // A summary not saved is made again next time: only slower.
    }
  return blockedAt(sum, now)
}
