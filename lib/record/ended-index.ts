// The ended index (sessions/.ended/<id>, empty files), so readers that do not show ended
// sessions count them without opening hundreds of records. Its one rule: a mark exists only
// while its session's record says `ended`. So only a lock holder marks, after writing an ended
// record; and a record that stops being ended loses its mark before it is written. Removing a
// mark is always safe (the reader then opens the record): it is all `gc` ever does to the
// index, and the fix `doctor` prints for a mark on a live session.
import { closeSync, constants, mkdirSync, openSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { isRealDir, listRealDir, removeOwnFolder } from '../fs/own-files.js'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../fs/private-dir.js'
import type { Logger } from '../logger.js'
import { endedIndexDir } from '../paths.js'
import type { LiveState } from './types.js'

/** Marks a session ended; called under its lock, after its ended record is on disk. */
export const markEnded = (dir: string, sessionId: string): void => {
  const index = endedIndexDir(dir)
  mkdirSync(index, { recursive: true, mode: PRIVATE_DIR_MODE })
  // Never into a folder elsewhere that a link in its place points to, nor through a link.
  if (!isRealDir(index)) throw new Error(`${index} is not a folder of ours`)
  // O_NONBLOCK: a FIFO planted in a mark's place fails at once (ENXIO) instead of holding the
  // lock holder until a reader comes; a mark that cannot be made only costs readers a read.
  closeSync(
    openSync(
      join(index, sessionId),
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      PRIVATE_FILE_MODE,
    ),
  )
}

/** Removes a session's mark, if any (no index folder, or something else in its place: none). */
export const unmarkEnded = (dir: string, sessionId: string): void => {
  // A link in the index's place marks nothing (readEndedMarks): nothing to remove through it.
  if (!isRealDir(endedIndexDir(dir))) return
  try {
    unlinkSync(join(endedIndexDir(dir), sessionId))
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
  }
}

/**
 * The sessions the index marks ended (names as they are; callers match them to records). An
 * index that cannot be listed, or is a link, marks nothing: every record is then read. Only
 * regular files are marks.
 */
export const readEndedMarks = (dir: string): Set<string> => {
  // A plain loop: this runs once per `ls` over hundreds of marks, in code too cold to be optimised.
  const marks = new Set<string>()
  for (const e of listRealDir(endedIndexDir(dir))) if (e.isFile()) marks.add(e.name)
  return marks
}

/**
 * Under the lock, before a record is written: a session that comes back loses its mark first,
 * and so does a first record (`before` null), where a mark may have outlived a record removed
 * or set aside. A mark that cannot be removed would hide a live session from `ls`, so then the
 * index's marks go (readers open every record); the event is written either way.
 */
export const unmarkBeforeWrite = (dir: string, sessionId: string, before: LiveState | null, after: LiveState, log: Logger): void => {
  if (after === 'ended' || (before !== null && before !== 'ended')) return
  try {
    unmarkEnded(dir, sessionId)
  } catch (err) {
    // Only regular files are marks (readEndedMarks), so what stays here hides nothing.
    const dropped = removeOwnFolder(endedIndexDir(dir), () => true)
    log(
      `could not unmark ${sessionId} in the ended index (${(err as Error).message}); ${dropped ? 'dropped the index' : 'left the rest of the index'}`,
    )
  }
}

/** Under the lock, after an ended record is on disk: a mark that cannot be made only costs readers a read. */
export const markAfterWrite = (dir: string, sessionId: string, after: LiveState, log: Logger): void => {
  if (after !== 'ended') return
  try {
    markEnded(dir, sessionId)
  } catch (err) {
    log(`could not mark ${sessionId} ended in the index: ${(err as Error).message}`)
  }
}
