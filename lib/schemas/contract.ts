// The contract for scripts (docs/design.md §6) as zod schemas: `ls --json` output, the record
// file and `report --json` output (§11.5).
// Not on any command's path; tests check real output against these, and the JSON Schema files
// in docs/ are generated from them (npm run schemas).
import * as z from 'zod/mini'
import { recordSchema, type Same } from '../record/schema.js'
import { LIVE_STATES, WAIT_KINDS } from '../record/types.js'
import { REPORT_GROUPINGS, type Report } from '../history/types.js'

const kind = z.nullable(z.enum(WAIT_KINDS))

export const lsItemSchema = z.object({
  /** The wait's number, kept while it waits (version 2; version 1's was its position); null for a session that does not wait. */
  n: z.nullable(z.number().check(z.int(), z.positive())),
  key: z.string().check(z.minLength(1)),
  sessionId: z.string(),
  agent: z.string(),
  state: z.enum(['permission', 'waiting', 'working', 'idle', 'ended', 'gone']),
  kind,
  since: z.iso.datetime(),
  cwd: z.nullable(z.string()),
  project: z.nullable(z.string()),
  host: z.string(),
  headless: z.boolean(),
  tmux: z.nullable(
    z.object({
      pane: z.string(),
      socket: z.string(),
      alive: z.nullable(z.boolean()),
      /** Where the pane sits as tmux names it now; null when it is not live or tmux was not asked. */
      place: z.nullable(z.object({ session: z.string(), window: z.number(), windowName: z.string() })),
    }),
  ),
  inferred: z.boolean(),
  reason: z.nullable(z.string()),
  needsYou: z.boolean(),
  seen: z.boolean(),
  ask: z.object({ tool: z.nullable(z.string()), input: z.unknown(), message: z.nullable(z.string()) }),
  lastEventAt: z.iso.datetime(),
  denied: z.nullable(z.object({ tool: z.string(), reason: z.nullable(z.string()), at: z.iso.datetime() })),
  /** Trail Boss's own advice about the session (no hooks: how to give it some), apart from `ask`. */
  hint: z.nullable(z.string()),
  /** The host it was read from, as `trailboss hosts add` named it; null for this machine's. Added in 2 (absent before). */
  destination: z.optional(z.nullable(z.string())),
  /** Its host did not answer this time: the item is its last known state. Added in 2 (absent before). */
  stale: z.optional(z.boolean()),
})

export const lsHostSchema = z.object({
  destination: z.string(),
  /** Whether it answered this time. */
  answered: z.boolean(),
  /** Why it did not answer; null when it did. */
  why: z.nullable(z.string()),
  /** When the queue shown for it was read (its last good answer when it did not answer); null: never. */
  queueAt: z.nullable(z.iso.datetime()),
  /** How old that queue is, in seconds; null: never. */
  queueAge: z.nullable(z.number().check(z.gte(0))),
})

const count = z.number().check(z.int(), z.gte(0))

/** What arrived while the person was away (docs/design.md §11.8), as `ls --json --return-digest` carries it. */
export const lsReturnDigestSchema = z.object({
  /** The quiet stretch: from the last sign of the person to this read. */
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  /** The digest on one line, visible text (a toast, a message line). */
  line: z.string(),
  /** Waits that began in the stretch and ask the person something, by kind. */
  waits: z.object({ count, byKind: z.object({ permission: count, question: count, interrupted: count }) }),
  /** Turns that finished in the stretch. */
  done: count,
  /** Turns that stopped on an error in the stretch. */
  errors: count,
  /** The oldest wait still open; `key` is its number as `go` takes it. */
  oldest: z.nullable(
    z.object({
      key: z.string(),
      agent: z.string(),
      project: z.nullable(z.string()),
      kind,
      since: z.iso.datetime(),
      ageMs: z.number().check(z.gte(0)),
    }),
  ),
})

export const lsOutputSchema = z.object({
  version: z.literal(2),
  queue: z.array(lsItemSchema),
  tmux: z.enum(['ok', 'unavailable']),
  skipped: z.array(z.object({ file: z.string(), why: z.string() })),
  /** A short hash of the rest of the document: the same queue gives the same digest (`ls --until-change`). */
  digest: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  /** Every other host read (trailboss hosts), in the list's order; empty without any. Outside the digest. Added in 2 (absent before). */
  hosts: z.optional(z.array(lsHostSchema)),
  /** Only with `--return-digest`, on the read that ends a quiet stretch (once per stretch); absent otherwise. Outside the digest. */
  returnDigest: z.optional(lsReturnDigestSchema),
})

const ms = z.number().check(z.gte(0))
const epochMs = z.number()
const kindTimes = z.object({ permission: ms, question: ms, done: ms, error: ms, interrupted: ms })
const waitKind = z.nullable(z.enum(WAIT_KINDS))
const where = { sessionId: z.string(), agent: z.string(), project: z.string(), host: z.string() }

/** `report --json` (lib/history/types.ts Report): times in ms, moments in ms since the epoch. */
export const reportOutputSchema = z.object({
  version: z.literal(1),
  since: epochMs,
  until: epochMs,
  timeZone: z.string(),
  by: z.enum(REPORT_GROUPINGS),
  blocked: z.object({
    totalMs: ms,
    byKind: kindTimes,
    groups: z.array(z.object({ name: z.string(), blockedMs: ms, byKind: kindTimes, waits: z.number().check(z.int(), z.gte(0)) })),
  }),
  answers: z.object({
    count: z.number().check(z.int(), z.gte(0)),
    p50Ms: z.nullable(ms),
    p90Ms: z.nullable(ms),
    longest: z.nullable(z.object({ ms, sessionId: z.string(), kind: waitKind, at: epochMs })),
  }),
  sessions: z.array(z.object({ ...where, workingMs: ms, waitingMs: ms, idleMs: ms, unaccountedMs: ms })),
  /** Waits that began in each local hour, 0 to 23. */
  waitsPerHour: z.array(z.number().check(z.int(), z.gte(0))).check(z.length(24)),
  unaccountedMs: ms,
  spans: z.array(
    z.object({
      ...where,
      state: z.enum([...LIVE_STATES, 'gone']),
      kind: waitKind,
      start: epochMs,
      end: epochMs,
      ask: z.optional(z.string()),
    }),
  ),
  /** History lines skipped as torn or foreign; absent when none. */
  skippedLines: z.optional(z.number().check(z.int(), z.positive())),
})
// The schema and the type the report is computed as stay one shape.
const _reportMatches: Same<z.infer<typeof reportOutputSchema>, Report & { version: 1 }> = true
void _reportMatches

/** One line of a transcript as `show --json` gives it (lib/agents/types.ts ConversationLine). */
export const conversationLineSchema = z.object({
  who: z.enum(['you', 'agent', 'tool', 'result']),
  text: z.string(),
  at: z.nullable(z.string()),
  tool: z.optional(z.object({ name: z.string(), input: z.unknown() })),
})

/** `show --json`: one item as `ls --json` gives it, with its transcript's last lines and its screen. */
export const showOutputSchema = z.object({
  version: z.literal(2),
  item: lsItemSchema,
  transcriptPath: z.nullable(z.string()),
  conversation: z.nullable(z.array(conversationLineSchema)),
  screen: z.nullable(z.string()),
})

export const SCHEMAS = {
  'ls.schema.json': lsOutputSchema,
  'record.schema.json': recordSchema,
  'report.schema.json': reportOutputSchema,
} as const

/** Each document's version (docs/design.md §6.3: it moves only when a field is removed, renamed or changes meaning). */
const VERSIONS: Record<string, number> = { 'ls.schema.json': 2, 'record.schema.json': 1, 'report.schema.json': 1 }

export const toJsonSchema = (schema: z.ZodMiniType, name: string): unknown => ({
  title: `trailboss ${name.replace('.schema.json', '')} (version ${VERSIONS[name] ?? 1})`,
  ...z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }),
})
