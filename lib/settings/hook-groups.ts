// Pure: putting our entries into a settings file's `hooks` (event → list of groups) and taking
// them out, the shape Claude Code and Gemini CLI share. What makes a hook ours is each agent's
// own (`isOurs`); each agent also refuses, before merging, the settings it cannot merge into.
import { TrailbossError } from '../errors.js'
import { isJsonObject, type Json, type JsonObject } from './json-value.js'

/**
 * Refuses settings we could not merge into without guessing (docs/design.md §5: never damage
 * them): `hooks` that is not an object, or an event in it that is not a list. `notEvents`: keys
 * of `hooks` the agent uses for other things.
 */
export const checkHooksMergeable = (settings: JsonObject, notEvents: readonly string[] = []): void => {
  const hooks = settings.hooks
  if (hooks === undefined) return
  if (!isJsonObject(hooks)) throw new TrailbossError('its "hooks" is not an object', 'fix the file by hand, then run this again')
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups) && !notEvents.includes(event))
      throw new TrailbossError(`its "hooks.${event}" is not a list`, 'fix the file by hand, then run this again')
  }
}

/** Whether a hook entry is ours (each agent's rule, with the emitter files it knows). */
export type IsOurHook = (hook: Json) => boolean

/** Every hook entry of ours in these settings, with its event. */
export const listOurHookEntries = (settings: JsonObject, isOurs: IsOurHook): { event: string; hook: JsonObject }[] => {
  const out: { event: string; hook: JsonObject }[] = []
  const hooks = settings.hooks
  if (!isJsonObject(hooks)) return out
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue
    for (const group of groups) {
      if (!isJsonObject(group) || !Array.isArray(group.hooks)) continue
      for (const hook of group.hooks) if (isJsonObject(hook) && isOurs(hook)) out.push({ event, hook })
    }
  }
  return out
}

/** A group that holds only hooks of ours, for every tool (no matcher, or one that matches all). */
const isOurGroup = (group: Json, isOurs: IsOurHook): boolean =>
  isJsonObject(group) &&
  Object.keys(group).every((k) => k === 'hooks' || k === 'matcher') &&
  (group.matcher === undefined || group.matcher === '' || group.matcher === '*') &&
  Array.isArray(group.hooks) &&
  group.hooks.length > 0 &&
  group.hooks.every((h) => isOurs(h))

/**
 * A group's hooks without ours; null when nothing of it is left. A group that holds none of
 * ours comes back as the very same object, so foreign content is never rebuilt.
 */
export const withoutOurHooks = (group: Json, isOurs: IsOurHook): Json | null => {
  if (!isJsonObject(group) || !Array.isArray(group.hooks)) return group
  if (!group.hooks.some((h) => isOurs(h))) return group
  const rest = group.hooks.filter((h) => !isOurs(h))
  return rest.length === 0 ? null : { ...group, hooks: rest }
}

/**
 * Settings with exactly our entry (`entryFor(event)`) registered for each event: an existing
 * group of ours keeps its place (so a second install changes nothing), stray entries of ours
 * elsewhere go, and every foreign key, group and hook stays as it was, in its order.
 */
export const mergeHookGroups = (
  settings: JsonObject,
  events: readonly string[],
  isOurs: IsOurHook,
  entryFor: (event: string) => JsonObject,
): JsonObject => {
  const cleaned = unmergeHookGroups(settings, (g) => withoutOurHooks(g, isOurs), events, events.length > 0)
  const prevHooks = isJsonObject(settings.hooks) ? settings.hooks : {}
  const hooks: JsonObject = isJsonObject(cleaned.hooks) ? { ...cleaned.hooks } : {}
  for (const event of events) {
    const before = prevHooks[event]
    const ourGroup: JsonObject = { hooks: [entryFor(event)] }
    const firstOurs = Array.isArray(before) ? before.findIndex((g) => isOurGroup(g, isOurs)) : -1
    const kept = Array.isArray(before) ? before.map((g) => withoutOurHooks(g, isOurs)) : []
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
 * Settings whose hook groups have passed through `withoutOurs` (a group back as it was, changed,
 * or null when nothing of it is left). An event list that only our entries filled goes with them,
 * and the hooks object too when nothing is left in it; everything else stays exactly as it was.
 * `keepEvents` stay as empty lists (for a merge to refill in place, or because they were empty
 * before install), and with `keepHooks` an emptied hooks object stays `{}`.
 */
export const unmergeHookGroups = (
  settings: JsonObject,
  withoutOurs: (group: Json) => Json | null,
  keepEvents: readonly string[],
  keepHooks: boolean,
): JsonObject => {
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
    const kept = groups.map(withoutOurs)
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
  if (next.length > 0 || keepHooks) out.hooks = Object.fromEntries(next) as JsonObject
  else delete out.hooks
  return out
}
