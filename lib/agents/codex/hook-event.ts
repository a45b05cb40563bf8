// Pure: a Codex hook payload (+ the hook's environment) becomes a HookEvent. On the emitter's
// path (and the spool fold's): nothing heavy here. Field facts: test/fixtures/codex/README.md.
import { capInput, capText } from '../../record/context-cap.js'
import type { HookEvent } from '../../record/types.js'
import { parseTmuxEnv } from '../../tmux/env.js'
import { type EventContext, readPayloadHead, str } from '../hook-payload.js'

export const CODEX = 'codex'

/**
 * Codex's payload as our event. Its `turn_id` (every event but SessionStart and SessionEnd)
 * is the rollout's turn id: it plays the part of Claude Code's prompt id.
 */
export const normalizeCodexEvent = (payload: unknown, ctx: EventContext): HookEvent | string => {
  const head = readPayloadHead(payload)
  if (typeof head === 'string') return head
  const { fields: p, name, sessionId } = head
  const toolName = str(p.tool_name)
  const message = str(p.last_assistant_message)
  return {
    v: 1,
    stamp: ctx.stamp,
    name,
    sessionId,
    agent: CODEX,
    promptId: str(p.turn_id),
    host: ctx.host,
    // `codex exec` runs hooks too, with nobody at a pane; it has no TMUX_PANE of its own.
    headless: false,
    cwd: str(p.cwd),
    project: ctx.project,
    transcriptPath: str(p.transcript_path),
    offset: ctx.offset,
    tmux: parseTmuxEnv(ctx.env.TMUX, ctx.env.TMUX_PANE),
    source: str(p.source),
    reason: str(p.reason),
    notificationType: null,
    tool: toolName ? { name: toolName, input: capInput(p.tool_input), useId: str(p.tool_use_id) } : null,
    message: message === null ? null : capText(message),
    backgroundTasks: 0,
    isInterrupt: name === 'Interrupt',
  }
}
