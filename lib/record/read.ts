// The reader: every record in the one flat sessions folder, validated with the schema, with
// pending events folded in memory (never waiting on a lock). Bad files are skipped and
// reported, never deleted and never fatal.
import { type Dirent, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionRecord } from './types.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { type Env, isValidSessionId, sessionsDir } from '../paths.js'
import { checkRecord } from './check.js'
import { readEndedMarks } from './ended-index.js'
import type { AgentRulesOf } from './agent-rules.js'
import { foldEvents } from './fold.js'
import { readPendingEvents, withPending } from './pending-events.js'
import { readSpooledEvents } from './spool-events.js'
import { myUid } from '../fs/file-stamp.js'
import {
  deriveFileStamp,
  isSettled,
  readSnapshot,
  type RecordSnapshot,
  SNAPSHOT_MAX_ENTRIES,
  type SnapshotEntry,
  statRecordFile,
  writeSnapshot,
} from './snapshot.js'

export interface SkippedFile {
  file: string
  why: string
}

export interface StoreContents {
  dir: string
  records: SessionRecord[]
  /** Ended sessions not loaded (ReadOptions.skipEnded). */
  endedIds: string[]
  skipped: SkippedFile[]
  /** Files set aside by the emitter when a record did not parse (`<id>.json.corrupt-<ms>`). */
  setAside: string[]
}

const RECORD_SUFFIX = '.json'
const PENDING_SUFFIX = '.pending'

const listDir = (dir: string): Dirent[] => {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/**
 * The state of a record file as our writer lays it out, without parsing it: the first
 * `"state":` of the file is the record's own (the fields before it are strings, whose quotes
 * JSON escapes, and the pane). Anything unexpected answers null, and the file is parsed.
 */
export const peekState = (text: string): string | null => {
  const at = text.indexOf('"state":"')
  if (at < 0) return null
  const end = text.indexOf('"', at + 9)
  return end < 0 ? null : text.slice(at + 9, end)
}

/** Why a record that vanished (gc meanwhile) was not read: not worth a line. */
const MISSING = 'missing'

/** What a read told to skip ended records answers for one. */
export const ENDED = Symbol('ended')

/** Reads one record file: the record, why it was skipped, or ENDED when told to skip those. */
const readRecordOrEnded = async (
  path: string,
  sessionId: string,
  skipEnded: boolean,
  file?: { ino: number },
): Promise<SessionRecord | string | typeof ENDED> => {
  let data: unknown
  // Never blocks on a FIFO, never follows a link, never reads more than a record can be.
  const got = readRegularFile(path, { cap: READ_CAP.record, ownOnly: true })
  if (!got.ok) return got.missing ? MISSING : got.why
  if (file) file.ino = got.st.ino
  if (skipEnded && peekState(got.text) === 'ended') return ENDED
  try {
    data = JSON.parse(got.text)
  } catch {
    return 'not valid JSON'
  }
  const parsed = await checkRecord(data)
  if (!parsed.ok) return parsed.why
  if (parsed.record.sessionId !== sessionId) return `holds session ${parsed.record.sessionId}, not ${sessionId}`
  return parsed.record
}

/** Reads one record file; returns the record or why it was skipped. */
export const readRecordFile = async (path: string, sessionId: string): Promise<SessionRecord | string> =>
  (await readRecordOrEnded(path, sessionId, false)) as SessionRecord | string

export interface ReadOptions {
  /** The rules of the agents whose events the store may hold, for folding pending and spooled events. */
  agents: AgentRulesOf
  /**
   * Note ended sessions by id only, unparsed: ls without --all and status never show them,
   * and there are hundreds (keys still count their ids). Those in the ended index are not
   * even opened. A session with pending events is read whole, since one of them may bring
   * it back.
   */
  skipEnded?: boolean
  /** Told of each record as soon as it is read (ls starts asking tmux while the rest is read). */
  onRecord?: (rec: SessionRecord) => void
  /**
   * The reader's clock, for folding pending and spooled events (record/fold.ts): a record stamped
   * ahead of it was stamped before the clock stepped back, and a later event still moves it.
   */
  now?: number
}

/** The sessions folder's names, sorted by what they are; pure. */
interface Listing {
  recordIds: string[]
  /** Sessions with pending events (or spooled ones, added by the reader). */
  pendingIds: Set<string>
  skipped: SkippedFile[]
  setAside: string[]
}

export const classifyListing = (dir: string, entries: readonly Pick<Dirent, 'name' | 'isDirectory'>[]): Listing => {
  const out: Listing = { recordIds: [], pendingIds: new Set(), skipped: [], setAside: [] }
  for (const e of entries) {
    if (e.name.startsWith('.')) continue
    if (e.isDirectory() && e.name.endsWith(PENDING_SUFFIX)) out.pendingIds.add(e.name.slice(0, -PENDING_SUFFIX.length))
    else if (e.name.includes('.json.corrupt-')) out.setAside.push(join(dir, e.name))
    else if (e.name.endsWith(RECORD_SUFFIX) && !e.isDirectory()) {
      const id = e.name.slice(0, -RECORD_SUFFIX.length)
      if (isValidSessionId(id)) out.recordIds.push(id)
      else out.skipped.push({ file: join(dir, e.name), why: 'its name is not a session id' })
    }
  }
  return out
}

/** One record as a reader sees it: from the snapshot when its file is unchanged, else read and checked. */
interface RecordSource {
  dir: string
  snapshot: RecordSnapshot | null
  remembered: Map<string, SnapshotEntry>
  readAt: number
  uid: bigint | null
}

const readOneRecord = async (src: RecordSource, id: string, skipEnded: boolean): Promise<SessionRecord | string | typeof ENDED> => {
  const file = `${src.dir}${id}${RECORD_SUFFIX}`
  // Only a remembered record costs an lstat first; any other is read as without a snapshot.
  const hit = src.snapshot?.entries.get(id)
  const st = hit ? statRecordFile(file, src.uid) : null
  if (hit && st && hit.k === deriveFileStamp(st)) {
    src.remembered.set(id, hit)
    return hit.r
  }
  const read = { ino: -1 }
  const rec = await readRecordOrEnded(file, id, skipEnded, read)
  // A checked live record, once its file has settled. Stamped after the read: the same inode
  // with a ctime older than this run began was not written since, so the text read is its.
  if (src.snapshot && typeof rec === 'object' && rec.state !== 'ended' && src.remembered.size < SNAPSHOT_MAX_ENTRIES) {
    const after = statRecordFile(file, src.uid)
    if (after && Number(after.ino) === read.ino && isSettled(after.ctimeNs, src.readAt))
      src.remembered.set(id, { k: deriveFileStamp(after), r: rec })
  }
  return rec
}

export const readStore = async (env: Env, dir: string, opts: ReadOptions): Promise<StoreContents> => {
  // A home of another user may hold anything they planted: one line for it, no record read.
  const foreign = deriveHomeProblem(env)
  if (foreign)
    return {
      dir,
      records: [],
      endedIds: [],
      skipped: [{ file: foreign.folder, why: `${foreign.why} — ${FOREIGN_HOME_HINT}` }],
      setAside: [],
    }
  // Events hooks/spool.sh stored that no fold has written yet (record/spool.ts): like pending
  // events, they make a session read whole, and may be all there is of it. Read before the
  // folder is listed: a fold removes a spool file only after writing its record, so an event
  // gone from the spool by now is in a record file this listing sees (read twice, it changes
  // nothing), where read after the listing a new session's first event could be in neither.
  const now = opts.now ?? Date.now()
  const spooled = readSpooledEvents(dir, env, () => process.getBuiltinModule('node:os').hostname(), opts.agents, undefined, now)
  const { recordIds, pendingIds, skipped, setAside } = classifyListing(dir, listDir(dir))
  for (const id of spooled.keys()) pendingIds.add(id)
  /** A record with what is pending or spooled for it folded in, in memory. */
  const withUnwritten = (id: string, rec: SessionRecord | null, folded: readonly string[]): SessionRecord | null => {
    const merged = withPending(rec, readPendingEvents(dir, id, folded), opts.agents, now)
    const evs = spooled.get(id)
    return evs ? foldEvents(merged, evs, opts.agents, now) : merged
  }
  const records: SessionRecord[] = []
  const endedIds: string[] = []
  const seen = new Set<string>()
  const skipEnded = opts.skipEnded === true
  // The ended index (record/ended-index.ts) saves opening hundreds of ended records.
  const marked = skipEnded ? readEndedMarks(dir) : new Set<string>()
  // Records checked by an earlier run (record/snapshot.ts), only for the home's own folder; the
  // folder normalised once: path.join per record is a visible part of a hundred reads.
  const snapshot = dir === sessionsDir(env) ? readSnapshot(env, dir) : null
  // A file counts as settled by the reader's clock (`now`): a test, or a caller that read the
  // folder earlier, pins it, and a slow run never makes a young file look settled.
  const src: RecordSource = { dir: join(dir, '/'), snapshot, remembered: new Map(), readAt: now, uid: myUid() }
  const keep = (rec: SessionRecord | null): void => {
    if (!rec) return
    records.push(rec)
    opts.onRecord?.(rec)
  }
  for (const id of recordIds) {
    if (marked.has(id) && !pendingIds.has(id)) {
      endedIds.push(id)
      continue
    }
    const rec = await readOneRecord(src, id, skipEnded && !pendingIds.has(id))
    seen.add(id)
    if (rec === ENDED) endedIds.push(id)
    else if (typeof rec === 'string') {
      if (rec !== MISSING) skipped.push({ file: `${src.dir}${id}${RECORD_SUFFIX}`, why: rec })
    } else keep(pendingIds.has(id) ? withUnwritten(id, rec, rec.foldedPending) : rec)
  }
  // Before anything else holds the records: entries of files gone or changed drop out.
  if (snapshot) writeSnapshot(env, snapshot, src.remembered)
  // Events of a session whose first write lost the lock race exist only as pending files (or spooled).
  for (const id of pendingIds) if (!seen.has(id) && isValidSessionId(id)) keep(withUnwritten(id, null, []))
  return { dir, records, endedIds, skipped, setAside }
}
