// The note `install` keeps of what a settings file (or Codex's config.toml) was before its first
// install, one file per settings file under $TRAILBOSS_HOME/installs/, named by a hash of its
// path: a person's paths are not spelled out in our file names. It holds the file's empty hook
// containers (settings/empty-hooks.ts), what the file held when it held nothing (no file, or
// blank text) and the folders install created for it, so `uninstall` can give the home back as
// it was. Best effort both ways: without a note (another machine, an older install) `uninstall`
// removes what only our entries filled, as it always has, and leaves the file.
import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomic } from '../fs/atomic-write.js'
import { deriveHomeProblem } from '../fs/home-check.js'
import { ensurePrivateDir } from '../fs/private-dir.js'
import { READ_CAP, readRegularIfExists } from '../fs/safe-file.js'
import { trailbossHome, type Env } from '../paths.js'
import { type EmptyHooks, isEmptyHooks } from './empty-hooks.js'
import { isJsonObject } from './json-value.js'

const notesDir = (env: Env): string => join(trailbossHome(env), 'installs')

/** The note's file for a settings file (its resolved path, as the update writes it). */
export const installNoteFile = (env: Env, target: string): string =>
  join(notesDir(env), `${createHash('sha256').update(target).digest('hex').slice(0, 32)}.json`)

export interface InstallNote {
  /** The empty hook containers the file held, or null (none, or not JSON). */
  empties: EmptyHooks | null
  /**
   * What the file held when it held nothing: null, no file (uninstall removes it when nothing
   * but ours is left), or its blank text (written back); undefined when it held settings.
   */
  held?: string | null
  /** The folders install created to hold it, outermost first: uninstall removes those left empty. */
  dirs: string[]
}

/** Whether a note says anything uninstall needs. */
const isWorthKeeping = (note: InstallNote): boolean => note.empties !== null || note.held !== undefined || note.dirs.length > 0

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((e) => typeof e === 'string')

/** The note for this settings file, or null: none, unreadable, or not about this path. */
export const readInstallNote = (env: Env, target: string): InstallNote | null => {
  if (deriveHomeProblem(env)) return null
  const text = readRegularIfExists(installNoteFile(env, target), { cap: READ_CAP.state, ownOnly: true })
  if (typeof text !== 'string') return null
  try {
    const doc: unknown = JSON.parse(text)
    if (!isJsonObject(doc) || doc.file !== target) return null
    // A note of an older version holds only the empty containers.
    const empties = { hooks: doc.hooks, events: doc.events }
    const dirs = doc.dirs === undefined ? [] : doc.dirs
    const held = doc.held
    if (!isStringList(dirs) || (held !== undefined && held !== null && (typeof held !== 'string' || held.trim() !== ''))) return null
    const note: InstallNote = { empties: isEmptyHooks(empties) ? empties : null, dirs, ...(held !== undefined ? { held } : {}) }
    return isWorthKeeping(note) ? note : null
  } catch {
    return null
  }
}

/** Keeps the note (null, or nothing worth keeping: removes it). Never throws: the settings are written already. */
export const writeInstallNote = (env: Env, target: string, note: InstallNote | null): void => {
  try {
    if (deriveHomeProblem(env)) return
    const file = installNoteFile(env, target)
    if (note === null || !isWorthKeeping(note)) {
      rmSync(file, { force: true })
      return
    }
    const dir = notesDir(env)
    ensurePrivateDir(dir)
    writeFileAtomic(file, `${JSON.stringify({ file: target, ...note.empties, held: note.held, dirs: note.dirs })}\n`, dir, '.note')
  } catch {
    // Without the note, uninstall removes the emptied containers too and leaves the file; nothing else is lost.
  }
}
