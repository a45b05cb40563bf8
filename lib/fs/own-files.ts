// Removing our own leftovers without ever reaching past them: folders are entered only when
// lstat says they are real folders (a planted `.tmp` or `.ended` link leads nowhere), only
// regular files are unlinked, and only empty folders are removed. Nothing here recurses.
import { type Dirent, lstatSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'

/** True when `path` itself (not what a link points to) is a folder. */
export const isRealDir = (path: string): boolean => {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * The entries of a real folder, typed as they are (never through a link); none when `dir` is
 * missing, a link, or anything but a folder.
 */
export const listRealDir = (dir: string): Dirent[] => {
  if (!isRealDir(dir)) return []
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

/** Unlinks `path` when it is a regular file (found with lstat); says whether it did. */
export const removeOwnFile = (path: string): boolean => {
  try {
    if (!lstatSync(path).isFile()) return false
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}

/** Removes `path` when it is a real, empty folder; says whether it did. */
export const removeOwnEmptyDir = (path: string): boolean => {
  try {
    if (!lstatSync(path).isDirectory()) return false
    rmdirSync(path)
    return true
  } catch {
    return false
  }
}

/**
 * Empties a real folder of its regular files whose names `ours` accepts, then removes it if
 * nothing else is left. Links, subfolders and foreign names stay; says whether the folder went.
 */
export const removeOwnFolder = (dir: string, ours: (name: string) => boolean): boolean => {
  for (const e of listRealDir(dir)) if (e.isFile() && ours(e.name)) removeOwnFile(join(dir, e.name))
  return removeOwnEmptyDir(dir)
}

/** mtime of `path` itself (lstat), or null when it is gone. */
export const ownMtimeMs = (path: string): number | null => {
  try {
    return lstatSync(path).mtimeMs
  } catch {
    return null
  }
}
