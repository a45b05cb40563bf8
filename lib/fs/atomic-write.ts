// Atomic writes: a temp file created exclusively, written, then renamed over the target.
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE_MODE } from './private-dir.js'

/**
 * A suffix that makes a file name unique among writers (with the pid beside it): no crypto,
 * whose module costs the emitter's start-up more than it gives; `wx` and `link` catch a clash.
 */
export const uniqueSuffix = (): string => `${process.hrtime.bigint().toString(36)}${Math.random().toString(36).slice(2, 6)}`

/** Writes `data` to `file` atomically: a temp file created exclusively, then a rename. */
export const writeFileAtomic = (file: string, data: string, tmpDir: string, tmpPrefix: string): void => {
  const tmp = join(tmpDir, `${tmpPrefix}.${process.pid}.${uniqueSuffix()}.tmp`)
  try {
    writeFileSync(tmp, data, { flag: 'wx', mode: PRIVATE_FILE_MODE })
    renameSync(tmp, file)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}
