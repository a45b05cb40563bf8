// Pure: a Claude Code hook payload (+ the hook's environment) becomes a HookEvent. On the
// emitter's path, which runs on every agent event: nothing heavy here.
import { capInput, capText } from '../../record/context-cap.js'
import type { HookEvent } from '../../record/types.js'
import { parseTmuxEnv } from '../../tmux/env.js'
import { type EventContext, readPayloadHead, str } from '../hook-payload.js'

export const CLAUDE_CODE = 'claude-code'

/**
 * Turns a parsed payload into a HookEvent, or explains why it cannot be one. The session id
 * is validated here because it names a file.
 */
export const normalizeEvent = (payload: unknown, ctx: EventContext): HookEvent | string => {
  const head = readPayloadHead(payload)
  if (typeof head === 'string') return head
  const { fields: p, name, sessionId } = head
  const { env } = ctx
  // `claude -p` and the SDK run with this entrypoint: nobody sits at a pane (docs/design.md §3.2).
  const headless = (env.CLAUDE_CODE_ENTRYPOINT ?? '').startsWith('sdk')
  const toolName = str(p.tool_name)
  const message =
    name === 'Notification'
      ? str(p.message)
      : str(p.last_assistant_message) ?? (name === 'StopFailure' ? str(p.error) : null)
  return {
    v: 1,
    stamp: ctx.stamp,
    name,
    sessionId,
    agent: CLAUDE_CODE,
    promptId: str(p.prompt_id),
    host: ctx.host,
    headless,
    cwd: str(p.cwd),
    project: ctx.project,
    transcriptPath: str(p.transcript_path),
    offset: ctx.offset,
    tmux: headless ? null : parseTmuxEnv(env.TMUX, env.TMUX_PANE),
    source: str(p.source),
    reason: str(p.reason),
    notificationType: str(p.notification_type),
    tool: toolName ? { name: toolName, input: capInput(p.tool_input), useId: str(p.tool_use_id) } : null,
    message: message === null ? null : capText(message),
    backgroundTasks: Array.isArray(p.background_tasks) ? p.background_tasks.length : 0,
    isInterrupt: p.is_interrupt === true,
  }
}
