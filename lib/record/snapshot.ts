// Checked records remembered between runs ($TRAILBOSS_HOME/records.json): `ls` and `status`
// run every few seconds over the same hundred live records, and an unchanged record file then
// costs one lstat instead of an open, a read, a parse and a schema check. Each entry is keyed
// by its file's identity and change stamp; any write of the file (the emitter renames a new
// one into place: new inode, new ctime) misses it, and the file is read and checked as ever.
import type { BigIntStats } from 'node:fs'
import { join } from 'node:path'
import type { SessionRecord } from './types.js'
import { statOwnRegularFile } from '../fs/file-stamp.js'
import { checkRecords } from '../cache/check.generated.js'
import { validate as validateRecord } from './check.generated.js'
import { type CacheFile, deriveCacheProblem, readCache, writeCache } from '../fs/cache-file.js'
import { READ_CAP } from '../fs/safe-file.js'
import { type Env, trailbossHome } from '../paths.js'

export { deriveFileStamp, isSettled, SETTLED_MS } from '../fs/file-stamp.js'

/** Bumped when what an entry holds changes: a snapshot of another version is none. */
export const SNAPSHOT_VERSION = 1
/** Far above the live sessions of one person; the rest is read as without a snapshot. */
export const SNAPSHOT_MAX_ENTRIES = 1000
export interface SnapshotEntry {
  /** deriveFileStamp of the file the record was read from. */
  k: string
  r: SessionRecord
}

export interface RecordSnapshot {
  /** The sessions folder the entries came from: a snapshot copied from another home is none. */
  dir: string
  entries: Map<string, SnapshotEntry>
}

/**
 * The lstat of a record file when the snapshot may stand for it: a regular file of our own
 * within a record's cap; anything else goes to the safe reader, which refuses it as ever.
 */
export const statRecordFile = (path: string, uid: bigint | null): BigIntStats | null => statOwnRegularFile(path, uid, READ_CAP.record)

export const snapshotFile = (env: Env): string => join(trailbossHome(env), 'records.json')

const snapshotCache = (env: Env): CacheFile => ({
  file: snapshotFile(env),
  dir: trailbossHome(env),
  check: checkRecords,
  tmpPrefix: '.records',
})

interface SnapshotFile {
  dir: string
  entries: Record<string, SnapshotEntry>
}

/** Pure: the snapshot of a file that passed its check, for `dir`; a snapshot of another folder is none. */
const toSnapshot = (file: SnapshotFile | null, dir: string): RecordSnapshot | null => {
  if (!file || file.dir !== dir) return null
  // An entry under another session's id is none (its record would stand for the wrong file), and
  // so is one the record's compiled check refuses (the check `readStore` runs on every file).
  return { dir, entries: new Map(Object.entries(file.entries).filter(([id, e]) => validateRecord(e.r) && e.r.sessionId === id)) }
}

/** Pure: the snapshot a file's text holds for `dir`; anything unexpected is no snapshot. */
export const parseSnapshot = (text: string, dir: string): RecordSnapshot | null => {
  const got = deriveCacheProblem(text, checkRecords)
  return toSnapshot(typeof got === 'object' ? (got.data as SnapshotFile) : null, dir)
}

/** Pure: the file's text for these entries. */
export const formatSnapshot = (dir: string, entries: ReadonlyMap<string, SnapshotEntry>): string =>
  JSON.stringify({ v: SNAPSHOT_VERSION, dir, entries: Object.fromEntries(entries) })

/** Pure: whether two snapshots hold the same files (the records follow from the stamps). */
export const sameEntries = (a: ReadonlyMap<string, SnapshotEntry>, b: ReadonlyMap<string, SnapshotEntry>): boolean => {
  if (a.size !== b.size) return false
  for (const [id, e] of a) if (b.get(id)?.k !== e.k) return false
  return true
}

/** The snapshot of `dir`'s records; missing, unreadable, corrupt or of another kind = empty. */
export const readSnapshot = (env: Env, dir: string): RecordSnapshot =>
  toSnapshot(readCache<SnapshotFile>(env, snapshotCache(env)).value, dir) ?? { dir, entries: new Map() }

/** Written only when it changed; one that cannot be written costs a read of each record next time. */
export const writeSnapshot = (env: Env, before: RecordSnapshot, entries: ReadonlyMap<string, SnapshotEntry>): void => {
  if (sameEntries(before.entries, entries)) return
  const text = formatSnapshot(before.dir, entries)
  // Records of the schema's largest kind could outgrow what a reader takes: none is written then.
  if (text.length > READ_CAP.state) return
  writeCache(env, snapshotCache(env), text)
}
