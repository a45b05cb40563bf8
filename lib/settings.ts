// Claude Code's settings.json, edited the way a person's own file deserves: the merge and
// unmerge of our hook entries are pure (tested apart, also with random settings), and the
// file I/O around them locks, refuses what does not parse, backs up, and writes atomically.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { diffArrays } from 'diff'
import lockfile from 'proper-lockfile'
import { TrailbossError } from './errors.js'
import { claudeConfigDir, trailbossHome, type Env } from './paths.js'
import { readTextIfExists } from './read-optional.js'

export const SCOPES = ['user', 'project', 'local'] as const
export type Scope = (typeof SCOPES)[number]

/**
 * The events the queue needs (DESIGN §4). Not MessageDisplay (fires per displayed chunk) and
 * not SubagentStop (fires for subagents and for /compact's fork).
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'SubagentStart',
  'Notification',
  'Stop',
  'StopFailure',
  'SessionEnd',
] as const
export type HookEventName = (typeof HOOK_EVENTS)[number]

/**
 * Seconds Claude Code gives each of our hooks. SessionEnd hooks get only 1.5 s unless one of
 * them declares a timeout (Claude Code 2.1.197); the emitter itself gives up after 1.2 s.
 */
export const HOOK_TIMEOUT_S = 10
/** The emitter's name on PATH (package.json `bin`). */
export const EMIT_BIN = 'trailboss-emit'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

/** What our hooks run: exec form (Node binary + emitter file) or the emitter from PATH. */
export interface EmitterCommand {
  command: string
  args?: string[]
}

export type HookEntry = JsonObject & {
  type: 'command'
  command: string
  async?: true
  timeout: number
}

/**
 * Events whose hook runs in the foreground. An async SessionEnd hook of Claude Code 2.1.197
 * starts after the agent is gone and reads an empty stdin (seen on /exit and on a killed pane),
 * so it runs in the foreground, within its timeout; the agent is ending anyway.
 */
export const FOREGROUND_EVENTS: ReadonlySet<string> = new Set(['SessionEnd'])

/** The entry as registered for one event: async, except where that loses the event. */
export const entryForEvent = (entry: HookEntry, event: string): HookEntry => {
  if (!FOREGROUND_EVENTS.has(event)) return { ...entry }
  const { async: _async, ...foreground } = entry
  return foreground
}

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The one hook entry we write, in Claude Code's key order of its docs. */
export const deriveHookEntry = (cmd: EmitterCommand): HookEntry => ({
  type: 'command',
  command: cmd.command,
  ...(cmd.args ? { args: [...cmd.args] } : {}),
  async: true,
  timeout: HOOK_TIMEOUT_S,
})

/** Project scope is shared with teammates, so it names the emitter from PATH, never our paths. */
export const deriveEmitterCommand = (scope: Scope, nodePath: string, emitterPath: string): EmitterCommand =>
  scope === 'project' ? { command: EMIT_BIN } : { command: nodePath, args: [emitterPath] }

/** The plugin's plugin/hooks/hooks.json: a plugin is a copy without dist/, so PATH it is. */
export const derivePluginHooks = (): JsonObject => {
  const hooks: JsonObject = {}
  for (const event of HOOK_EVENTS) hooks[event] = [{ hooks: [entryForEvent(deriveHookEntry({ command: EMIT_BIN }), event)] }]
  return {
    description: 'Trail Boss: record each session event with trailboss-emit (from the trailboss npm package, on PATH).',
    hooks,
  }
}

// Our built emitter, wherever the package lives: an npm prefix, an npx cache, or a clone.
const EMITTER_FILE = /(?:^|[\\/])[^\\/]*trail-?boss[^\\/]*[\\/]dist[\\/]hooks[\\/]emit\.cjs$/i
const EMIT_BIN_PATH = /(?:^|[\\/])trailboss-emit$/
const NODE_BIN = /(?:^|[\\/])node(?:\.exe)?$/

const isEmitterPath = (p: string, known: readonly string[]): boolean => EMITTER_FILE.test(p) || EMIT_BIN_PATH.test(p) || known.includes(p)

/**
 * Ours are recognised by the emitter they run, never by an extra key (Claude Code's schema
 * owns the entry): exec form whose first argument is our emitter, or a command that is the
 * emitter (`trailboss-emit`, a path to it, or `node <emitter>` written as one string).
 * `known` adds emitter paths we know are ours (the running package's, in a clone of any name).
 */
export const isOurHook = (hook: unknown, known: readonly string[] = []): boolean => {
  if (!isJsonObject(hook) || hook.type !== 'command' || typeof hook.command !== 'string') return false
  const args = hook.args
  if (Array.isArray(args) && args.length > 0) return args.length === 1 && typeof args[0] === 'string' && isEmitterPath(args[0], known)
  const words = hook.command.trim().split(/\s+/)
  if (words.length === 1) return isEmitterPath(words[0] ?? '', known)
  return words.length === 2 && NODE_BIN.test(words[0] ?? '') && isEmitterPath(words[1] ?? '', known)
}

export interface OurHook {
  event: string
  hook: JsonObject
}

/** Every hook entry of ours in these settings, under any event. */
export const listOurHooks = (settings: JsonObject, known: readonly string[] = []): OurHook[] => {
  const out: OurHook[] = []
  const hooks = settings.hooks
  if (!isJsonObject(hooks)) return out
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue
    for (const group of groups) {
      if (!isJsonObject(group) || !Array.isArray(group.hooks)) continue
      for (const hook of group.hooks) if (isOurHook(hook, known) && isJsonObject(hook)) out.push({ event, hook })
    }
  }
  return out
}

const isOurGroup = (group: Json, known: readonly string[]): boolean =>
  isJsonObject(group) &&
  Object.keys(group).every((k) => k === 'hooks' || k === 'matcher') &&
  (group.matcher === undefined || group.matcher === '' || group.matcher === '*') &&
  Array.isArray(group.hooks) &&
  group.hooks.length > 0 &&
  group.hooks.every((h) => isOurHook(h, known))

/**
 * A group's hooks without ours; null when nothing of it is left. A group that holds none of
 * ours comes back as the very same object, so foreign content is never rebuilt.
 */
const withoutOurs = (group: Json, known: readonly string[]): Json | null => {
  if (!isJsonObject(group) || !Array.isArray(group.hooks)) return group
  if (!group.hooks.some((h) => isOurHook(h, known))) return group
  const rest = group.hooks.filter((h) => !isOurHook(h, known))
  return rest.length === 0 ? null : { ...group, hooks: rest }
}

/** Refuses settings we could not merge into without guessing (DESIGN §5: never damage them). */
export const checkMergeable = (settings: JsonObject): void => {
  const hooks = settings.hooks
  if (hooks === undefined) return
  if (!isJsonObject(hooks)) throw new TrailbossError('its "hooks" is not an object', 'fix the file by hand, then run this again')
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) throw new TrailbossError(`its "hooks.${event}" is not a list`, 'fix the file by hand, then run this again')
  }
}

/**
 * Settings with exactly our entry registered for each event: an existing group of ours keeps
 * its place (so a second install changes nothing), stray entries of ours elsewhere go, and
 * every foreign key, group and hook stays as it was, in its order.
 */
export const mergeHooks = (
  settings: JsonObject,
  entry: HookEntry,
  known: readonly string[] = [],
  events: readonly string[] = HOOK_EVENTS,
): JsonObject => {
  checkMergeable(settings)
  const cleaned = unmergeHooks(settings, known, events)
  const prevHooks = isJsonObject(settings.hooks) ? settings.hooks : {}
  const hooks: JsonObject = isJsonObject(cleaned.hooks) ? { ...cleaned.hooks } : {}
  for (const event of events) {
    const before = prevHooks[event]
    const ourGroup: JsonObject = { hooks: [entryForEvent(entry, event)] }
    const firstOurs = Array.isArray(before) ? before.findIndex((g) => isOurGroup(g, known)) : -1
    const kept = Array.isArray(before) ? before.map((g) => withoutOurs(g, known)) : []
    const groups: Json[] = []
    kept.forEach((g, i) => {
      if (i === firstOurs) groups.push(ourGroup)
      else if (g !== null) groups.push(g)
    })
    if (firstOurs === -1) groups.push(ourGroup)
    hooks[event] = groups
  }
  return { ...cleaned, hooks }
}

/**
 * Settings without any entry of ours. An event list (or the hooks object) that only our
 * entries filled is removed with them; everything else stays exactly as it was.
 * `keepEvents` are left as empty lists for mergeHooks to refill in place.
 */
export const unmergeHooks = (settings: JsonObject, known: readonly string[] = [], keepEvents: readonly string[] = []): JsonObject => {
  const hooks = settings.hooks
  if (!isJsonObject(hooks)) return settings
  let touched = false
  // Entries, not assignments: a foreign key such as "__proto__" must stay a plain key.
  const next: [string, Json][] = []
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      next.push([event, groups])
      continue
    }
    const kept = groups.map((g) => withoutOurs(g, known))
    if (kept.every((g, i) => g === groups[i])) {
      next.push([event, groups])
      continue
    }
    touched = true
    const rest = kept.filter((g): g is Json => g !== null)
    if (rest.length > 0 || keepEvents.includes(event)) next.push([event, rest])
  }
  if (!touched) return settings
  const out: JsonObject = { ...settings }
  if (next.length > 0 || keepEvents.length > 0) out.hooks = Object.fromEntries(next) as JsonObject
  else delete out.hooks
  return out
}

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
    throw new TrailbossError(`${file} is not valid JSON (${(err as Error).message}); left it untouched`, 'fix it by hand (comments are not allowed), then run this again')
  }
  if (!isJsonObject(value)) throw new TrailbossError(`${file} does not hold a JSON object; left it untouched`, 'fix it by hand, then run this again')
  return value
}

/** The indentation a file already uses (two spaces for a new file, as Claude Code writes). */
export const detectIndent = (text: string | null): string => {
  const m = text?.match(/^[{[][^\n]*\n([ \t]+)\S/)
  return m?.[1] ?? '  '
}

/** Serialises in the file's own indentation, with its trailing newline (or lack of one). */
export const formatSettings = (settings: JsonObject, previous: string | null): string => {
  const eol = previous === null || previous.trim() === '' || previous.endsWith('\n') ? '\n' : ''
  return JSON.stringify(settings, null, detectIndent(previous)) + eol
}

type JsonPath = (string | number)[]

// jsonc-parser's main entry is UMD, whose inner requires a bundler cannot follow: load it from
// node_modules at run time, as the package's dependency, instead of bundling it.
const loadJsonc = (): typeof import('jsonc-parser') => createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser')

/**
 * The new settings as the smallest edit of the file's own text: only the values that changed
 * are rewritten (jsonc-parser's modify), so hand formatting elsewhere survives and a dry run's
 * diff shows just our entries. Falls back to a full rewrite in the file's indentation if the
 * edited text would not parse to exactly `next`.
 */
const sameJsonText = (a: string, b: string): boolean => {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b))
  } catch {
    return false
  }
}

export const formatSettingsEdit = (previous: string | null, before: JsonObject, next: JsonObject): string => {
  if (previous === null || previous.trim() === '' || Object.keys(next).length === 0) return formatSettings(next, previous)
  const jsonc = loadJsonc()
  const indent = detectIndent(previous)
  const formattingOptions = {
    insertSpaces: indent !== '\t',
    tabSize: indent === '\t' ? 1 : indent.length,
    eol: previous.includes('\r\n') ? '\r\n' : '\n',
  }
  let text = previous
  // modify()'s own formatting re-lays out the whole line around an edit; format only the
  // edited span instead (an insertion's text, or the gap a removal leaves), so the lines
  // around it keep their layout.
  // jsonc-parser's range formatting can mangle a span at a token edge: keep the unformatted
  // edit whenever the formatted one does not mean the same.
  const set = (path: JsonPath, value: Json | undefined, isArrayInsertion = false): void => {
    const edits = jsonc.modify(text, path, value, { isArrayInsertion })
    const plain = jsonc.applyEdits(text, edits)
    let formatted = plain
    for (const edit of edits) {
      const span = { offset: edit.offset, length: Math.max(edit.content.length, 1) }
      formatted = jsonc.applyEdits(formatted, jsonc.format(formatted, span, formattingOptions))
    }
    text = sameJsonText(formatted, plain) ? formatted : plain
  }
  const walk = (path: JsonPath, a: Json, b: Json): void => {
    if (jsonEqual(a, b)) return
    if (isJsonObject(a) && isJsonObject(b)) {
      for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) set([...path, key], undefined)
      for (const [key, value] of Object.entries(b)) {
        if (Object.hasOwn(a, key)) walk([...path, key], a[key] as Json, value)
        else set([...path, key], value)
      }
      return
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      let i = 0
      for (const part of diffArrays<Json>(a, b, { comparator: (x, y) => jsonEqual(x, y) })) {
        for (const item of part.value) {
          if (part.removed) set([...path, i], undefined)
          else if (part.added) set([...path, i++], item, true)
          else i++
        }
      }
      return
    }
    set(path, b)
  }
  try {
    walk([], before, next)
    if (jsonEqual(JSON.parse(text) as Json, next)) return text
  } catch {
    // An edit the text did not take: the full rewrite below is always right.
  }
  return formatSettings(next, previous)
}

/** Deep equality of JSON values, key order included (it shows in the file). */
export const jsonEqual = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a) === JSON.stringify(b)

// ---- file I/O -------------------------------------------------------------------------------

/** The settings file of a scope; project and local live in the current project's .claude/. */
export const settingsFile = (scope: Scope, env: Env, cwd: string): string => {
  switch (scope) {
    case 'user':
      return join(claudeConfigDir(env), 'settings.json')
    case 'project':
      return join(resolve(cwd), '.claude', 'settings.json')
    case 'local':
      return join(resolve(cwd), '.claude', 'settings.local.json')
  }
}

/** How many symlinks we follow before calling it a loop (Linux's own limit). */
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
}

export interface UpdateOptions {
  dryRun?: boolean
  /** Where backups go (default $TRAILBOSS_HOME/backups). */
  backupDir?: string
  now?: () => number
}

/** Temp file beside the target, flushed to disk, renamed over it; the folder flushed too. */
export const writeFileDurable = (target: string, data: string, mode: number): void => {
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const fd = fs.openSync(tmp, 'wx', mode)
    try {
      fs.writeSync(fd, data)
      fs.fchmodSync(fd, mode)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(tmp, target)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
  try {
    const dfd = fs.openSync(dirname(target), 'r')
    try {
      fs.fsyncSync(dfd)
    } finally {
      fs.closeSync(dfd)
    }
  } catch {
    // Some filesystems cannot fsync a folder; the rename is still atomic.
  }
}

const stampForFile = (ms: number): string => new Date(ms).toISOString().replace(/[:.]/g, '-')

/**
 * Reads the settings file under its lock, applies `change`, and writes the result atomically
 * with a backup of what was there; writes nothing when nothing changes or on a dry run.
 * Refuses (throws, file untouched) when the file is not one JSON object.
 */
export const updateSettingsFile = async (
  file: string,
  env: Env,
  change: (settings: JsonObject) => JsonObject,
  opts: UpdateOptions = {},
): Promise<SettingsUpdate> => {
  const target = resolveSettingsTarget(file)
  const compute = (): Omit<SettingsUpdate, 'backup'> => {
    const before = readTextIfExists(target)
    const settings = before === null ? {} : parseSettings(before, file)
    const next = change(settings)
    const changed = !jsonEqual(settings, next)
    return { file, target, before, after: changed ? formatSettingsEdit(before, settings, next) : (before ?? ''), changed }
  }
  if (opts.dryRun) return { ...compute(), backup: null }
  // Nothing to take out of a file that is not there: create neither it nor its folder.
  if (!fs.existsSync(target) && jsonEqual(change({}), {})) return { file, target, before: null, after: '', changed: false, backup: null }
  fs.mkdirSync(dirname(target), { recursive: true, mode: 0o700 })
  // realpath: false locks a file that does not exist yet (proper-lockfile: <file>.lock/).
  let compromised: Error | undefined
  const release = await lockfile
    .lock(target, {
      realpath: false,
      stale: SETTINGS_LOCK_STALE_MS,
      retries: LOCK_RETRIES,
      onCompromised: (err) => {
        compromised = err
      },
    })
    .catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOCKED') throw new TrailbossError(`${file} is locked by another process`, 'try again in a few seconds')
      throw err
    })
  try {
    const result = compute()
    if (!result.changed) return { ...result, backup: null }
    let backup: string | null = null
    let mode = 0o600
    if (result.before !== null) {
      mode = fs.statSync(target).mode & 0o777
      const dir = opts.backupDir ?? join(trailbossHome(env), 'backups')
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
      backup = join(dir, `${basename(target)}.${stampForFile((opts.now ?? Date.now)())}.${randomBytes(2).toString('hex')}.bak`)
      fs.writeFileSync(backup, result.before, { flag: 'wx', mode: 0o600 })
    }
    if (compromised) throw new TrailbossError(`lost the lock of ${file}: ${compromised.message}`, 'nothing was written; run this again')
    writeFileDurable(target, result.after, mode)
    return { ...result, backup }
  } finally {
    await release().catch(() => {})
  }
}

/** Reads one settings file for checks: missing is null, unparseable is an error message. */
export const readSettingsFile = (file: string): { settings: JsonObject | null; error: string | null } => {
  let text: string | null
  try {
    text = readTextIfExists(file)
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

/** The folder of the package `trailboss` that holds `fromFile` (bundled chunks sit deep in dist/). */
export const findPackageRoot = (fromFile: string): string | null => {
  let dir = dirname(resolve(fromFile))
  for (;;) {
    try {
      const pkg: unknown = JSON.parse(fs.readFileSync(join(dir, 'package.json'), 'utf8'))
      if (isJsonObject(pkg) && pkg.name === 'trailboss') return dir
    } catch {
      // No package.json here, or not ours: keep walking up.
    }
    const up = dirname(dir)
    if (up === dir) return null
    dir = up
  }
}

/** The built emitter inside a package root. */
export const emitterPathIn = (root: string): string => join(root, 'dist', 'hooks', 'emit.cjs')

/**
 * The Node binary hooks should run: process.execPath, or the PATH entry that is the same file
 * (Homebrew's /opt/homebrew/bin/node survives upgrades, its Cellar path does not).
 */
export const findStableNode = (execPath: string, pathVar: string | undefined): string => {
  let real: string
  try {
    real = fs.realpathSync(execPath)
  } catch {
    return execPath
  }
  for (const dir of (pathVar ?? '').split(':')) {
    if (!dir || !isAbsolute(dir)) continue
    const candidate = join(dir, 'node')
    try {
      if (fs.realpathSync(candidate) === real) return candidate
    } catch {
      // Not here.
    }
  }
  return execPath
}

/** An npx cache path: npm may clean it at any time, taking the emitter with it. */
export const isEphemeralPath = (p: string): boolean => /[\\/]_npx[\\/]/.test(p)
