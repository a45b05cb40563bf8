// Claude Code's settings.json hooks: which events we register, how (async, except where that
// loses the event), and the pure merge and unmerge of our entries into a person's settings
// (tested apart, also with random settings). The file I/O around them: lib/settings/settings-file.ts.
import { join, resolve } from 'node:path'
import type { Scope } from '../../settings/scope.js'
import type { Env } from '../../paths.js'
import { checkHooksMergeable, listOurHookEntries, mergeHookGroups, unmergeHookGroups, withoutOurHooks } from '../../settings/hook-groups.js'
import { isJsonObject, type JsonObject } from '../../settings/json-value.js'
import { isOurCommand } from '../../settings/our-command.js'
import { EMIT_BIN, type EmitterCommand } from '../../settings/package-root.js'
import { claudeConfigDir } from './paths.js'

/**
 * The events the queue needs (docs/design.md §3.1). Not MessageDisplay (fires per displayed chunk) and
 * not SubagentStop (fires for subagents and for /compact's fork).
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PreToolUse',
  'PermissionRequest',
  // 2.1.332's auto mode refusing a tool. Known to 2.1.197 too: an event a build does not know
  // opens a "Settings Warning" dialog at its every start, so newer events wait for the oldest.
  'PermissionDenied',
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

/** The one hook entry we write, in Claude Code's key order of its docs. */
export const deriveHookEntry = (cmd: EmitterCommand): HookEntry => ({
  type: 'command',
  command: cmd.command,
  ...(cmd.args ? { args: [...cmd.args] } : {}),
  async: true,
  timeout: HOOK_TIMEOUT_S,
})

/** The plugin's plugin/hooks/hooks.json: a plugin is a copy without dist/, so PATH it is. */
export const derivePluginHooks = (): JsonObject => {
  const hooks: JsonObject = {}
  for (const event of HOOK_EVENTS) hooks[event] = [{ hooks: [entryForEvent(deriveHookEntry({ command: EMIT_BIN }), event)] }]
  return {
    description: 'Trail Boss: record each session event with trailboss-emit (from the trailboss npm package, on PATH).',
    hooks,
    // The mod (plugin/hooks/queue.tsx): builds before 2.1.287 ignore `modules` as long as `hooks` is there.
    modules: ['./queue.tsx'],
  }
}

/**
 * Ours are recognised by the exact command they run, never by an extra key (Claude Code's
 * schema owns the entry), nor by a name that merely contains ours (settings/our-command.ts).
 * `known` adds emitter files found on disk to be ours (the running package's, a clone's).
 */
export const isOurHook = (hook: unknown, known: readonly string[] = []): boolean =>
  isJsonObject(hook) && hook.type === 'command' && isOurCommand(hook.command, hook.args, known)

export interface OurHook {
  event: string
  hook: JsonObject
}

/** Every hook entry of ours in these settings, under any event. */
export const listOurHooks = (settings: JsonObject, known: readonly string[] = []): OurHook[] =>
  listOurHookEntries(settings, (h) => isOurHook(h, known))

/** Refuses settings we could not merge into without guessing (docs/design.md §5: never damage them). */
export const checkMergeable = (settings: JsonObject): void => checkHooksMergeable(settings)

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
  return mergeHookGroups(
    settings,
    events,
    (h) => isOurHook(h, known),
    (event) => entryForEvent(entry, event),
  )
}

/**
 * Settings without any entry of ours. An event list (or the hooks object) that only our
 * entries filled is removed with them; everything else stays exactly as it was.
 * `keepEvents` are left as empty lists (for mergeHooks to refill in place, or because they
 * were empty before install), and with `keepHooks` an emptied hooks object stays `{}`.
 */
export const unmergeHooks = (
  settings: JsonObject,
  known: readonly string[] = [],
  keepEvents: readonly string[] = [],
  keepHooks: boolean = keepEvents.length > 0,
): JsonObject => {
  return unmergeHookGroups(settings, (g) => withoutOurHooks(g, (h) => isOurHook(h, known)), keepEvents, keepHooks)
}

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

/** A plugin key in enabledPlugins: `<plugin>@<marketplace>`. */
export const PLUGIN_NAME = 'trailboss'

/** Whether these settings enable the Trail Boss plugin (`enabledPlugins: {"trailboss@…": true}`). */
export const isPluginEnabled = (settings: JsonObject): boolean => {
  const enabled = settings.enabledPlugins
  return isJsonObject(enabled) && Object.entries(enabled).some(([k, v]) => k.startsWith(`${PLUGIN_NAME}@`) && v === true)
}
