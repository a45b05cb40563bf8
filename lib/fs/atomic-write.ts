// The one atomic write: a temp file created exclusively (never through a link), written, then
// renamed over the target, so a reader sees the old file or the new one, never a part. With
// `durable`, the data and the rename are flushed to disk first (the person's settings, what
// notify told); records skip that: the emitter's hot path, and a record is rebuilt by the next event.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE_MODE } from './private-dir.js'

/**
 * A suffix that makes a file name unique among writers (with the pid beside it): no crypto,
 * whose module costs the emitter's start-up more than it gives; `wx` and `link` catch a clash.
 */
export const uniqueSuffix = (): string => `${process.hrtime.bigint().toString(36)}${Math.random().toString(36).slice(2, 6)}`

export interface AtomicWriteOptions {
  /** The file's mode (default 0600), set whatever the umask. */
  mode?: number
  /** fsync the file before the rename and its folder after it. */
  durable?: boolean
}

const fsyncFolder = (dir: string): void => {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Some filesystems cannot fsync a folder; the rename is still atomic.
  }
}

/**
 * Writes `data` to `file` atomically. The temp file, `<tmpPrefix>.<pid>.<unique>.tmp`, goes in
 * `tmpDir`, which must be on the file's filesystem (a rename cannot cross one).
 */
export const writeFileAtomic = (file: string, data: string, tmpDir: string, tmpPrefix: string, opts: AtomicWriteOptions = {}): void => {
  const mode = opts.mode ?? PRIVATE_FILE_MODE
  const tmp = join(tmpDir, `${tmpPrefix}.${process.pid}.${uniqueSuffix()}.tmp`)
  try {
    const fd = openSync(tmp, 'wx', mode)
    try {
      writeFileSync(fd, data)
      if (opts.mode !== undefined) fchmodSync(fd, mode)
      if (opts.durable) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, file)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
  if (opts.durable) fsyncFolder(tmpDir)
}
