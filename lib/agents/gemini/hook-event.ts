// Pure: a Gemini CLI hook payload (+ the hook's environment) becomes a HookEvent. On the
// emitter's path, which runs on every agent event: nothing heavy here. Payload fields as Gemini
// CLI 0.61.0 sends them (test/fixtures/gemini/hooks.jsonl).
import type { HookEvent } from '../../record/types.js'
import { buildHookEvent, type EventContext, str } from '../hook-payload.js'

export const GEMINI = 'gemini'

/**
 * What AfterAgent carries as `prompt_response` when the turn produced no text: after an API
 * error, and after an Esc before any output. Not a message; the chat file tells which it was.
 */
export const NO_RESPONSE_TEXT = '[no response text]'

const messageOf = (name: string, p: Record<string, unknown>): string | null => {
  if (name === 'Notification') return str(p.message)
  if (name !== 'AfterAgent') return null
  const text = str(p.prompt_response)
  return text === null || text.trim() === '' || text === NO_RESPONSE_TEXT ? null : text
}

/** Turns a parsed payload into a HookEvent, or says why it cannot be one (the id names a file). */
export const normalizeGeminiEvent = (payload: unknown, ctx: EventContext): HookEvent | string =>
  buildHookEvent(payload, ctx, (p, name) => ({
    agent: GEMINI,
    // Gemini CLI numbers neither prompts nor turns.
    promptId: null,
    headless: false,
    notificationType: str(p.notification_type),
    message: messageOf(name, p),
    // Its tool calls carry no id.
    toolUseId: null,
    backgroundTasks: 0,
    isInterrupt: false,
  }))
