// The numbers book's one writer (lib/queue/numbers.ts): under the book's lock, read it again,
// number the waits, write it when it changed. Apart from numbers.ts so that proper-lockfile loads
// only in a run whose waits changed, not in every `ls` and `status`.
import { LOCK_BUDGET_MS, LOCK_STALE_MS } from '../record/write.js'
import { lockNow, shortLockOptions } from '../fs/lock-now.js'
import { writeHomeFile } from '../fs/home-file.js'
import { type Env, trailbossHome } from '../paths.js'
import { deriveNumbering, formatNumbers, type NumberedWait, type Numbering, numbersFile, readNumbers } from './numbers.js'

/**
 * Numbers the waits as the book says, and writes the book. Null when the lock was not had within
 * LOCK_BUDGET_MS (the emitter's own bound: a reader never waits longer on a writer) or the home
 * cannot be written: the caller then numbers from what it read, for this run only.
 */
export const writeNumbering = async (
  env: Env,
  waits: readonly NumberedWait[],
  now: number,
  unread?: (sessionId: string) => boolean,
): Promise<Numbering | null> => {
  const file = numbersFile(env)
  let release: () => Promise<void>
  try {
    release = await lockNow(file, shortLockOptions(LOCK_BUDGET_MS, LOCK_STALE_MS))
  } catch {
    return null
  }
  try {
    const book = readNumbers(env, { underLock: true })
    const numbering = deriveNumbering(book.entries, waits, now, undefined, unread)
    if (numbering.changed || book.bad) writeHomeFile(env, trailbossHome(env), file, formatNumbers(numbering.entries), '.numbers')
    return numbering
  } catch {
    return null
  } finally {
    await release().catch(() => {})
  }
}
