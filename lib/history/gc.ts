// What `gc --history` removes (docs/design.md §11.6): daily files whose whole day is older than
// the threshold, and the marks of days older than that and than MARKS_KEEP_MS (a reader must
// not log again a change whose line is gone).
import { join } from 'node:path'
import { listRealDir, removeOwnFile, removeOwnFolder } from '../fs/own-files.js'
import type { Env } from '../paths.js'
import { DAY_FILE_PATTERN, DAY_MS, MARKS_KEEP_MS, historyDir, marksDir, marksRoot } from './files.js'

export interface HistoryGcPlan {
  /** Daily files to remove, by day. */
  days: string[]
  /** Days whose marks go. */
  marks: string[]
}

/** Whether every moment of a UTC day lies before `cutoff`. */
const dayEndsBefore = (day: string, cutoff: number): boolean => Date.parse(`${day}T00:00:00Z`) + DAY_MS <= cutoff

/** Pure: which days' files and marks go, of those there are. */
export const planHistoryGc = (
  fileDays: readonly string[],
  markDays: readonly string[],
  now: number,
  olderThanMs: number,
): HistoryGcPlan => ({
  days: fileDays.filter((d) => dayEndsBefore(d, now - olderThanMs)).sort(),
  marks: markDays.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d) && dayEndsBefore(d, now - Math.max(olderThanMs, MARKS_KEEP_MS))).sort(),
})

/** The plan for the history of a home as it is now. */
export const readHistoryGcPlan = (env: Env, now: number, olderThanMs: number): HistoryGcPlan => {
  const dir = historyDir(env)
  const fileDays = listRealDir(dir).flatMap((e) => {
    const m = e.isFile() ? DAY_FILE_PATTERN.exec(e.name) : null
    return m ? [m[1]!] : []
  })
  const markDays = listRealDir(marksRoot(dir)).flatMap((e) => (e.isDirectory() ? [e.name] : []))
  return planHistoryGc(fileDays, markDays, now, olderThanMs)
}

/** Removes a day's file; false when it was not ours to remove (or gone already). */
export const removeHistoryDay = (env: Env, day: string): boolean => removeOwnFile(join(historyDir(env), `${day}.jsonl`))

/** Removes a day's marks: only the empty files the history writes. */
export const removeHistoryMarks = (env: Env, day: string): boolean => removeOwnFolder(marksDir(historyDir(env), day), () => true)
