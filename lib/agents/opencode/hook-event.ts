// Pure: an OpenCode event, as our plugin hands it over (plugin.ts), becomes a HookEvent. On the
// emitter's path (and the spool fold's): nothing heavy here. The plugin has already named the
// event and picked its fields; what they mean is read from OpenCode 1.18.33's captured events
// (test/fixtures/opencode/).
import type { HookEvent } from '../../record/types.js'
import { buildHookEvent, type EventContext, str } from '../hook-payload.js'

export const OPENCODE = 'opencode'

/** The error OpenCode's `session.error` names when the person stopped the turn (Esc). */
export const ABORTED_ERROR = 'MessageAbortedError'

/** OpenCode's payload (from our plugin) as our event. It numbers no prompts; its tool calls have ids. */
export const normalizeOpencodeEvent = (payload: unknown, ctx: EventContext): HookEvent | string =>
  buildHookEvent(payload, ctx, (p, name) => ({
    agent: OPENCODE,
    promptId: null,
    // `opencode run` loads plugins too; nothing in its events tells it from the TUI.
    headless: false,
    notificationType: null,
    message: str(p.message),
    toolUseId: str(p.tool_use_id),
    backgroundTasks: 0,
    isInterrupt: name === 'session.error' && str(p.reason) === ABORTED_ERROR,
  }))
