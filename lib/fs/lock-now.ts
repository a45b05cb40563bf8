// proper-lockfile retries every failure, not only a lock held by another process: on a
// read-only file system (or a folder we may not write) a lock with a 30 s retry budget spent
// 30 s failing the same way. The first attempt here tells the two apart: only a busy lock is
// worth waiting for; anything else fails at once. That first attempt uses proper-lockfile's
// synchronous API (retries are all it lacks): the async one sends each mkdir and stat to
// libuv's thread pool, whose threads a short process (the emitter, on every agent event)
// would start, and then wait on, only for this.
import { mkdir, mkdirSync, realpath, realpathSync, rmdir, rmdirSync, stat, statSync, utimes, utimesSync } from 'node:fs'
import lockfile, { type LockOptions } from 'proper-lockfile'

export type Release = () => Promise<void>

/**
 * The calls proper-lockfile makes on its `fs`, and nothing else: its synchronous API copies the
 * `fs` it is given with a spread, and a spread of node:fs reads every one of its lazy getters,
 * which loads Node's stream modules.
 */
const lockFs = { mkdir, mkdirSync, realpath, realpathSync, rmdir, rmdirSync, stat, statSync, utimes, utimesSync }

/** Why a path cannot be written, in words, for errors proper-lockfile or fs report. */
export const describeWriteError = (err: unknown): string => {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EROFS') return 'read-only file system'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'ENOSPC') return 'no space left on the device'
  if (code === 'EDQUOT') return 'disk quota exceeded'
  return (err as Error).message
}

/**
 * The options of a lock a short process holds for one write and waits for at most `budgetMs`
 * (the emitter's record lock, the readers' numbers book): quick retries, stale after `staleMs`.
 */
export const shortLockOptions = (budgetMs: number, staleMs: number, onCompromised?: (err: Error) => void): LockOptions => ({
  realpath: false,
  stale: staleMs,
  update: staleMs / 2,
  retries: { retries: 1000, factor: 1.4, minTimeout: 2, maxTimeout: 40, randomize: true, maxRetryTime: budgetMs },
  ...(onCompromised ? { onCompromised } : {}),
})

/** Locks `file`; waits (as `options.retries` says) only while another process holds the lock. */
export const lockNow = async (file: string, options: LockOptions): Promise<Release> => {
  try {
    const release = lockfile.lockSync(file, { fs: lockFs, ...options, retries: 0 })
    return async () => release()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || !options.retries) throw err
  }
  return lockfile.lock(file, options)
}
