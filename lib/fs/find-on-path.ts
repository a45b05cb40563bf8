// The one PATH lookup: where a command would be found, without running a shell.
import * as fs from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'

/** The folders of a PATH value, in order (empty entries are skipped). */
export const listPathDirs = (pathVar: string | undefined): string[] => (pathVar ?? '').split(delimiter).filter((dir) => dir !== '')

const canRun = (path: string): boolean => {
  try {
    fs.accessSync(path, fs.constants.X_OK)
    return fs.statSync(path).isFile()
  } catch {
    return false
  }
}

/** The executable file `name` on this PATH (cron's is short), or null; an absolute name is checked as it is. */
export const findOnPath = (name: string, pathVar: string | undefined): string | null => {
  if (isAbsolute(name)) return canRun(name) ? name : null
  for (const dir of listPathDirs(pathVar)) {
    const candidate = join(dir, name)
    if (canRun(candidate)) return candidate
  }
  return null
}
