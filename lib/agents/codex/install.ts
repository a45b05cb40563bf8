// Codex's hooks.json and the trust entries config.toml needs for them: which events we
// register, the command (the spool hook, hooks/spool.sh: Codex waits for every hook), the pure
// merge and unmerge of our entries into a person's hooks.json, and the pure edit of
// config.toml's `[hooks.state."<key>"]` tables. Foreign groups, hooks and trust entries stay
// exactly as they are. The file I/O: lib/settings/settings-file.ts and the install command.
import { isJsonObject, type Json, type JsonObject } from '../../settings/json-value.js'
import type { EmitterCommand } from '../../settings/package-root.js'
import { isOurCommand } from '../../settings/our-command.js'
import { formatShellLine, splitShellWords } from '../../settings/shell-line.js'
import type { CompanionFile } from '../types.js'
import { type CodexHookEvent, hookStateKey, hookTrustHash } from './hook-trust.js'
import { codexConfigFile } from './paths.js'

/** The events the queue needs. Not Pre/PostCompact or SubagentStop: they change no state. */
export const CODEX_INSTALL_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'Interrupt', 'SessionEnd'] as const satisfies readonly CodexHookEvent[]

/** Seconds Codex gives our hook (it clamps SessionEnd and Interrupt to 3); spool.sh needs a few ms. */
export const CODEX_HOOK_TIMEOUT_S = 5

/** The command line our hook runs (Codex runs it through a shell): `/bin/sh <spool.sh> codex <node>`. */
export const deriveCodexCommand = (spoolScript: string, node: string): string => formatShellLine(['/bin/sh', spoolScript, 'codex', node])

/** The install command's spool runner (`{command: '/bin/sh', args: [spool.sh, 'codex', node]}`) as one line. */
export const deriveCodexCommandFrom = (cmd: EmitterCommand): string => formatShellLine([cmd.command, ...(cmd.args ?? [])])


/**
 * Whether a hooks.json handler is ours: exactly the command our install writes (deriveCodexCommand),
 * running the spool hook of an npm-installed `trailboss` or one `known` to be ours (found on
 * disk, e.g. a clone). A command that merely mentions our name is not ours.
 */
export const isOurCodexHandler = (h: Json, known: readonly string[] = []): boolean => {
  if (!isJsonObject(h) || typeof h.command !== 'string') return false
  // The spool form of lib/settings/our-command.ts, for Codex only.
  const words = splitShellWords(h.command)
  return words !== null && words[0] === '/bin/sh' && words[2] === 'codex' && isOurCommand(words[0], words.slice(1), known)
}

const withoutOurs = (groups: Json, known: readonly string[]): Json[] => {
  if (!Array.isArray(groups)) return []
  const out: Json[] = []
  for (const g of groups) {
    if (!isJsonObject(g) || !Array.isArray(g.hooks)) {
      out.push(g)
      continue
    }
    const hooks = g.hooks.filter((h) => !isOurCodexHandler(h, known))
    if (hooks.length === g.hooks.length) out.push(g)
    else if (hooks.length > 0) out.push({ ...g, hooks })
  }
  return out
}

/** Pure: hooks.json with every handler of ours removed (empty groups and events go too). */
export const unmergeCodexHooks = (settings: JsonObject, known: readonly string[] = []): JsonObject => {
  if (!isJsonObject(settings.hooks)) return settings
  const hooks: JsonObject = {}
  for (const [event, groups] of Object.entries(settings.hooks)) {
    const kept = withoutOurs(groups, known)
    if (kept.length > 0 || !Array.isArray(groups)) hooks[event] = Array.isArray(groups) ? kept : groups
  }
  const { hooks: _old, ...rest } = settings
  return Object.keys(hooks).length > 0 ? { ...rest, hooks } : rest
}

/** Pure: hooks.json with exactly our handler, in a group of its own at the end of each event. */
export const mergeCodexHooks = (settings: JsonObject, command: string, known: readonly string[] = []): JsonObject => {
  const base = unmergeCodexHooks(settings, known)
  const hooks: JsonObject = isJsonObject(base.hooks) ? { ...base.hooks } : {}
  for (const event of CODEX_INSTALL_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as Json[])] : []
    groups.push({ hooks: [{ type: 'command', command, timeout: CODEX_HOOK_TIMEOUT_S }] })
    hooks[event] = groups
  }
  return { ...base, hooks }
}

export interface TrustEntry {
  key: string
  hash: string
}

/** Pure: the `[hooks.state]` entries that trust each handler of ours in `settings` (hooks.json at `hooksFile`). */
export const deriveTrustEntries = (settings: JsonObject, hooksFile: string, known: readonly string[] = []): TrustEntry[] => {
  const out: TrustEntry[] = []
  if (!isJsonObject(settings.hooks)) return out
  for (const event of CODEX_INSTALL_EVENTS) {
    const groups = settings.hooks[event]
    if (!Array.isArray(groups)) continue
    groups.forEach((g, gi) => {
      if (!isJsonObject(g) || !Array.isArray(g.hooks)) return
      g.hooks.forEach((h, hi) => {
        if (!isOurCodexHandler(h, known) || !isJsonObject(h) || typeof h.command !== 'string') return
        const timeout = typeof h.timeout === 'number' ? h.timeout : undefined
        // A matcher on a group of ours would change the hash; ours have none.
        const matcher = typeof g.matcher === 'string' ? g.matcher : null
        out.push({ key: hookStateKey(hooksFile, event, gi, hi), hash: hookTrustHash(event, { command: h.command, timeout }, matcher) })
      })
    })
  }
  return out
}

/** `[hooks.state."<key>"]` as TOML writes it (a basic string: JSON's escapes are TOML's). */
const tableHeader = (key: string): string => `[hooks.state.${JSON.stringify(key)}]`
const HEADER_LINE = /^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*")\s*\]\s*(?:#.*)?$/
const ANY_TABLE = /^\s*\[/

interface TrustTable {
  key: string
  start: number
  /** Exclusive: the next table's header line, or the end. */
  end: number
  hash: string | null
}

/** Pure: the `[hooks.state."…"]` tables of a config.toml, with their line ranges. */
export const findTrustTables = (text: string): TrustTable[] => {
  const lines = text.split('\n')
  const out: TrustTable[] = []
  let cur: TrustTable | null = null
  lines.forEach((line, i) => {
    if (!ANY_TABLE.test(line)) {
      const m = cur && /^\s*trusted_hash\s*=\s*"([^"]*)"/.exec(line)
      if (cur && m) cur.hash = m[1]!
      return
    }
    if (cur) cur.end = i
    cur = null
    const m = HEADER_LINE.exec(line)
    if (!m) return
    let key: string
    try {
      key = JSON.parse(m[1]!) as string
    } catch {
      return
    }
    cur = { key, start: i, end: lines.length, hash: null }
    out.push(cur)
  })
  return out
}

/**
 * Pure: config.toml with exactly `entries` as our trust tables. `ours` says which existing
 * table is ours to replace or drop (a key of our hooks.json whose hash is one of ours); every
 * other table, comment and byte stays. New tables go at the end.
 */
export const updateTrustTables = (text: string, entries: readonly TrustEntry[], ours: (t: { key: string; hash: string | null }) => boolean): string => {
  const lines = text.split('\n')
  const tables = findTrustTables(text)
  const wanted = new Map(entries.map((e) => [e.key, e.hash]))
  const drop = new Set<number>()
  for (const t of tables) {
    if (wanted.has(t.key) && wanted.get(t.key) === t.hash) {
      wanted.delete(t.key)
      continue
    }
    if (!wanted.has(t.key) && !ours(t)) continue
    // The table's own lines, and the blank lines that set it apart before it; the blank lines
    // after it belong to what follows.
    let from = t.start
    while (from > 0 && lines[from - 1]!.trim() === '' && !drop.has(from - 1)) from--
    let to = t.end
    while (to > t.start + 1 && lines[to - 1]!.trim() === '') to--
    for (let i = from; i < to; i++) drop.add(i)
  }
  let kept = lines.filter((_, i) => !drop.has(i)).join('\n')
  if (wanted.size === 0) return kept
  if (kept.length > 0 && !kept.endsWith('\n')) kept += '\n'
  if (kept.length > 0 && !kept.endsWith('\n\n')) kept += '\n'
  return kept + [...wanted].map(([key, hash]) => `${tableHeader(key)}\ntrusted_hash = ${JSON.stringify(hash)}\n`).join('\n')
}

/** config.toml follows hooks.json: exactly one trust entry per handler of ours. */
export const codexCompanion: CompanionFile = {
  file: (env) => codexConfigFile(env),
  update: (text, { settingsFile, before, after, known }) => {
    const wanted = deriveTrustEntries(after, settingsFile, known)
    const previous = before ? deriveTrustEntries(before, settingsFile, known) : []
    if (text === null && wanted.length === 0) return null
    return updateTrustTables(text ?? '', wanted, (t) => previous.some((e) => e.key === t.key && e.hash === t.hash))
  },
}
