// Pure: a Gemini CLI hook payload (+ the hook's environment) becomes a HookEvent. On the
// emitter's path, which runs on every agent event: nothing heavy here. Payload fields as Gemini
// CLI 0.61.0 sends them (test/fixtures/gemini/hooks.jsonl).
import { capInput, capText } from '../../record/context-cap.js'
import type { HookEvent } from '../../record/types.js'
import { parseTmuxEnv } from '../../tmux/env.js'
import { type EventContext, readPayloadHead, str } from '../hook-payload.js'

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
export const normalizeGeminiEvent = (payload: unknown, ctx: EventContext): HookEvent | string => {
  const head = readPayloadHead(payload)
  if (typeof head === 'string') return head
  const { fields: p, name, sessionId } = head
  const toolName = str(p.tool_name)
  const message = messageOf(name, p)
  return {
    v: 1,
    stamp: ctx.stamp,
    name,
    sessionId,
    agent: GEMINI,
    // Gemini CLI numbers neither prompts nor turns.
    promptId: null,
    host: ctx.host,
    headless: false,
    cwd: str(p.cwd),
    project: ctx.project,
    transcriptPath: str(p.transcript_path),
    offset: ctx.offset,
    tmux: parseTmuxEnv(ctx.env.TMUX, ctx.env.TMUX_PANE),
    source: str(p.source),
    reason: str(p.reason),
    notificationType: str(p.notification_type),
    tool: toolName ? { name: toolName, input: capInput(p.tool_input), useId: null } : null,
    message: message === null ? null : capText(message),
    backgroundTasks: 0,
    isInterrupt: false,
  }
}
