// Where the history lives (docs/design.md §11): one JSON-lines file per UTC day under the
// Trail Boss home, and beside them one folder per day of marks, the empty files that say a
// change was logged already (append.ts).
import { join } from 'node:path'
import { type Env, trailbossHome } from '../paths.js'

export const historyDir = (env: Env): string => join(trailbossHome(env), 'history')

/** The UTC day of a moment, `YYYY-MM-DD`: the name of the file its line goes to. */
export const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10)

export const DAY_FILE_PATTERN = /^(\d{4}-\d{2}-\d{2})\.jsonl$/

export const dayFile = (dir: string, day: string): string => join(dir, `${day}.jsonl`)

/** The marks of one day: a folder that gc removes whole, with its day's file. */
export const marksDir = (dir: string, day: string): string => join(dir, '.marks', day)

export const marksRoot = (dir: string): string => join(dir, '.marks')

export const DAY_MS = 86_400_000

/** Pure: the UTC days from the one of `since` to the one of `until`, oldest first. */
export const daysBetween = (since: number, until: number): string[] => {
  const out: string[] = []
  const last = dayOf(until)
  for (let t = Date.parse(`${dayOf(since)}T00:00:00Z`); ; t += DAY_MS) {
    const day = dayOf(t)
    out.push(day)
    if (day >= last) return out
  }
}

/**
 * Marks are kept this long at least, whatever `gc --history` removes of the lines, and a reader
 * logs no change older than this: a change whose mark is gone could be logged again.
 */
export const MARKS_KEEP_MS = 31 * DAY_MS
