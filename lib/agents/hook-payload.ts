// Pure: what every agent's hook payload starts with (a JSON object naming its event and a
// session id that is safe to name a file), and what the emitter knows beside it. Each agent's
// hook-event.ts reads the rest. On the emitter's path: node builtins and pure code only.
import { type Env, isValidSessionId } from '../paths.js'
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
    return typeof sessionId === 'string' ? `invalid session_id ${JSON.stringify(sessionId.slice(0, 80))}` : `invalid session_id (${sessionId === null ? 'null' : typeof sessionId})`
  }
  return { fields, name, sessionId }
}

/**
 * The EventContext of one payload: the size of its `transcript_path` when `isTranscript` accepts
 * that path (each agent knows where its transcripts may live), and the project's label from the
 * agent's project-folder variable (`projectDir`) or else the payload's cwd.
 */
export const deriveEventContext = (payload: unknown, ctx: HookContext, isTranscript: (path: unknown) => path is string, projectDir: string | undefined): EventContext => {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>
  const offset = isTranscript(p.transcript_path) ? ctx.fileSize(p.transcript_path) : null
  return { env: ctx.env, stamp: ctx.stamp, host: ctx.host, offset, project: ctx.projectLabel(projectDir, str(p.cwd)) }
}
