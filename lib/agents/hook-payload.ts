// Pure: what every agent's hook payload starts with (a JSON object naming its event and a
// session id that is safe to name a file), what the emitter knows beside it, and the HookEvent
// built of the fields all agents' payloads share. Each agent's hook-event.ts maps the rest. On
// the emitter's path: node builtins and pure code only.
import { type Env, isValidSessionId } from '../paths.js'
import { capInput, capText } from '../record/context-cap.js'
import type { AgentId, HookEvent } from '../record/types.js'
import { parseTmuxEnv } from '../tmux/env.js'
import type { HookContext } from './types.js'

/** What the emitter knows of one event beside its payload. */
export interface EventContext {
  env: Env
  stamp: number
  host: string
  /** Transcript (or chat file) size at the event, when it could be stat'ed. */
  offset: number | null
  project: string | null
}

/** A payload field when it is a string. */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

export interface PayloadHead {
  fields: Record<string, unknown>
  name: string
  sessionId: string
}

/**
 * The payload as an object with its event name and a valid session id, or why it is not one.
 * The session id is validated here because it names a file.
 */
export const readPayloadHead = (payload: unknown): PayloadHead | string => {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'payload is not a JSON object'
  const fields = payload as Record<string, unknown>
  const name = str(fields.hook_event_name)
  if (!name) return 'payload has no hook_event_name'
  const sessionId = fields.session_id
  if (!isValidSessionId(sessionId)) {
    // Never String() a payload value: an object's own toString may be anything, or throw.
    return typeof sessionId === 'string'
      ? `invalid session_id ${JSON.stringify(sessionId.slice(0, 80))}`
      : `invalid session_id (${sessionId === null ? 'null' : typeof sessionId})`
  }
  return { fields, name, sessionId }
}

/**
 * The EventContext of one payload: the size of its `transcript_path` when `isTranscript` accepts
 * that path (each agent knows where its transcripts may live), and the project's label from the
 * agent's project-folder variable (`projectDir`) or else the payload's cwd.
 */
export const deriveEventContext = (
  payload: unknown,
  ctx: HookContext,
  isTranscript: (path: unknown) => path is string,
  projectDir: string | undefined,
): EventContext => {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>
  const offset = isTranscript(p.transcript_path) ? ctx.fileSize(p.transcript_path) : null
  return { env: ctx.env, stamp: ctx.stamp, host: ctx.host, offset, project: ctx.projectLabel(projectDir, str(p.cwd)) }
}

/**
 * What an agent's payload means in its own way: the fields whose source differs by agent (or
 * that one agent alone has). `message` is taken uncapped; the builder caps it.
 */
export interface AgentEventFields {
  agent: AgentId
  promptId: string | null
  /** Nobody sits at a pane: the event names no tmux location. */
  headless: boolean
  notificationType: string | null
  message: string | null
  /** The tool call's id, where the agent gives one. */
  toolUseId: string | null
  backgroundTasks: number
  isInterrupt: boolean
}

/**
 * A payload as a HookEvent, or why it cannot be one: the head and the fields every agent's
 * payload names alike (`cwd`, `transcript_path`, `source`, `reason`, `tool_name` and
 * `tool_input`), the hook's tmux pane, and what `own` reads of the rest.
 */
export const buildHookEvent = (
  payload: unknown,
  ctx: EventContext,
  own: (fields: Record<string, unknown>, name: string) => AgentEventFields,
): HookEvent | string => {
  const head = readPayloadHead(payload)
  if (typeof head === 'string') return head
  const { fields: p, name, sessionId } = head
  const a = own(p, name)
  const toolName = str(p.tool_name)
  return {
    v: 1,
    stamp: ctx.stamp,
    name,
    sessionId,
    agent: a.agent,
    promptId: a.promptId,
    host: ctx.host,
    headless: a.headless,
    cwd: str(p.cwd),
    project: ctx.project,
    transcriptPath: str(p.transcript_path),
    offset: ctx.offset,
    tmux: a.headless ? null : parseTmuxEnv(ctx.env.TMUX, ctx.env.TMUX_PANE),
    source: str(p.source),
    reason: str(p.reason),
    notificationType: a.notificationType,
    tool: toolName ? { name: toolName, input: capInput(p.tool_input), useId: a.toolUseId } : null,
    message: a.message === null ? null : capText(a.message),
    backgroundTasks: a.backgroundTasks,
    isInterrupt: a.isInterrupt,
  }
}
