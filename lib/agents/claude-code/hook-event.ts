// Pure: a Claude Code hook payload (+ the hook's environment) becomes a HookEvent. On the
// emitter's path, which runs on every agent event: nothing heavy here.
import type { HookEvent } from '../../record/types.js'
import { buildHookEvent, type EventContext, str } from '../hook-payload.js'

export const CLAUDE_CODE = 'claude-code'

/**
 * Turns a parsed payload into a HookEvent, or explains why it cannot be one. The session id
 * is validated here because it names a file.
 */
export const normalizeEvent = (payload: unknown, ctx: EventContext): HookEvent | string =>
  buildHookEvent(payload, ctx, (p, name) => ({
    agent: CLAUDE_CODE,
    promptId: str(p.prompt_id),
    // `claude -p` and the SDK run with this entrypoint: nobody sits at a pane (docs/design.md §3.2).
    headless: (ctx.env.CLAUDE_CODE_ENTRYPOINT ?? '').startsWith('sdk'),
    notificationType: str(p.notification_type),
    message: name === 'Notification' ? str(p.message) : (str(p.last_assistant_message) ?? (name === 'StopFailure' ? str(p.error) : null)),
    toolUseId: str(p.tool_use_id),
    backgroundTasks: Array.isArray(p.background_tasks) ? p.background_tasks.length : 0,
    isInterrupt: p.is_interrupt === true,
  }))
