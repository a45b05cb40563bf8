// GitHub Copilot CLI's hook file: which events we register, the entry we write for each, and the
// pure merge and unmerge of our entries into a hook file. Copilot loads every `*.json` of its
// hooks folder (`{"version": 1, "hooks": {"<event>": [{"type": "command", "bash", "timeoutSec"}]}}`,
// flat lists, no matcher groups); ours is a file of its own, `trailboss.json`, but a person's
// entries in it stay exactly as they are, in their order. The file I/O: lib/settings/settings-file.ts.
import { join, resolve } from 'node:path'
import { EXIT_USAGE, TrailbossError } from '../../errors.js'
import type { Env } from '../../paths.js'
import { isJsonObject, type Json, type JsonObject } from '../../settings/json-value.js'
import { isOurCommand } from '../../settings/our-command.js'
import type { EmitterCommand } from '../../settings/package-root.js'
import type { Scope } from '../../settings/scope.js'
import { formatShellLine, splitShellWords } from '../../settings/shell-line.js'
import { COPILOT, COPILOT_EVENT_ENV } from './hook-event.js'
import { copilotHooksDir } from './paths.js'

/**
 * The events the queue needs. Not userPromptTransformed (it follows userPromptSubmitted at once),
 * nor permissionRequest (it fires for auto-approved calls too; the notification tells a dialog):
 * Copilot waits for each hook, so each event we take costs the person time.
 */
export const COPILOT_HOOK_EVENTS = [
  'sessionStart',
  'userPromptSubmitted',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'notification',
  'agentStop',
  'errorOccurred',
  'sessionEnd',
] as const

/** The hook file format Copilot 1.0.102 reads. */
export const COPILOT_HOOKS_VERSION = 1

/** Seconds Copilot gives our hook before it kills it and goes on; spool.sh needs a few ms. */
export const COPILOT_HOOK_TIMEOUT_S = 5

/** Our file in a hooks folder. */
export const COPILOT_HOOK_FILE = 'trailboss.json'

export type CopilotHookEntry = JsonObject & { type: 'command'; bash: string; timeoutSec: number }

/**
 * The command line of one event's hook (Copilot runs it with bash): the event's name in
 * TRAILBOSS_COPILOT_EVENT, as the payload does not say it, then the spool runner.
 */
export const deriveCopilotCommand = (event: string, cmd: EmitterCommand): string =>
  `${COPILOT_EVENT_ENV}=${event} ${formatShellLine([cmd.command, ...(cmd.args ?? [])])}`

export const deriveCopilotHookEntry = (event: string, cmd: EmitterCommand): CopilotHookEntry => ({
  type: 'command',
  bash: deriveCopilotCommand(event, cmd),
  timeoutSec: COPILOT_HOOK_TIMEOUT_S,
})

const EVENT_PREFIX = new RegExp(`^${COPILOT_EVENT_ENV}=[a-zA-Z]{1,64}$`)

/**
 * Whether a hook entry is ours: exactly the line deriveCopilotCommand writes, running the spool
 * hook of an npm-installed `trailboss` or one `known` to be ours. A command that merely
 * mentions our name is not ours.
 */
export const isOurCopilotHook = (h: Json, known: readonly string[] = []): boolean => {
  if (!isJsonObject(h) || h.type !== 'command') return false
  const line = typeof h.bash === 'string' ? h.bash : typeof h.command === 'string' ? h.command : null
  const words = line === null ? null : splitShellWords(line.trim())
  if (!words || words.length !== 5) return false
  const [prefix = '', sh = '', ...rest] = words
  return EVENT_PREFIX.test(prefix) && sh === '/bin/sh' && rest[1] === COPILOT && isOurCommand(sh, rest, known)
}

/** Refuses a file we could not merge into without guessing (docs/design.md §5: never damage it). */
export const checkCopilotMergeable = (settings: JsonObject): void => {
  if (settings.version !== undefined && settings.version !== COPILOT_HOOKS_VERSION)
    throw new TrailbossError(
      `the hook file has "version": ${JSON.stringify(settings.version)}, not ${COPILOT_HOOKS_VERSION}; left it untouched`,
      'fix it by hand, or move it away and run install again',
    )
  if (settings.hooks === undefined) return
  if (!isJsonObject(settings.hooks))
    throw new TrailbossError('"hooks" in the hook file is not an object; left it untouched', 'fix it by hand, then run install again')
  for (const [event, list] of Object.entries(settings.hooks))
    if (!Array.isArray(list))
      throw new TrailbossError(
        `"hooks.${event}" in the hook file is not a list; left it untouched`,
        'fix it by hand, then run install again',
      )
}

/**
 * Pure: the file without any entry of ours. An event list that only ours filled goes (unless
 * in `keepEvents`), `hooks` too once empty (unless `keepHooks`), and then `"version": 1` when
 * nothing else is left, so a file install made is removed whole.
 */
export const unmergeCopilotHooks = (
  settings: JsonObject,
  known: readonly string[] = [],
  keepEvents: readonly string[] = [],
  keepHooks = false,
): JsonObject => {
  if (!isJsonObject(settings.hooks)) return settings
  const hooks: JsonObject = {}
  let changed = false
  for (const [event, list] of Object.entries(settings.hooks)) {
    if (!Array.isArray(list)) {
      hooks[event] = list
      continue
    }
    const kept = list.filter((h) => !isOurCopilotHook(h, known))
    if (kept.length !== list.length) changed = true
    if (kept.length > 0 || list.length === 0 || keepEvents.includes(event)) hooks[event] = kept.length === list.length ? list : kept
  }
  if (!changed) return settings
  const { hooks: _old, ...rest } = settings
  if (Object.keys(hooks).length > 0 || keepHooks) return { ...rest, hooks }
  const { version, ...others } = rest
  return Object.keys(others).length === 0 && version === COPILOT_HOOKS_VERSION ? {} : rest
}

/**
 * Pure: the file with exactly our entry for each event, at the end of its list (so no foreign
 * entry sits after ours, where taking ours out would move it); every foreign key and entry stays
 * as it was, in its order. A new file gets `"version": 1` first.
 */
export const mergeCopilotHooks = (settings: JsonObject, command: EmitterCommand, known: readonly string[] = []): JsonObject => {
  checkCopilotMergeable(settings)
  const base: JsonObject = settings.version === undefined ? { version: COPILOT_HOOKS_VERSION, ...settings } : { ...settings }
  const old = isJsonObject(settings.hooks) ? settings.hooks : {}
  const hooks: JsonObject = {}
  for (const [event, list] of Object.entries(old))
    hooks[event] = Array.isArray(list) ? list.filter((h) => !isOurCopilotHook(h, known)) : list
  for (const event of COPILOT_HOOK_EVENTS) {
    const list = hooks[event]
    hooks[event] = [...(Array.isArray(list) ? list : []), deriveCopilotHookEntry(event, command)]
  }
  return { ...base, hooks }
}

/** The hook file of a scope: the user's hooks folder, or the repository's `.github/hooks` (read once the folder is trusted). */
export const copilotHookFileFor = (scope: Scope, env: Env, cwd: string): string => {
  switch (scope) {
    case 'user':
      return join(copilotHooksDir(env), COPILOT_HOOK_FILE)
    case 'project':
      return join(resolve(cwd), '.github', 'hooks', COPILOT_HOOK_FILE)
    case 'local':
      throw new TrailbossError('GitHub Copilot CLI has no local hook file', 'use --scope user (or project)', EXIT_USAGE)
  }
}
