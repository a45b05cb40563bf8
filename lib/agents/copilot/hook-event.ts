// Pure: a GitHub Copilot CLI hook payload (+ the hook's environment) becomes a HookEvent. On the
// emitter's path (and the spool fold's): nothing heavy here. Payload facts (1.0.102):
// test/fixtures/copilot/README.md.
import type { HookEvent } from '../../record/types.js'
import { buildHookEvent, type EventContext, str } from '../hook-payload.js'

export const COPILOT = 'copilot'

/**
 * The variable our hook command sets to the event's name. Copilot's camelCase payloads do not
 * name their event (only notification's carries a `hook_event_name`), so each event's hook
 * command says which one it is (settings-hooks.ts) and the spool keeps it (hooks.ts sessionEnv).
 */
export const COPILOT_EVENT_ENV = 'TRAILBOSS_COPILOT_EVENT'

/** An event name as our hook command can set it: Copilot's are camelCase words. */
const EVENT_NAME = /^[a-zA-Z]{1,64}$/

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** permissionRequest names the call's input `toolInput`; the tool events name it `toolArgs`. */
const toolInputOf = (name: string, p: Record<string, unknown>): unknown => (name === 'permissionRequest' ? p.toolInput : p.toolArgs)

const messageOf = (name: string, p: Record<string, unknown>): string | null => {
  if (name === 'notification') return str(p.message)
  if (name === 'errorOccurred') return isObject(p.error) ? str(p.error.message) : str(p.error)
  return null
}

/**
 * Copilot's payload as our event. `event`: the name our hook command set; without one (a hook
 * not written by our install) there is no event to fold. The fields are renamed to the
 * snake_case names every agent's payload is read by (hook-payload.ts).
 */
export const normalizeCopilotEvent = (payload: unknown, event: string | undefined, ctx: EventContext): HookEvent | string => {
  if (!isObject(payload)) return 'payload is not a JSON object'
  if (event === undefined || !EVENT_NAME.test(event)) return `no event name in ${COPILOT_EVENT_ENV}`
  const p = payload
  const view = {
    hook_event_name: event,
    session_id: p.sessionId,
    cwd: p.cwd,
    transcript_path: p.transcriptPath,
    source: p.source,
    reason: p.reason,
    tool_name: p.toolName,
    tool_input: toolInputOf(event, p),
  }
  return buildHookEvent(view, ctx, (_fields, name) => ({
    agent: COPILOT,
    // Copilot numbers no prompt or turn in its hooks.
    promptId: null,
    // `copilot -p` runs hooks with nobody at a pane: only the TUI sets COPILOT_LOADER_PID.
    headless: !ctx.env.COPILOT_LOADER_PID,
    notificationType: str(p.notification_type),
    message: messageOf(name, p),
    // Its hooks carry no tool-call id.
    toolUseId: null,
    backgroundTasks: 0,
    isInterrupt: false,
  }))
}
