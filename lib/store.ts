// The reader: every record in the one flat sessions folder, validated with the schema, with
// pending events folded in memory (never waiting on a lock). Bad files are skipped and
// reported, never deleted and never fatal.
import * as fs from 'node:fs'
import { join } from 'node:path'
import type { SessionRecord } from './events.js'
import { isValidSessionId, sessionsDir, type Env } from './paths.js'
import { parseRecord } from './record.js'
import { readPendingEvents, withPending } from './record-files.js'

export interface SkippedFile {
  file: string
  why: string
}

export interface StoreContents {
  dir: string
  records: SessionRecord[]
  skipped: SkippedFile[]
  /** Files set aside by the emitter when a record did not parse (`<id>.json.corrupt-<ms>`). */
  setAside: string[]
}

const RECORD_SUFFIX = '.json'
const PENDING_SUFFIX = '.pending'

const listDir = (dir: string): fs.Dirent[] => {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/**
 * An ended session shows only under `--all`, yet there are hundreds of them: without a full
 * check they pass on the fields the queue reads of them (id, state, times, pane), which keeps
 * `ls` and `status` fast. Every other record, and every record when `full`, goes through zod.
 */
const isEndedEnough = (v: unknown, sessionId: string): v is SessionRecord => {
  if (typeof v !== 'object' || v === null) return false
  const r = v as Partial<SessionRecord>
  const t = r.tmux
  return (
    r.v === 1 &&
    r.state === 'ended' &&
    r.sessionId === sessionId &&
    typeof r.lastEventAt === 'number' &&
    typeof r.headless === 'boolean' &&
    (t === null || (typeof t === 'object' && t !== undefined && typeof t.pane === 'string' && typeof t.socket === 'string'))
  )
}

/** Reads one record file; returns the record or why it was skipped. */
export const readRecordFile = (path: string, sessionId: string, full = true): SessionRecord | string => {
  let data: unknown
  try {
    data = JSON.parse(fs.readFileSync(path, 'utf8'))
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code) return `unreadable (${e.code})`
    return 'not valid JSON'
  }
  if (!full && isEndedEnough(data, sessionId)) return data
  const parsed = parseRecord(data)
  if (!parsed.ok) return parsed.why
  if (parsed.record.sessionId !== sessionId) return `holds session ${parsed.record.sessionId}, not ${sessionId}`
  return parsed.record
}

export interface ReadOptions {
  /** Validate ended records with the full schema too (doctor, `ls --all`). */
  full?: boolean
}

export const readStore = (env: Env = process.env, dir: string = sessionsDir(env), opts: ReadOptions = {}): StoreContents => {
  const entries = listDir(dir)
  const pendingIds = new Set<string>()
  const recordIds: string[] = []
  const skipped: SkippedFile[] = []
  const setAside: string[] = []
  for (const e of entries) {
    if (e.name.startsWith('.')) continue
    if (e.isDirectory() && e.name.endsWith(PENDING_SUFFIX)) pendingIds.add(e.name.slice(0, -PENDING_SUFFIX.length))
    else if (e.name.includes('.json.corrupt-')) setAside.push(join(dir, e.name))
    else if (e.name.endsWith(RECORD_SUFFIX) && !e.isDirectory()) {
      const id = e.name.slice(0, -RECORD_SUFFIX.length)
      if (isValidSessionId(id)) recordIds.push(id)
      else skipped.push({ file: join(dir, e.name), why: 'its name is not a session id' })
    }
  }
  const records: SessionRecord[] = []
  const seen = new Set<string>()
  for (const id of recordIds) {
    const file = join(dir, `${id}${RECORD_SUFFIX}`)
    const rec = readRecordFile(file, id, opts.full ?? false)
    seen.add(id)
    if (typeof rec === 'string') {
      // A vanished file (gc meanwhile) is not worth a line.
      if (rec !== 'unreadable (ENOENT)') skipped.push({ file, why: rec })
      continue
    }
    const merged = pendingIds.has(id) ? withPending(rec, readPendingEvents(dir, id, rec.foldedPending)) : rec
    if (merged) records.push(merged)
  }
  // Events of a session whose first write lost the lock race exist only as pending files.
  for (const id of pendingIds) {
    if (seen.has(id) || !isValidSessionId(id)) continue
    const rec = withPending(null, readPendingEvents(dir, id, []))
    if (rec) records.push(rec)
  }
  return { dir, records, skipped, setAside }
}
