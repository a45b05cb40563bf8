// Gemini CLI's settings.json hooks: which events we register, the one entry we write, and the
// pure merge and unmerge of our entries into a person's settings, by the rules Claude Code's
// settings follow (only our exact entries added or removed, foreign ones kept in place and
// order, unmergeable settings refused). The file I/O: lib/settings/settings-file.ts.
import { join, resolve } from 'node:path'
import type { Scope } from '../../settings/scope.js'
import { EXIT_USAGE, TrailbossError } from '../../errors.js'
import type { Env } from '../../paths.js'
import { checkHooksMergeable, listOurHookEntries, mergeHookGroups, unmergeHookGroups, withoutOurHooks } from '../../settings/hook-groups.js'
import { isJsonObject, type JsonObject } from '../../settings/json-value.js'
import { isOurCommand } from '../../settings/our-command.js'
import { formatShellLine, splitShellWords } from '../../settings/shell-line.js'
import type { EmitterCommand } from '../../settings/package-root.js'
import { geminiSettingsFile } from './paths.js'

/**
 * The events the queue needs. Not BeforeModel, AfterModel, BeforeToolSelection (every model call,
 * AfterModel every streamed chunk) nor PreCompress (every turn in 0.61.0): Gemini CLI waits for
 * each hook, so each event we take costs the person time.
 */
export const GEMINI_HOOK_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'BeforeTool',
  'AfterTool',
  'Notification',
  'AfterAgent',
  'SessionEnd',
] as const

/**
 * Milliseconds Gemini CLI gives our hook (its unit). It kills a hook at its timeout and the event
 * is lost; the emitter ends on its own long before, so this only bounds a very loaded machine.
 */
export const GEMINI_HOOK_TIMEOUT_MS = 10_000

/** The name Gemini CLI shows for our hook (`/hooks`), and what `hooksConfig.disabled` would list. */
export const GEMINI_HOOK_NAME = 'trailboss'

export type GeminiHookEntry = JsonObject & { type: 'command'; name: string; command: string; timeout: number }

/** The one hook entry we write: the emitter's command as one shell line. */
export const deriveGeminiHookEntry = (cmd: EmitterCommand): GeminiHookEntry => ({
  type: 'command',
  name: GEMINI_HOOK_NAME,
  command: formatShellLine([cmd.command, ...(cmd.args ?? [])]),
  timeout: GEMINI_HOOK_TIMEOUT_MS,
})

/**
 * Ours are exactly the commands our install writes (lib/settings/our-command.ts), here as one
 * shell line: split it the way the shell will, then ask the shared rule. `known`: emitter files
 * found on disk to belong to a `trailboss` package.
 */
export const isOurGeminiHook = (hook: unknown, known: readonly string[] = []): boolean => {
  if (!isJsonObject(hook) || hook.type !== 'command' || typeof hook.command !== 'string' || hook.args !== undefined) return false
  const words = splitShellWords(hook.command.trim())
  if (!words || words.length === 0) return false
  const [program = '', ...rest] = words
  return rest.length === 0
    ? isOurCommand(program, undefined, known)
    : isOurCommand(program, rest, known) || isOurCommand(words.join(' '), undefined, known)
}

/** Refuses settings we could not merge into without guessing (docs/design.md §5: never damage them). */
export const checkGeminiMergeable = (settings: JsonObject): void => checkHooksMergeable(settings, ['enabled', 'disabled', 'notifications'])

/** Every hook of ours in these settings, with its event. */
export const listOurGeminiHooks = (settings: JsonObject, known: readonly string[] = []): { event: string; hook: JsonObject }[] =>
  listOurHookEntries(settings, (h) => isOurGeminiHook(h, known))

/**
 * Settings without any hook of ours. An event list that only ours filled goes with them (and
 * `hooks` too when nothing is left in it); everything else stays exactly as it was.
 * `keepEvents` stay as empty lists (for the merge to refill in place, or because they were
 * empty before install), and with `keepHooks` an emptied hooks object stays `{}`.
 */
export const unmergeGeminiHooks = (
  settings: JsonObject,
  known: readonly string[] = [],
  keepEvents: readonly string[] = [],
  keepHooks: boolean = keepEvents.length > 0,
): JsonObject => {
  return unmergeHookGroups(settings, (g) => withoutOurHooks(g, (h) => isOurGeminiHook(h, known)), keepEvents, keepHooks)
}

/**
 * Settings with exactly our entry for each event: a group of ours keeps its place (a second
 * install changes nothing), stray entries of ours go, and every foreign key, group and hook
 * stays as it was, in its order.
 */
export const mergeGeminiHooks = (settings: JsonObject, entry: GeminiHookEntry, known: readonly string[] = []): JsonObject => {
  checkGeminiMergeable(settings)
  return mergeHookGroups(
    settings,
    GEMINI_HOOK_EVENTS,
    (h) => isOurGeminiHook(h, known),
    () => ({ ...entry }),
  )
}

/** The settings file of a scope. Gemini CLI has user and project settings, no local ones. */
export const geminiSettingsFileFor = (scope: Scope, env: Env, cwd: string): string => {
  switch (scope) {
    case 'user':
      return geminiSettingsFile(env)
    case 'project':
      return join(resolve(cwd), '.gemini', 'settings.json')
    case 'local':
      throw new TrailbossError('Gemini CLI has no local settings file', 'use --scope user (or project)', EXIT_USAGE)
  }
}

/** Whether these settings turn Gemini CLI's hooks off (`hooksConfig.enabled: false`), or ours by name. */
export const deriveHooksDisabled = (settings: JsonObject): string | null => {
  const config = settings.hooksConfig
  if (!isJsonObject(config)) return null
  if (config.enabled === false) return 'hooksConfig.enabled is false: Gemini CLI runs no hooks'
  if (Array.isArray(config.disabled) && config.disabled.includes(GEMINI_HOOK_NAME))
    return `hooksConfig.disabled lists "${GEMINI_HOOK_NAME}"`
  return null
}
