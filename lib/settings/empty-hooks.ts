// Pure: the empty hook containers a settings file held before `install` filled them: `"hooks": {}`
// and event lists `[]`. Our entries go into them in place, and after that nothing in the file
// tells a list we filled from one we created, so `install` keeps this note (settings/install-note.ts)
// and `uninstall` leaves those containers empty instead of removing them: the file comes back
// byte for byte.
import { isJsonObject, type JsonObject } from './json-value.js'

export interface EmptyHooks {
  /** `"hooks"` was an empty object. */
  hooks: boolean
  /** Events whose list was empty, in the file's order. */
  events: string[]
}

/** The empty containers under `hooks`, or null when there are none (or no `hooks` object). */
export const deriveEmptyHooks = (settings: JsonObject): EmptyHooks | null => {
  const hooks = settings.hooks
  if (!isJsonObject(hooks)) return null
  const events = Object.entries(hooks)
    .filter(([, groups]) => Array.isArray(groups) && groups.length === 0)
    .map(([event]) => event)
  const empty = Object.keys(hooks).length === 0
  return empty || events.length > 0 ? { hooks: empty, events } : null
}

/** Whether a note read back from disk has the shape deriveEmptyHooks gives. */
export const isEmptyHooks = (v: unknown): v is EmptyHooks =>
  isJsonObject(v) && typeof v.hooks === 'boolean' && Array.isArray(v.events) && v.events.every((e) => typeof e === 'string')
