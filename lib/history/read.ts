// Reading a span of the history (docs/design.md §11.4): the daily files that cover it, line by
// line. A line that does not parse or is not a history line (torn by a writer that died, written
// by hand, of a newer version) is skipped and counted, never fatal.
import { isValidSessionId, type Env } from '../paths.js'
import { LIVE_STATES, WAIT_KINDS } from '../record/types.js'
import { isRefusal, readRange, withRegularFile } from '../fs/safe-file.js'
import { DAY_MS, dayFile, daysBetween, historyDir } from './files.js'
import { HISTORY_VERSION, type HistoryEntry } from './types.js'

const STATES = new Set<unknown>([...LIVE_STATES, 'gone'])
const KINDS = new Set<unknown>(WAIT_KINDS)

/** Pure: whether a parsed line is a history line this version reads. */
export const isHistoryEntry = (v: unknown): v is HistoryEntry => {
  if (v === null || typeof v !== 'object') return false
  const e = v as Record<string, unknown>
  return (
    e.v === HISTORY_VERSION &&
    typeof e.at === 'number' &&
    Number.isFinite(e.at) &&
    isValidSessionId(e.sessionId) &&
    typeof e.agent === 'string' &&
    typeof e.project === 'string' &&
    typeof e.host === 'string' &&
    (e.from === null || STATES.has(e.from)) &&
    STATES.has(e.to) &&
    (e.kind === null || KINDS.has(e.kind)) &&
    (e.ask === undefined || typeof e.ask === 'string') &&
    (e.by === 'hook' || e.by === 'read')
  )
}

export interface ParsedLines {
  entries: HistoryEntry[]
  /** Lines that were not history lines (torn, foreign, of another version). */
  skipped: number
}

/** Pure: the history lines of a file's text; a last line without its newline is still being written, and left. */
export const parseHistoryText = (text: string): ParsedLines & { consumed: number } => {
  const entries: HistoryEntry[] = []
  let skipped = 0
  const end = text.lastIndexOf('\n') + 1
  for (const line of text.slice(0, end).split('\n')) {
    if (line === '') continue
    let v: unknown
    try {
      v = JSON.parse(line)
    } catch {
      skipped++
      continue
    }
    if (isHistoryEntry(v)) entries.push(v)
    else skipped++
  }
  return { entries, skipped, consumed: Buffer.byteLength(text.slice(0, end)) }
}

/** A daily file is never read past this: a day of 50,000 lines is about 15 MB. */
export const DAY_READ_CAP = 256 * 1024 * 1024

export interface DayRead extends ParsedLines {
  /** Bytes of whole lines read from the start: where a later read of the same file goes on. */
  offset: number
  /** Where this read began: 0 instead of the offset asked for when the file is shorter than it (replaced). */
  from: number
  /** Whether the file exists (and is a regular file of ours). */
  found: boolean
}

/** One daily file from a byte offset (0: all of it); only whole lines, only a regular file of ours. */
export const readDayFrom = (path: string, offset = 0): DayRead => {
  const got = withRegularFile(path, { ownOnly: true }, (fd, st) => {
    const from = st.size >= offset ? offset : 0
    const bytes = readRange(fd, from, Math.min(st.size - from, DAY_READ_CAP))
    return { from, text: bytes.toString('utf8') }
  })
  if (isRefusal(got)) return { entries: [], skipped: 0, offset: 0, from: 0, found: false }
  const parsed = parseHistoryText(got.text)
  return { entries: parsed.entries, skipped: parsed.skipped, offset: got.from + parsed.consumed, from: got.from, found: true }
}

/**
 * How far before a span its lines are read, to know each session's state when the span begins:
 * a session whose last change is older than this starts the span unaccounted for.
 */
export const LOOKBACK_MS = DAY_MS

export interface HistorySpan extends ParsedLines {
  /** The daily files read, oldest first. */
  files: string[]
}

/**
 * The lines of the daily files that cover [since − LOOKBACK_MS, until], in time order (a line
 * written later but dated earlier, by a reader, takes its place). The report's input.
 */
export const readHistorySpan = (env: Env, since: number, until: number): HistorySpan => {
  const dir = historyDir(env)
  const entries: HistoryEntry[] = []
  const files: string[] = []
  let skipped = 0
  for (const day of daysBetween(since - LOOKBACK_MS, until)) {
    const path = dayFile(dir, day)
    const got = readDayFrom(path)
    if (!got.found) continue
    files.push(path)
    skipped += got.skipped
    for (const e of got.entries) if (e.at >= since - LOOKBACK_MS && e.at <= until) entries.push(e)
  }
  // Stable: lines of one moment keep the order they were written in.
  entries.sort((a, b) => a.at - b.at)
  return { entries, skipped, files }
}
