// config.toml's trust entries (`hooks.state."<key>".trusted_hash`), found and edited through a
// TOML parser, whatever their spelling: `[hooks.state."<key>"]` tables, inline tables under
// `[hooks.state]`, dotted keys under `[hooks]`, literal strings, comments between. Every edit is
// checked: the file before and after, both parsed, differ in exactly the planned entries, or
// nothing is written. Loaded by install, uninstall and doctor only (never on the ls path).
import { TrailbossError } from '../../errors.js'
import {
  addTomlTable,
  canonicalTomlData,
  parseTomlText,
  readTomlData,
  removeTomlPath,
  renameTomlKey,
  replaceTomlString,
  TomlSyntaxError,
  tomlBasicString,
  type TomlData,
} from '../../settings/toml-text-edit.js'

/** One `[hooks.state]` entry: the key of a handler in hooks.json, and the hash that trusts it. */
export interface TrustEntry {
  key: string
  hash: string
}

const STATE = ['hooks', 'state'] as const
const HASH = 'trusted_hash'
const entryPath = (key: string): string[] => [...STATE, key]

type TomlTable = { [key: string]: TomlData }
const isTable = (d: TomlData | undefined): d is TomlTable => typeof d === 'object' && d !== null && !Array.isArray(d)

const STRING_TAG = 'string:'
const tagString = (s: string): string => `${STRING_TAG}${s}`
const untagString = (d: TomlData | undefined): string | null =>
  typeof d === 'string' && d.startsWith(STRING_TAG) ? d.slice(STRING_TAG.length) : null

const FIX_BY_HAND = 'fix it by hand (Codex cannot read it either), then run this again'
const BY_HAND = 'write the trust entries as [hooks.state."<key>"] tables by hand, then run this again'

/** The file parsed as data with its `hooks.state`, or why it cannot be edited (naming the file and where it breaks). */
const readConfig = (text: string, file: string): { data: TomlTable; state: TomlTable } | { why: string } => {
  let data: TomlTable
  try {
    data = readTomlData(parseTomlText(text))
  } catch (err) {
    if (!(err instanceof TomlSyntaxError)) throw err
    return { why: `${file} is not valid TOML (${err.message} at line ${err.line}, column ${err.column})` }
  }
  const hooks = data.hooks ?? {}
  if (!isTable(hooks)) return { why: `${file}: its "hooks" is not a table` }
  const state = hooks.state ?? {}
  if (!isTable(state)) return { why: `${file}: its "hooks.state" is not a table` }
  return { data, state }
}

/**
 * Pure: the trust entries of a config.toml, key → trusted hash (null: an entry without one), or
 * why there are none to read (the file is not TOML, or its `hooks.state` is not a table).
 */
export const readTrustEntries = (text: string, file: string): Map<string, string | null> | { why: string } => {
  const read = readConfig(text, file)
  if ('why' in read) return read
  return new Map(Object.entries(read.state).map(([key, entry]) => [key, isTable(entry) ? untagString(entry[HASH]) : null]))
}

/** readTrustEntries, refusing (TrailbossError, nothing written) a file it cannot read. */
export const readTrustEntriesToEdit = (text: string, file: string): Map<string, string | null> => {
  const read = readTrustEntries(text, file)
  if ('why' in read) throw new TrailbossError(`${read.why}; left it untouched`, FIX_BY_HAND)
  return read
}

/** What an install or uninstall does to the trust entries. */
export interface TrustPlan {
  /** Entries that go (ours, no longer wanted). */
  drop: readonly string[]
  /** A foreign hook's entry that follows it to its new place (its hash still matches it there). */
  moves: readonly { from: string; to: string }[]
  /** Entries that must trust exactly this hash (ours). */
  want: readonly TrustEntry[]
}

/** The data without an empty `hooks.state`, nor then an empty `hooks`: empty tables say nothing. */
const withoutEmptyState = (data: TomlTable): TomlTable => {
  const hooks = data.hooks
  if (!isTable(hooks)) return data
  const { state, ...restHooks } = hooks
  const keptHooks = isTable(state) && Object.keys(state).length === 0 ? restHooks : hooks
  const { hooks: _h, ...rest } = data
  return Object.keys(keptHooks).length > 0 ? { ...rest, hooks: keptHooks } : rest
}

/**
 * Pure: config.toml with the plan carried out as the smallest edits of its text: an entry's
 * every spelling goes with it, a moved entry keeps its spelling under its new key, a wrong hash
 * of ours is replaced where it stands, a new entry is a `[hooks.state."<key>"]` table at the end
 * (or a member of the inline table that holds `hooks.state`). Moves whose new key is taken are
 * left out. Refuses (TrailbossError, nothing to write) when the result, parsed, would differ
 * from the file in anything but the plan's entries.
 */
export const applyTrustPlan = (text: string, plan: TrustPlan, file: string): string => {
  const read = readConfig(text, file)
  if ('why' in read) throw new TrailbossError(`${read.why}; left it untouched`, FIX_BY_HAND)
  const expected: TomlTable = structuredClone(read.data)
  const hooks = (expected.hooks ??= {}) as TomlTable
  const state = (hooks.state ??= {}) as TomlTable
  let out = text
  const moved: { from: string; to: string }[] = []
  let after: TomlTable
  try {
    for (const key of plan.drop) {
      if (!Object.hasOwn(state, key)) continue
      delete state[key]
      out = removeTomlPath(out, entryPath(key))
    }
    // A move waits for its new key to be freed by another; one whose key stays taken is left out.
    let pending = plan.moves.filter((m) => Object.hasOwn(state, m.from) && m.from !== m.to)
    for (let progress = true; progress;) {
      progress = false
      for (const m of pending) {
        if (Object.hasOwn(state, m.to)) continue
        state[m.to] = state[m.from]!
        delete state[m.from]
        out = renameTomlKey(out, entryPath(m.from), m.to)
        moved.push(m)
        progress = true
      }
      pending = pending.filter((m) => !moved.includes(m))
    }
    for (const { key, hash } of plan.want) {
      const cur = state[key]
      if (isTable(cur) && untagString(cur[HASH]) === hash) continue
      if (isTable(cur) && untagString(cur[HASH]) !== null) {
        state[key] = { ...cur, [HASH]: tagString(hash) }
        out = replaceTomlString(out, [...entryPath(key), HASH], hash)
        continue
      }
      if (cur !== undefined) out = removeTomlPath(out, entryPath(key))
      state[key] = { [HASH]: tagString(hash) }
      out = addTomlTable(out, entryPath(key), [[HASH, tomlBasicString(hash)]])
    }
    after = readTomlData(parseTomlText(out))
  } catch (err) {
    // An edit that broke the text, at the end or on the way (a later step could not parse it).
    throw new TrailbossError(
      `editing the trust entries would leave ${file} unreadable (${(err as Error).message}); left it untouched`,
      BY_HAND,
    )
  }
  if (canonicalTomlData(withoutEmptyState(after)) !== canonicalTomlData(withoutEmptyState(expected))) {
    throw new TrailbossError(`editing the trust entries of ${file} would change more than them; left it untouched`, BY_HAND)
  }
  return out
}
