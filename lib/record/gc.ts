// The store's side of `trailboss gc`: list what it may remove, retire a session under its lock,
// remove a leftover. What to remove is decided by lib/record/gc-plan.ts; regular files named
// as ours only, never through a link (lib/fs/own-files.ts).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { lockNow } from '../fs/lock-now.js'
import { listRealDir, ownMtimeMs, removeOwnEmptyDir, removeOwnFile, removeOwnFolder } from '../fs/own-files.js'
import { endedIndexDir, isValidSessionId, pendingDir, recordFile, tempDir } from '../paths.js'
import { readEndedMarks, unmarkEnded } from './ended-index.js'
import { type GcPlan, type Leftover, planGc, type StoreListing } from './gc-plan.js'
import { readRecordFile } from './read.js'
import { spoolDir } from './spool.js'
import { listLostSpool } from './spool-lost.js'
import { LOCK_STALE_MS, TEMP_LEFTOVER_MS } from './write.js'

/**
 * Our own leftovers in the sessions folder `dir`, found with lstat: a `.tmp` or `.ended` that is
 * a link, a FIFO named like a temp file, a lock that is no folder: none of them is listed.
 */
export const listStore = (dir: string): StoreListing => {
  const tdir = tempDir(dir)
  const at = (path: string) => ({ path, mtimeMs: ownMtimeMs(path) })
  return {
    temps: listRealDir(tdir).flatMap((e) => (e.isFile() && e.name.endsWith('.tmp') ? [at(join(tdir, e.name))] : [])),
    locks: listRealDir(dir).flatMap((e) => (e.isDirectory() && e.name.endsWith('.json.lock') ? [at(join(dir, e.name))] : [])),
    marks: [...readEndedMarks(dir)].map((id) => ({
      id,
      path: join(endedIndexDir(dir), id),
      recordExists: isValidSessionId(id) ? existsSync(recordFile(dir, id)) : null,
    })),
    lost: listLostSpool(spoolDir(dir)),
  }
}

/** The plan for the store in `dir` now: leftovers past their stale times, lost events past `olderThanMs`. */
export const readGcPlan = (dir: string, now: number, olderThanMs: number): GcPlan =>
  planGc(listStore(dir), now, olderThanMs, { tempMs: TEMP_LEFTOVER_MS, lockMs: LOCK_STALE_MS * 2 })

/** Removes one leftover (a lock folder only when empty); false when it was not ours or is gone. */
export const removeLeftover = (leftover: Leftover): boolean =>
  leftover.kind === 'file' ? removeOwnFile(leftover.path) : removeOwnEmptyDir(leftover.path)

/**
 * Removes a session's record, its pending events and its ended mark, under its lock; false when
 * the lock is busy or an event landed since `lastEventAt` (the session is not done after all).
 */
export const retireSession = async (dir: string, sessionId: string, lastEventAt: number): Promise<boolean> => {
  const file = recordFile(dir, sessionId)
  let release: (() => Promise<void>) | undefined
  try {
    release = await lockNow(file, { realpath: false, stale: LOCK_STALE_MS, retries: { retries: 5, minTimeout: 20, maxTimeout: 200 } })
  } catch {
    return false // busy: an event is arriving, so the session is not done after all
  }
  try {
    // An event may have landed since the queue was read: then leave the session alone.
    const now = existsSync(file) ? await readRecordFile(file, sessionId) : null
    if (now !== null && (typeof now === 'string' || now.lastEventAt !== lastEventAt)) return false
    removeOwnFile(file)
    removeOwnFolder(pendingDir(dir, sessionId), (name) => name.endsWith('.json'))
    unmarkEnded(dir, sessionId)
    return true
  } finally {
    await release()
  }
}
