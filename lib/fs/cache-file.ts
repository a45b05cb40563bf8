// The one lifecycle of a cache file under $TRAILBOSS_HOME (docs/queue.md, "Caches"): read it
// without blocking or following a link, parse it, hold it to its schema (a compiled check from
// lib/cache/check.generated.js), and write it back atomically. A cache only saves work: one that
// is bad (not JSON, of another shape or version, a link, a FIFO, a file of another user) is
// ignored, said once in the log, and set right, so it never fails a command nor is said again.
import { rmSync } from 'node:fs'
import type { Env } from '../paths.js'
import { deriveHomeProblem } from './home-check.js'
import { appendHomeLog } from './home-log.js'
import { tryWriteHomeFile } from './home-file.js'
import { READ_CAP, readRegularFile } from './safe-file.js'

export interface CacheFile {
  /** The file, and the folder it lies in (made 0700 when written). */
  file: string
  dir: string
  /** The compiled check of its schema: true only for a file of this version and shape. */
  check: (data: unknown) => boolean
  /** The temp file's prefix beside it. */
  tmpPrefix: string
}

export interface CacheRead<T> {
  /** The cache, or null when there is none to use (missing, or bad). */
  value: T | null
  /** The file's text as read ('' when none): a run that changed nothing writes nothing. */
  text: string
  /** Why the file there was not used, or null (none there, or a good one). */
  bad: string | null
}

/** Pure: why a cache file's text is not one of `check`'s, or null when it is. */
export const deriveCacheProblem = (text: string, check: (data: unknown) => boolean): { data: unknown } | string => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return 'not JSON'
  }
  return check(data) ? { data } : 'not a cache of this version and shape'
}

export interface ReadCacheOptions {
  /**
   * Set a bad file right at once (removed: no cache is what the next run starts from). Off for a
   * file its writer rewrites under a lock: that writer is told by `bad` instead.
   */
  repair?: boolean
  /** Say a bad file in the log (off for a second read of it in the same run). */
  log?: boolean
}

export const readCache = <T>(env: Env, c: CacheFile, opts: ReadCacheOptions = {}): CacheRead<T> => {
  const got = readRegularFile(c.file, { cap: READ_CAP.state, ownOnly: true })
  if (!got.ok && got.missing) return { value: null, text: '', bad: null }
  const verdict = got.ok ? deriveCacheProblem(got.text, c.check) : got.why
  if (typeof verdict === 'object') return { value: verdict.data as T, text: got.ok ? got.text : '', bad: null }
  if (opts.log !== false) appendHomeLog(env, `ignored ${c.file} (${verdict}); it is rewritten`)
  // Never a file removed in a home of another user.
  if (opts.repair !== false && deriveHomeProblem(env) === null) {
    try {
      rmSync(c.file, { force: true })
    } catch {
      // A folder in its place: left to the person (doctor's checks see the home).
    }
  }
  return { value: null, text: '', bad: verdict }
}

/** Writes a cache whose loss costs only work; false when it was not written. */
export const writeCache = (env: Env, c: CacheFile, text: string): boolean => tryWriteHomeFile(env, c.dir, c.file, text, c.tmpPrefix)
