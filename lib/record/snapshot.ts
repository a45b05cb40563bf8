// Checked records remembered between runs ($TRAILBOSS_HOME/records.json): `ls` and `status`
// run every few seconds over the same hundred live records, and an unchanged record file then
// costs one lstat instead of an open, a read, a parse and a schema check. Each entry is keyed
// by its file's identity and change stamp; any write of the file (the emitter renames a new
// one into place: new inode, new ctime) misses it, and the file is read and checked as ever.
import type { BigIntStats } from 'node:fs'
import { join } from 'node:path'
import type { SessionRecord } from './types.js'
import { statOwnRegularFile } from '../fs/file-stamp.js'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { type Env, trailbossHome } from '../paths.js'
import { looksLikeRecord } from './light-check.js'

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

/** Pure: the snapshot a file's text holds for `dir`; anything unexpected is no snapshot. */
export const parseSnapshot = (text: string, dir: string): RecordSnapshot | null => {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof v !== 'object' || v === null) return null
  const file = v as { v?: unknown; dir?: unknown; entries?: unknown }
  if (file.v !== SNAPSHOT_VERSION || file.dir !== dir || typeof file.entries !== 'object' || file.entries === null || Array.isArray(file.entries)) return null
  const entries = new Map<string, SnapshotEntry>()
  for (const [id, e] of Object.entries(file.entries as Record<string, unknown>)) {
    const entry = e as Partial<SnapshotEntry> | null
    // Only the shape is checked again (the schema check was passed when it was remembered).
    if (typeof entry !== 'object' || entry === null || typeof entry.k !== 'string' || !looksLikeRecord(entry.r, id)) continue
    entries.set(id, { k: entry.k, r: entry.r })
  }
  return { dir, entries }
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
export const readSnapshot = (env: Env, dir: string): RecordSnapshot => {
  // Never blocks on a FIFO, never follows a link, never reads past a state file's cap.
  const got = readRegularFile(snapshotFile(env), { cap: READ_CAP.state, ownOnly: true })
  return (got.ok ? parseSnapshot(got.text, dir) : null) ?? { dir, entries: new Map() }
}

/** Written only when it changed; one that cannot be written costs a read of each record next time. */
export const writeSnapshot = (env: Env, before: RecordSnapshot, entries: ReadonlyMap<string, SnapshotEntry>): void => {
  if (sameEntries(before.entries, entries)) return
  const text = formatSnapshot(before.dir, entries)
  // Records of the schema's largest kind could outgrow what a reader takes: none is written then.
  if (text.length > READ_CAP.state) return
  tryWriteHomeFile(env, trailbossHome(env), snapshotFile(env), text, '.records')
}
