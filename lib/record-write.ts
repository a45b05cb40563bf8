// The record store's write path: lock a session's file, fold events in, write it atomically.
// It is the emitter's path too, so it stays free of zod and every other heavy import.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import { join } from 'node:path'
import lockfile from 'proper-lockfile'
import { applyEvent, foldEvents, type HookEvent, type SessionRecord } from './events.js'
import { pendingDir, recordFile, tempDir } from './paths.js'

/** How long an emitter tries for the lock before it drops its event as a pending file. */
export const LOCK_BUDGET_MS = 300
/** A lock older than this belongs to a dead holder; proper-lockfile will not go below 2 s. */
export const LOCK_STALE_MS = 3000
/** A temp file this old was left by a writer that died between write and rename. */
export const TEMP_LEFTOVER_MS = 10_000

export type Logger = (line: string) => void

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/**
 * Creates the folder 0700, and tightens one a person pre-created looser (sessions hold
 * commands and messages from their agents).
 */
export const ensurePrivateDir = (dir: string, log: Logger = () => {}): void => {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const mode = fs.statSync(dir).mode & 0o777
  if (mode !== PRIVATE_DIR_MODE) {
    fs.chmodSync(dir, PRIVATE_DIR_MODE)
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

const readDirNames = (dir: string): string[] => {
  try {
    return fs.readdirSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/**
 * Pending events of a session that are not yet in its record. Readers call this without the
 * lock, so a dead lock holder never keeps an event from view.
 */
export const readPendingEvents = (dir: string, sessionId: string, folded: readonly string[], log: Logger = () => {}): PendingEvent[] => {
  const pdir = pendingDir(dir, sessionId)
  const skip = new Set(folded)
  const out: PendingEvent[] = []
  for (const name of readDirNames(pdir)) {
    if (!name.endsWith('.json') || skip.has(name)) continue
    try {
      const event: unknown = JSON.parse(fs.readFileSync(join(pdir, name), 'utf8'))
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

/** Writes `data` to `file` atomically: a temp file created exclusively, then a rename. */
export const writeFileAtomic = (file: string, data: string, tmpDir: string, tmpPrefix: string): void => {
  const tmp = join(tmpDir, `${tmpPrefix}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    fs.writeFileSync(tmp, data, { flag: 'wx', mode: PRIVATE_FILE_MODE })
    fs.renameSync(tmp, file)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
}

const readRecordFile = (file: string, sessionId: string, log: Logger): SessionRecord | null => {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (looksLikeRecord(parsed, sessionId)) return parsed
  // Never delete what we cannot read: set it aside for `doctor`, and start afresh.
  const aside = `${file}.corrupt-${Date.now()}`
  fs.renameSync(file, aside)
  log(`record ${file} did not parse; moved to ${aside}`)
  return null
}

/** Leftovers of writers that died: only a lock holder removes them, and says so (DESIGN §3). */
const removeLeftovers = (dir: string, rec: SessionRecord | null, sessionId: string, now: number, log: Logger): void => {
  const pdir = pendingDir(dir, sessionId)
  for (const name of rec?.foldedPending ?? []) fs.rmSync(join(pdir, name), { force: true })
  const tdir = tempDir(dir)
  for (const name of readDirNames(tdir)) {
    if (!name.startsWith(`${sessionId}.`)) continue
    const path = join(tdir, name)
    try {
      if (now - fs.statSync(path).mtimeMs > TEMP_LEFTOVER_MS) {
        fs.rmSync(path, { force: true })
        log(`removed leftover temp file ${path}`)
      }
    } catch {
      // Gone already: another holder cleaned it.
    }
  }
}

export interface RecordEventOptions {
  lockBudgetMs?: number
  log?: Logger
  now?: () => number
  /** Called the moment the event is on disk, so a caller's own deadline knows it is safe. */
  onSaved?: (outcome: RecordOutcome) => void
}

export type RecordOutcome = 'written' | 'pending'

/**
 * Applies one event to its session's record under the session's lock, folding in any pending
 * events first. When the lock is not had within the budget (a busy or dead holder), the event
 * is saved as its own pending file instead, so it is never lost and the agent never waits.
 */
export const recordEvent = async (dir: string, ev: HookEvent, opts: RecordEventOptions = {}): Promise<RecordOutcome> => {
  const log = opts.log ?? (() => {})
  const now = opts.now ?? Date.now
  const budget = opts.lockBudgetMs ?? LOCK_BUDGET_MS
  const file = recordFile(dir, ev.sessionId)
  let release: (() => Promise<void>) | undefined
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: LOCK_STALE_MS,
      update: LOCK_STALE_MS / 2,
      retries: { retries: 1000, factor: 1.4, minTimeout: 2, maxTimeout: 40, randomize: true, maxRetryTime: budget },
      onCompromised: (err) => log(`lock of ${file} compromised: ${err.message}`),
    })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') log(`lock of ${file} failed: ${(err as Error).message}`)
    writePendingEvent(dir, ev)
    opts.onSaved?.('pending')
    return 'pending'
  }
  try {
    const onDisk = readRecordFile(file, ev.sessionId, log)
    removeLeftovers(dir, onDisk, ev.sessionId, now(), log)
    const pending = readPendingEvents(dir, ev.sessionId, [], log)
    const folded = withPending(onDisk, pending)
    const next = applyEvent(folded, ev)
    next.foldedPending = pending.map((p) => p.file)
    fs.mkdirSync(tempDir(dir), { recursive: true, mode: PRIVATE_DIR_MODE })
    writeFileAtomic(file, JSON.stringify(next), tempDir(dir), ev.sessionId)
    opts.onSaved?.('written')
    const pdir = pendingDir(dir, ev.sessionId)
    for (const p of pending) fs.rmSync(join(pdir, p.file), { force: true })
    return 'written'
  } finally {
    await release().catch((err: Error) => log(`unlock of ${file} failed: ${err.message}`))
  }
}

/** Saves an event as its own file, created exclusively, never overwritten (DESIGN §3). */
export const writePendingEvent = (dir: string, ev: HookEvent): string => {
  const pdir = pendingDir(dir, ev.sessionId)
  fs.mkdirSync(pdir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const name = `${ev.stamp.toFixed(3).padStart(18, '0')}-${process.pid}-${randomBytes(3).toString('hex')}.json`
  fs.writeFileSync(join(pdir, name), JSON.stringify(ev), { flag: 'wx', mode: PRIVATE_FILE_MODE })
  return name
}
