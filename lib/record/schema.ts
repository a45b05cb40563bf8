// The session record's schema: the one source of truth for the file format, used by every
// reader (the emitter trusts its own writes with a light check instead, to start fast).
// zod/mini keeps the bundled CLI small; docs/record.schema.json is generated from this file.
import * as z from 'zod/mini'
import { AGENT_IDS } from './agent-ids.generated.js'
import { SESSION_ID_PATTERN } from '../paths.js'
import { LIVE_STATES, WAIT_KINDS, type HookEvent, type SessionRecord } from './types.js'

/**
 * The registered agents, as `npm run schemas` wrote them from lib/agents/hook-registry.ts: the
 * record layer sits below the agents and does not import them (docs/design.md §9), and the
 * compiled check and docs/record.schema.json follow the same run.
 */
const agent = z.enum(AGENT_IDS)
export const sessionId = z.string().check(z.regex(SESSION_ID_PATTERN))

export const tmux = z.nullable(
  z.object({
    pane: z.string().check(z.regex(/^%\d+$/)),
    socket: z.string(),
    serverPid: z.nullable(z.number()),
  }),
)

export const toolCall = z.nullable(
  z.object({
    name: z.string(),
    input: z.unknown(),
    useId: z.nullable(z.string()),
  }),
)

/** Optional: records and pending events of older emitters have none. */
const agentProcess = z.optional(
  z.nullable(
    z.object({
      pid: z.number(),
      startTicks: z.nullable(z.number()),
    }),
  ),
)

export const liveState = z.enum(LIVE_STATES)
export const waitKind = z.nullable(z.enum(WAIT_KINDS))

export const recordSchema = z.object({
  v: z.literal(1),
  agent,
  sessionId,
  host: z.string(),
  headless: z.boolean(),
  cwd: z.nullable(z.string()),
  project: z.nullable(z.string()),
  transcriptPath: z.nullable(z.string()),
  tmux,
  state: liveState,
  kind: waitKind,
  since: z.number(),
  event: z.string(),
  promptId: z.nullable(z.string()),
  tool: toolCall,
  message: z.nullable(z.string()),
  offset: z.nullable(z.number()),
  lastTool: toolCall,
  turnEndedPromptId: z.nullable(z.string()),
  backgroundTasks: z.number(),
  firstEventAt: z.number(),
  lastEventAt: z.number(),
  lastEvent: z.string(),
  stateStamp: z.number(),
  events: z.number(),
  foldedPending: z.array(z.string()),
  denied: z.optional(z.nullable(z.object({ tool: z.string(), reason: z.nullable(z.string()), at: z.number() }))),
  agentProcess,
})

// The schema and the TypeScript type the emitter writes must not drift apart.
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never
const _recordMatches: Same<z.infer<typeof recordSchema>, SessionRecord> = true
void _recordMatches

export const hookEventSchema = z.object({
  v: z.literal(1),
  stamp: z.number(),
  name: z.string(),
  sessionId,
  agent,
  promptId: z.nullable(z.string()),
  host: z.string(),
  headless: z.boolean(),
  cwd: z.nullable(z.string()),
  project: z.nullable(z.string()),
  transcriptPath: z.nullable(z.string()),
  offset: z.nullable(z.number()),
  tmux,
  source: z.nullable(z.string()),
  reason: z.nullable(z.string()),
  notificationType: z.nullable(z.string()),
  tool: toolCall,
  message: z.nullable(z.string()),
  backgroundTasks: z.number(),
  isInterrupt: z.boolean(),
  agentProcess,
})
const _eventMatches: Same<z.infer<typeof hookEventSchema>, HookEvent> = true
void _eventMatches

/** Validates a parsed record file; the message names the first problem, for `skipped` lines. */
export const parseRecord = (data: unknown): { ok: true; record: SessionRecord } | { ok: false; why: string } => {
  const r = recordSchema.safeParse(data)
  if (r.success) return { ok: true, record: r.data as SessionRecord }
  const issue = r.error.issues[0]
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
  return { ok: false, why: `not a session record (${where}${issue?.message ?? 'invalid'})` }
}
