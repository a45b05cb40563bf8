// Reads of files that may rightly be missing: absent is an answer (null), anything else an error.
import { readFileSync, readdirSync } from 'node:fs'

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT'

/** The file's text, or null when it does not exist. */
export const readTextIfExists = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    if (isMissing(err)) return null
    throw err
  }
}

/** The folder's entry names, or none when it does not exist. */
export const readDirIfExists = (dir: string): string[] => {
  try {
    return readdirSync(dir)
  } catch (err) {
    if (isMissing(err)) return []
    throw err
  }
}
