// Pure: taking our entries out of a settings file's `hooks` (event → list of groups), the shape
// Claude Code and Gemini CLI share. What makes a group ours is each agent's own (`withoutOurs`).
import { isJsonObject, type Json, type JsonObject } from './json-value.js'

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
