// Pure: a Codex hook payload (+ the hook's environment) becomes a HookEvent. On the emitter's
// path (and the spool fold's): nothing heavy here. Field facts: test/fixtures/codex/README.md.
import type { HookEvent } from '../../record/types.js'
import { buildHookEvent, type EventContext, str } from '../hook-payload.js'

export const CODEX = 'codex'

/**
 * Codex's payload as our event. Its `turn_id` (every event but SessionStart and SessionEnd)
 * is the rollout's turn id: it plays the part of Claude Code's prompt id.
 */
export const normalizeCodexEvent = (payload: unknown, ctx: EventContext): HookEvent | string =>
  buildHookEvent(payload, ctx, (p, name) => ({
    agent: CODEX,
    promptId: str(p.turn_id),
    // `codex exec` runs hooks too, with nobody at a pane; it has no TMUX_PANE of its own.
    headless: false,
    notificationType: null,
    message: str(p.last_assistant_message),
    toolUseId: str(p.tool_use_id),
    backgroundTasks: 0,
    isInterrupt: name === 'Interrupt',
  }))
