// Pure: a Codex hook payload (+ the hook's environment) becomes a HookEvent. On the emitter's
// path (and the spool fold's): nothing heavy here. Field facts: test/fixtures/codex/README.md.
import { type Env, isValidSessionId } from '../../paths.js'
import { capInput, capText } from '../../record/context-cap.js'
import type { HookEvent } from '../../record/types.js'
import { parseTmuxEnv } from '../../tmux/env.js'

export const CODEX = 'codex'

export interface CodexEventContext {
  env: Env
  stamp: number
  host: string
  offset: number | null
  project: string | null
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/**
 * Codex's payload as our event. Its `turn_id` (every event but SessionStart and SessionEnd)
 * is the rollout's turn id: it plays the part of Claude Code's prompt id.
 */
export const normalizeCodexEvent = (payload: unknown, ctx: CodexEventContext): HookEvent | string => {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'payload is not a JSON object'
  const p = payload as Record<string, unknown>
  const name = str(p.hook_event_name)
  if (!name) return 'payload has no hook_event_name'
  const sessionId = p.session_id
  if (!isValidSessionId(sessionId)) {
    return typeof sessionId === 'string' ? `invalid session_id ${JSON.stringify(sessionId.slice(0, 80))}` : `invalid session_id (${sessionId === null ? 'null' : typeof sessionId})`
  }
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
