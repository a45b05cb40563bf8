// The contract for scripts (docs/design.md §6) as zod schemas: `ls --json` output and the record file.
// Not on any command's path; tests check real output against these, and the JSON Schema files
// in docs/ are generated from them (npm run schemas).
import * as z from 'zod/mini'
import { recordSchema } from '../record/schema.js'
import { WAIT_KINDS } from '../record/types.js'

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

export const lsOutputSchema = z.object({
  version: z.literal(2),
  queue: z.array(lsItemSchema),
  tmux: z.enum(['ok', 'unavailable']),
  skipped: z.array(z.object({ file: z.string(), why: z.string() })),
  /** A short hash of the rest of the document: the same queue gives the same digest (`ls --until-change`). */
  digest: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  /** Every other host read (trailboss hosts), in the list's order; empty without any. Outside the digest. Added in 2 (absent before). */
  hosts: z.optional(z.array(lsHostSchema)),
})

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
} as const

/** Each document's version (docs/design.md §6.3: it moves only when a field is removed, renamed or changes meaning). */
const VERSIONS: Record<string, number> = { 'ls.schema.json': 2, 'record.schema.json': 1 }

export const toJsonSchema = (schema: z.ZodMiniType, name: string): unknown => ({
  title: `trailboss ${name.replace('.schema.json', '')} (version ${VERSIONS[name] ?? 1})`,
  ...z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }),
})
