// Codex's hooks.json and the trust entries config.toml needs for them: which events we
// register, the command (the spool hook, hooks/spool.sh: Codex waits for every hook), the pure
// merge and unmerge of our entries into a person's hooks.json, and what config.toml's trust
// entries need for it (edited by trust-config.ts). Foreign groups and hooks stay exactly as they
// are; a foreign trust entry only follows its hook when ours moved it. The file I/O:
// lib/settings/settings-file.ts and the install command.
import { isJsonObject, type Json, type JsonObject } from '../../settings/json-value.js'
import type { EmitterCommand } from '../../settings/package-root.js'
import { checkHooksMergeable } from '../../settings/hook-groups.js'
import { isOurCommand } from '../../settings/our-command.js'
import { formatShellLine, splitShellWords } from '../../settings/shell-line.js'
import type { CompanionFile } from '../types.js'
import { canonicalJson, CODEX_HOOK_EVENTS, type CodexHookEvent, hookStateKey, hookTrustHash } from './hook-trust.js'
import { codexConfigFile } from './paths.js'
import { applyTrustPlan, readTrustEntriesToEdit, type TrustEntry, type TrustPlan } from './trust-config.js'

/** The events the queue needs. Not Pre/PostCompact or SubagentStop: they change no state. */
export const CODEX_INSTALL_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Stop',
  'Interrupt',
  'SessionEnd',
] as const satisfies readonly CodexHookEvent[]

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

/**
 * Pure: hooks.json with exactly our handler, in a group of its own at the end of each event (so
 * that no foreign handler sits after ours, where taking ours out would move it).
 */
export const mergeCodexHooks = (settings: JsonObject, command: string, known: readonly string[] = []): JsonObject => {
  // Refused as for Gemini CLI: a hooks.json shape we could only overwrite.
  checkHooksMergeable(settings)
  const base = unmergeCodexHooks(settings, known)
  const hooks: JsonObject = isJsonObject(base.hooks) ? { ...base.hooks } : {}
  for (const event of CODEX_INSTALL_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as Json[])] : []
    groups.push({ hooks: [{ type: 'command', command, timeout: CODEX_HOOK_TIMEOUT_S }] })
    hooks[event] = groups
  }
  return { ...base, hooks }
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

/** A foreign handler's place in hooks.json: its key, and the hashes that trust it there. */
interface ForeignPlace {
  key: string
  identity: string
  hashes: string[]
}

/** Every foreign command handler of one event, in order, with the hashes Codex could have stored for it. */
const listForeignPlaces = (
  settings: JsonObject | null,
  hooksFile: string,
  event: CodexHookEvent,
  known: readonly string[],
): ForeignPlace[] => {
  const groups = settings && isJsonObject(settings.hooks) ? settings.hooks[event] : undefined
  const out: ForeignPlace[] = []
  if (!Array.isArray(groups)) return out
  groups.forEach((g, gi) => {
    if (!isJsonObject(g) || !Array.isArray(g.hooks)) return
    g.hooks.forEach((h, hi) => {
      if (isOurCodexHandler(h, known) || !isJsonObject(h)) return
      const matcher = typeof g.matcher === 'string' ? g.matcher : null
      const command = h.type === 'command' && typeof h.command === 'string' ? h.command : null
      const handler =
        command === null
          ? null
          : {
              command,
              timeout: typeof h.timeout === 'number' ? h.timeout : undefined,
              async: h.async === true,
              statusMessage: typeof h.statusMessage === 'string' ? h.statusMessage : undefined,
            }
      // With and without the matcher: Codex hashes it only for the events that take one.
      const hashes = handler ? [...new Set([hookTrustHash(event, handler, matcher), hookTrustHash(event, handler)])] : []
      out.push({ key: hookStateKey(hooksFile, event, gi, hi), identity: canonicalJson({ matcher, h }), hashes })
    })
  })
  return out
}

/**
 * Pure: the foreign handlers that taking ours out (or putting ours last) moved to another place
 * in hooks.json, with the hashes their trust entry may hold. Foreign handlers keep their order,
 * so the n-th one of an event before is the n-th one after; an event whose foreign handlers
 * differ otherwise moves nothing.
 */
export const deriveForeignMoves = (
  before: JsonObject | null,
  after: JsonObject,
  hooksFile: string,
  known: readonly string[] = [],
): { from: string; to: string; hashes: string[] }[] => {
  const out: { from: string; to: string; hashes: string[] }[] = []
  for (const event of Object.keys(CODEX_HOOK_EVENTS) as CodexHookEvent[]) {
    const was = listForeignPlaces(before, hooksFile, event, known)
    const now = listForeignPlaces(after, hooksFile, event, known)
    if (was.length !== now.length || was.some((p, i) => p.identity !== now[i]!.identity)) continue
    was.forEach((p, i) => {
      const to = now[i]!
      if (p.key !== to.key && to.hashes.length > 0) out.push({ from: p.key, to: to.key, hashes: to.hashes })
    })
  }
  return out
}

/**
 * Pure: what config.toml's trust entries need for a change of hooks.json: each handler of ours
 * trusted with its hash, the entries at our old places dropped, and the entry of a foreign
 * handler that moved carried to its new place when its hash still matches it.
 */
export const deriveTrustPlan = (
  current: ReadonlyMap<string, string | null>,
  change: { settingsFile: string; before: JsonObject | null; after: JsonObject; known: readonly string[] },
): TrustPlan => {
  const want = deriveTrustEntries(change.after, change.settingsFile, change.known)
  const wanted = new Set(want.map((e) => e.key))
  const previous = change.before ? deriveTrustEntries(change.before, change.settingsFile, change.known) : []
  // An entry at a place a handler of ours held is ours, whatever hash it holds.
  const drop = previous.map((e) => e.key).filter((key) => !wanted.has(key) && current.has(key))
  const moves = deriveForeignMoves(change.before, change.after, change.settingsFile, change.known).filter((m) =>
    m.hashes.includes(current.get(m.from) ?? ''),
  )
  return { drop, moves: moves.map(({ from, to }) => ({ from, to })), want }
}

/** config.toml follows hooks.json: exactly one trust entry per handler of ours. */
export const codexCompanion: CompanionFile = {
  file: (env) => codexConfigFile(env),
  update: (text, change) => {
    if (text === null && deriveTrustEntries(change.after, change.settingsFile, change.known).length === 0) return null
    const plan = deriveTrustPlan(readTrustEntriesToEdit(text ?? '', change.file), change)
    return applyTrustPlan(text ?? '', plan, change.file)
  },
}
