// A settings file edited the way a person's own file deserves: read under a lock, refused when
// it does not parse, backed up, and written atomically, as the smallest edit of its own text.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { TrailbossError } from '../errors.js'
import { jsonEqual } from '../json-equal.js'
import { type Env, trailbossHome } from '../paths.js'
import { writeFileAtomic } from '../fs/atomic-write.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { describeWriteError, lockNow } from '../fs/lock-now.js'
import { READ_CAP, readRegularIfExists } from '../fs/safe-file.js'
import { detectLayout, editJsonText, findDuplicateKey } from './json-text-edit.js'
import { isJsonObject, type JsonObject } from './json-value.js'

/**
 * The settings file's text as an object. Whitespace only counts as `{}` (a `touch`ed file);
 * anything else that is not one JSON object is refused: comments are not JSON.
 */
export const parseSettings = (text: string, file: string): JsonObject => {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new TrailbossError(
      `${file} is not valid JSON (${(err as Error).message}); left it untouched`,
      'fix it by hand (comments are not allowed), then run this again',
    )
  }
  if (!isJsonObject(value))
    throw new TrailbossError(`${file} does not hold a JSON object; left it untouched`, 'fix it by hand, then run this again')
  // JSON.parse keeps the last of two equal keys: a rewrite would drop the first one's content.
  const dup = findDuplicateKey(text)
  if (dup)
    throw new TrailbossError(
      `${file} has the key ${JSON.stringify(dup.key)} twice (at ${dup.at}); left it untouched`,
      'merge the two by hand, then run this again',
    )
  return value
}

/** The indentation a file already uses (two spaces for a new file, as Claude Code writes). */
export const detectIndent = (text: string | null): string => {
  const m = text?.match(/^[{[][^\n]*\n([ \t]+)\S/)
  return m?.[1] ?? '  '
}

/** Serialises in the file's own indentation, with its trailing newline (or lack of one). */
export const formatSettings = (settings: JsonObject, previous: string | null): string => {
  const { eol } = detectLayout(previous)
  const final = previous === null || previous.trim() === '' || previous.endsWith('\n') ? eol : ''
  return JSON.stringify(settings, null, detectIndent(previous)).replaceAll('\n', eol) + final
}

/**
 * The new settings as the smallest edit of the file's own text (json-text-edit.ts): only the
 * members that changed are written, in the file's own layout, so hand formatting survives, a
 * dry run's diff shows just our entries, and uninstall gives back the bytes install found.
 * Falls back to a full rewrite in the file's layout if the text cannot be edited.
 */
export const formatSettingsEdit = (previous: string | null, before: JsonObject, next: JsonObject): string => {
  if (previous === null || previous.trim() === '') return formatSettings(next, previous)
  return editJsonText(previous, before, next) ?? formatSettings(next, previous)
}

const MAX_SYMLINKS = 40

/**
 * The file that a write must replace: the end of a symlink chain (a dotfiles repo often links
 * settings.json), also when that end does not exist yet. Renaming over the link itself would
 * turn it into a plain file.
 */
export const resolveSettingsTarget = (file: string): string => {
  let current = resolve(file)
  for (let i = 0; i < MAX_SYMLINKS; i++) {
    let st: fs.Stats
    try {
      st = fs.lstatSync(current)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return current
      throw err
    }
    if (!st.isSymbolicLink()) return current
    const link = fs.readlinkSync(current)
    current = isAbsolute(link) ? link : resolve(dirname(current), link)
  }
  throw new TrailbossError(`${file} is a symlink loop`, 'point it at a real file')
}

/** Holding the lock while Claude Code or another install rewrites the file: wait, not fail. */
export const SETTINGS_LOCK_STALE_MS = 10_000
const LOCK_RETRIES = { retries: 60, factor: 1.3, minTimeout: 10, maxTimeout: 250, randomize: true }

export interface SettingsUpdate {
  file: string
  target: string
  before: string | null
  after: string
  changed: boolean
  backup: string | null
  /** The file was removed rather than written (UpdateOptions.restoreIfEmpty). */
  removed: boolean
  /** The folders made to hold a new file, outermost first. */
  createdDirs: string[]
}

export interface UpdateOptions {
  dryRun?: boolean
  /** Where backups go (default $TRAILBOSS_HOME/backups). */
  backupDir?: string
  now?: () => number
  /**
   * What the file held before `install` when it held nothing: null, no file (it is removed), or
   * its blank text (written back). Used when what is left holds nothing (`{}`, or blank text),
   * so `uninstall` gives back what install found.
   */
  restoreIfEmpty?: string | null
}

/** What a compute gives: the new text, whether it differs, and whether it holds nothing. */
interface Computed {
  after: string
  changed: boolean
  empty: boolean
}

/** The folders from `first` (the outermost one mkdir made) down to `dir`, outermost first. */
const foldersMade = (first: string | undefined, dir: string): string[] => {
  if (first === undefined) return []
  const out: string[] = []
  for (let d = dir; d.length >= first.length; d = dirname(d)) {
    out.unshift(d)
    if (d === first) break
  }
  return out
}

/** Removes the folders a new file's install made, innermost first, as long as each is empty. */
export const removeEmptyFolders = (dirs: readonly string[]): void => {
  for (const dir of [...dirs].reverse()) {
    try {
      fs.rmdirSync(dir)
    } catch {
      // Not empty (the agent keeps more there), or gone: it stays, and so do the ones around it.
      return
    }
  }
}

/** Temp file beside the target, flushed to disk, renamed over it; the folder flushed too. */
export const writeFileDurable = (target: string, data: string, mode: number): void =>
  writeFileAtomic(target, data, dirname(target), `.${basename(target)}`, { mode, durable: true })

const stampForFile = (ms: number): string => new Date(ms).toISOString().replace(/[:.]/g, '-')

/**
 * Reads a file under its lock, computes its new text, and writes it atomically with a backup
 * of what was there; writes nothing when nothing changes or on a dry run. `compute` gets the
 * text now (null: missing) and returns the new text and whether it changed; it may throw to
 * refuse (file untouched).
 */
const guardedUpdate = async (
  file: string,
  env: Env,
  compute: (before: string | null) => Computed,
  opts: UpdateOptions,
): Promise<SettingsUpdate> => {
  const target = resolveSettingsTarget(file)
  const run = (): Omit<SettingsUpdate, 'backup' | 'createdDirs'> => {
    const before = readSettingsText(target, file)
    const { after, changed, empty } = compute(before)
    const restore = opts.restoreIfEmpty !== undefined && before !== null && empty ? opts.restoreIfEmpty : undefined
    if (restore === undefined) return { file, target, before, after, changed, removed: false }
    return restore === null
      ? { file, target, before, after: '', changed: true, removed: true }
      : { file, target, before, after: restore, changed: restore !== before, removed: false }
  }
  const none = { backup: null, createdDirs: [] }
  if (opts.dryRun) return { ...run(), ...none }
  // Nothing to take out of a file that is not there: create neither it nor its folder.
  if (!fs.existsSync(target) && !compute(null).changed)
    return { file, target, before: null, after: '', changed: false, removed: false, ...none }
  const createdDirs = foldersMade(fs.mkdirSync(dirname(target), { recursive: true, mode: 0o700 }), dirname(target))
  // realpath: false locks a file that does not exist yet (proper-lockfile: <file>.lock/).
  let compromised: Error | undefined
  const release = await lockNow(target, {
    realpath: false,
    stale: SETTINGS_LOCK_STALE_MS,
    retries: LOCK_RETRIES,
    onCompromised: (err) => {
      compromised = err
    },
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOCKED') throw new TrailbossError(`${file} is locked by another process`, 'try again in a few seconds')
    throw new TrailbossError(`cannot lock ${file} (${describeWriteError(err)}); left it untouched`, 'check the folder it is in')
  })
  try {
    const result = run()
    if (!result.changed) return { ...result, ...none, createdDirs }
    let backup: string | null = null
    let mode = 0o600
    if (result.before !== null) {
      mode = fs.statSync(target).mode & 0o777
      const dir = opts.backupDir ?? join(trailbossHome(env), 'backups')
      const foreign = opts.backupDir === undefined ? deriveHomeProblem(env) : null
      if (foreign)
        throw new TrailbossError(`no backup of ${file} written: ${foreign.folder} ${foreign.why}; left it untouched`, FOREIGN_HOME_HINT)
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      backup = join(dir, `${basename(target)}.${stampForFile((opts.now ?? Date.now)())}.${randomBytes(2).toString('hex')}.bak`)
      fs.writeFileSync(backup, result.before, { flag: 'wx', mode: 0o600 })
    }
    if (compromised) throw new TrailbossError(`lost the lock of ${file}: ${compromised.message}`, 'nothing was written; run this again')
    if (result.removed) fs.rmSync(target)
    else writeFileDurable(target, result.after, mode)
    return { ...result, backup, createdDirs }
  } finally {
    await release().catch(() => {})
  }
}

/**
 * Reads the settings file under its lock, applies `change`, and writes the result atomically
 * with a backup of what was there; writes nothing when nothing changes or on a dry run.
 * Refuses (throws, file untouched) when the file is not one JSON object.
 */
export const updateSettingsFile = (
  file: string,
  env: Env,
  change: (settings: JsonObject) => JsonObject,
  opts: UpdateOptions = {},
): Promise<SettingsUpdate> =>
  guardedUpdate(
    file,
    env,
    (before) => {
      const settings = before === null ? {} : parseSettings(before, file)
      const next = change(settings)
      const changed = !jsonEqual(settings, next)
      return {
        after: changed ? formatSettingsEdit(before, settings, next) : (before ?? ''),
        changed,
        empty: Object.keys(next).length === 0,
      }
    },
    opts,
  )

/**
 * updateSettingsFile for a file that is not JSON (Codex's config.toml): `change` maps its text
 * (null: missing) to the new text, or null to leave it as it is.
 */
export const updateTextFile = (
  file: string,
  env: Env,
  change: (text: string | null) => string | null,
  opts: UpdateOptions = {},
): Promise<SettingsUpdate> =>
  guardedUpdate(
    file,
    env,
    (before) => {
      const next = change(before)
      const after = next ?? before ?? ''
      return { after, changed: next !== null && next !== before, empty: after.trim() === '' }
    },
    opts,
  )

/**
 * A settings file's text, or null when there is none. Never blocks on a FIFO and never reads
 * past a settings file's cap (it may be a link, into a dotfiles repo: that is followed).
 */
export const readSettingsText = (target: string, file: string = target): string | null => {
  const got = readRegularIfExists(target, { cap: READ_CAP.settings, follow: true })
  if (got === null || typeof got === 'string') return got
  throw new TrailbossError(`${file} is ${got.why}; left it untouched`, 'make it a plain JSON file, then run this again')
}

/** Reads one settings file for checks: missing is null, unparseable is an error message. */
export const readSettingsFile = (file: string): { settings: JsonObject | null; error: string | null } => {
  let text: string | null
  try {
    text = readSettingsText(file)
  } catch (err) {
    return { settings: null, error: (err as Error).message }
  }
  if (text === null) return { settings: null, error: null }
  try {
    return { settings: parseSettings(text, file), error: null }
  } catch (err) {
    return { settings: null, error: err instanceof TrailbossError ? err.message : String(err) }
  }
}
