// proper-lockfile retries every failure, not only a lock held by another process: on a
// read-only file system (or a folder we may not write) a lock with a 30 s retry budget spent
// 30 s failing the same way. The first attempt here tells the two apart: only a busy lock is
// worth waiting for; anything else fails at once.
import lockfile, { type LockOptions } from 'proper-lockfile'

export type Release = () => Promise<void>

/** Why a path cannot be written, in words, for errors proper-lockfile or fs report. */
export const describeWriteError = (err: unknown): string => {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EROFS') return 'read-only file system'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'ENOSPC') return 'no space left on the device'
  if (code === 'EDQUOT') return 'disk quota exceeded'
  return (err as Error).message
}

/** Locks `file`; waits (as `options.retries` says) only while another process holds the lock. */
export const lockNow = async (file: string, options: LockOptions): Promise<Release> => {
  try {
    return await lockfile.lock(file, { ...options, retries: 0 })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || !options.retries) throw err
  }
  return lockfile.lock(file, options)
}
