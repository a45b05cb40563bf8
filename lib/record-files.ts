// Files of the record store that need no lock: private folders, atomic writes, pending
// events. Readers (ls, status, watch) use this module without loading proper-lockfile, whose
// graceful-fs set-up costs start-up time on every command.
import { chmodSync, closeSync, constants, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { foldEvents, type HookEvent, type SessionRecord } from './events.js'
import { endedIndexDir, pendingDir, tempDir } from './paths.js'
import { readDirIfExists } from './read-optional.js'

export type Logger = (line: string) => void

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/**
 * Creates the folder 0700, and tightens one a person pre-created looser (sessions hold
 * commands and messages from their agents).
 */
export const ensurePrivateDir = (dir: string, log: Logger = () => {}): void => {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const mode = statSync(dir).mode & 0o777
  if (mode !== PRIVATE_DIR_MODE) {
    chmodSync(dir, PRIVATE_DIR_MODE)
    log(`tightened ${dir} from ${mode.toString(8)} to 700`)
  }
}

/** A light structural check, enough to trust our own files on the hot path (readers use zod). */
export const looksLikeRecord = (v: unknown, sessionId: string): v is SessionRecord => {
  if (typeof v !== 'object' || v === null) return false
  const r = v as Partial<SessionRecord>
  return r.v === 1 && r.sessionId === sessionId && typeof r.state === 'string' && typeof r.events === 'number' && Array.isArray(r.foldedPending)
}

export const looksLikeEvent = (v: unknown, sessionId: string): v is HookEvent => {
  if (typeof v !== 'object' || v === null) return false
  const e = v as Partial<HookEvent>
  return e.v === 1 && e.sessionId === sessionId && typeof e.name === 'string' && typeof e.stamp === 'number'
}

export interface PendingEvent {
  file: string
  event: HookEvent
}


/**
 * Pending events of a session that are not yet in its record. Readers call this without the
 * lock, so a dead lock holder never keeps an event from view.
 */
export const readPendingEvents = (dir: string, sessionId: string, folded: readonly string[], log: Logger = () => {}): PendingEvent[] => {
  const pdir = pendingDir(dir, sessionId)
  const skip = new Set(folded)
  const out: PendingEvent[] = []
  for (const name of readDirIfExists(pdir)) {
    if (!name.endsWith('.json') || skip.has(name)) continue
    try {
      const event: unknown = JSON.parse(readFileSync(join(pdir, name), 'utf8'))
      if (looksLikeEvent(event, sessionId)) out.push({ file: name, event })
      else log(`ignored pending file ${join(pdir, name)}: not an event of ${sessionId}`)
    } catch (err) {
      // Vanished between readdir and read: a lock holder folded it meanwhile.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`ignored pending file ${join(pdir, name)}: ${(err as Error).message}`)
    }
  }
  return out
}

/** The record as readers should see it: the file with its pending events folded in memory. */
export const withPending = (rec: SessionRecord | null, pending: readonly PendingEvent[]): SessionRecord | null =>
  pending.length === 0 ? rec : foldEvents(rec, pending.map((p) => p.event))

/**
 * A suffix that makes a file name unique among writers (with the pid beside it): no crypto,
 * whose module costs the emitter's start-up more than it gives; `wx` and `link` catch a clash.
 */
const uniqueSuffix = (): string => `${process.hrtime.bigint().toString(36)}${Math.random().toString(36).slice(2, 6)}`

/** Writes `data` to `file` atomically: a temp file created exclusively, then a rename. */
export const writeFileAtomic = (file: string, data: string, tmpDir: string, tmpPrefix: string): void => {
  const tmp = join(tmpDir, `${tmpPrefix}.${process.pid}.${uniqueSuffix()}.tmp`)
  try {
    writeFileSync(tmp, data, { flag: 'wx', mode: PRIVATE_FILE_MODE })
    renameSync(tmp, file)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}

/*
 * The ended index (sessions/.ended/<id>, empty files). Its one rule: a mark exists only while
 * its session's record says `ended`. So only a lock holder marks, after writing an ended
 * record; and a record that stops being ended loses its mark before it is written. Removing a
 * mark is always safe (the reader then opens the record): it is all `gc` ever does to the
 * index, and the fix `doctor` prints for a mark on a live session.
 */

/** Marks a session ended; called under its lock, after its ended record is on disk. */
export const markEnded = (dir: string, sessionId: string): void => {
  const index = endedIndexDir(dir)
  mkdirSync(index, { recursive: true, mode: PRIVATE_DIR_MODE })
  // Never through a link someone left in its place.
  closeSync(openSync(join(index, sessionId), constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, PRIVATE_FILE_MODE))
}

/** Removes a session's mark, if any (no index folder, or something else in its place: none). */
export const unmarkEnded = (dir: string, sessionId: string): void => {
  try {
    unlinkSync(join(endedIndexDir(dir), sessionId))
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
  }
}

/**
 * The sessions the index marks ended (names as they are; callers match them to records). An
 * index that cannot be listed marks nothing: every record is then read.
 */
export const readEndedMarks = (dir: string): Set<string> => {
  try {
    return new Set(readdirSync(endedIndexDir(dir)))
  } catch {
    return new Set()
  }
}

/** Saves an event as its own file, created exclusively, never overwritten (DESIGN §3). */
export const writePendingEvent = (dir: string, ev: HookEvent, tmpDir = tempDir(dir)): string => {
  const pdir = pendingDir(dir, ev.sessionId)
  mkdirSync(pdir, { recursive: true, mode: PRIVATE_DIR_MODE })
  mkdirSync(tmpDir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const name = `${ev.stamp.toFixed(3).padStart(18, '0')}-${process.pid}-${uniqueSuffix()}.json`
  // Written beside, then linked in: a reader never sees a half-written pending file, and the
  // link fails rather than replace an existing name.
  const tmp = join(tmpDir, `${ev.sessionId}.${name}.tmp`)
  writeFileSync(tmp, JSON.stringify(ev), { flag: 'wx', mode: PRIVATE_FILE_MODE })
  try {
    linkSync(tmp, join(pdir, name))
  } finally {
    rmSync(tmp, { force: true })
  }
  return name
}
