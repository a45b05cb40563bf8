// The note `install` keeps of a settings file's empty hook containers (settings/empty-hooks.ts),
// one file per settings file under $TRAILBOSS_HOME/installs/, named by a hash of its path: a
// person's paths are not spelled out in our file names. Best effort both ways: without a note
// (another machine, an older install) `uninstall` removes what only our entries filled, as it
// always has.
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

/** The note for this settings file, or null: none, unreadable, or not about this path. */
export const readInstallNote = (env: Env, target: string): EmptyHooks | null => {
  if (deriveHomeProblem(env)) return null
  const text = readRegularIfExists(installNoteFile(env, target), { cap: READ_CAP.state, ownOnly: true })
  if (typeof text !== 'string') return null
  try {
    const doc: unknown = JSON.parse(text)
    if (!isJsonObject(doc) || doc.file !== target) return null
    const note = { hooks: doc.hooks, events: doc.events }
    return isEmptyHooks(note) ? note : null
  } catch {
    return null
  }
}

/** Keeps the note (null: removes it). Never throws: the settings are written already. */
export const writeInstallNote = (env: Env, target: string, note: EmptyHooks | null): void => {
  try {
    if (deriveHomeProblem(env)) return
    const file = installNoteFile(env, target)
    if (note === null) {
      rmSync(file, { force: true })
      return
    }
    const dir = notesDir(env)
    ensurePrivateDir(dir)
    writeFileAtomic(file, `${JSON.stringify({ file: target, ...note })}\n`, dir, '.note')
  } catch {
    // Without the note, uninstall removes the emptied containers too; nothing else is lost.
  }
}
