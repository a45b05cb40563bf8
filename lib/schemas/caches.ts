// The caches Trail Boss keeps between runs under $TRAILBOSS_HOME (docs/queue.md, "Caches"), as zod
// schemas: the one description of each file's shape. Readers on the path of `ls` and `status`
// check files with lib/cache/check.generated.js, which `npm run schemas` compiles from these
// (test/contract.test.ts keeps the two in step); zod itself stays off that path.
import * as z from 'zod/mini'
import { lsOutputSchema } from './contract.js'
import { liveState, type Same, tmux, toolCall, waitKind } from '../record/schema.js'
import { DISCOVERY_VERSION, type DiscoveryCache, type ScreenMemo } from '../queue/discovery-cache.js'
import { SCREENS_VERSION, type ScreenCacheEntry } from '../queue/screen-cache.js'
import { NUMBERS_VERSION, type NumberEntry } from '../queue/numbers.js'
import { SEEN_VERSION, type SeenMark } from '../queue/seen.js'
import { ORIGIN_VERSION, type Origin } from '../queue/origin.js'
import { TRANSCRIPT_MEMO_VERSION, type TranscriptMemoEntry } from '../queue/transcript-memo.js'
import { SNAPSHOT_VERSION } from '../record/snapshot.js'
import { NOTIFY_STATE_VERSION, type NotifyState } from '../notify/state.js'
import { ACTIVITY_VERSION, type ActivityFile } from '../history/activity.js'

const time = z.number()
const screenVerdict = z.enum(['working', 'permission', 'interrupted', 'idle', 'unknown'])
const byId = <T extends z.ZodMiniType>(entry: T) => z.record(z.string(), entry)

const screenEntry = z.object({ at: time, lastEventAt: time, verdict: screenVerdict })
export const screensSchema = z.object({ v: z.literal(SCREENS_VERSION), entries: byId(screenEntry) })

const registrySession = z.object({
  sessionId: z.string(),
  status: z.string(),
  waitingFor: z.nullable(z.string()),
  statusUpdatedAt: time,
  pid: z.nullable(z.number()),
  procStart: z.nullable(z.number()),
  cwd: z.nullable(z.string()),
  kind: z.nullable(z.string()),
})
const registryMemo = z.object({ mtimeMs: time, size: z.number(), session: z.nullable(registrySession), tmux })
const paneMemo = z.object({
  panePid: z.number(),
  command: z.string(),
  agent: z.nullable(z.string()),
  pid: z.nullable(z.number()),
  startTicks: z.nullable(z.number()),
  cwd: z.nullable(z.string()),
  project: z.optional(z.nullable(z.string())),
  sessionId: z.nullable(z.string()),
  transcriptPath: z.nullable(z.string()),
  hadTurn: z.boolean(),
  lookedAt: time,
  folders: z.optional(z.nullable(z.string())),
})
const screenMemo = z.object({ pid: z.number(), at: time, size: z.number(), verdict: screenVerdict, since: time })
const askMemo = z.object({ size: z.number(), tool: toolCall, message: z.nullable(z.string()) })
const waitMemo = z.object({
  state: liveState,
  kind: waitKind,
  since: time,
  size: z.number(),
  record: z.optional(z.object({ firstEventAt: time, continues: z.boolean() })),
})
export const discoverySchema = z.object({
  v: z.literal(DISCOVERY_VERSION),
  /** Per agent, per registry file name. */
  registry: byId(byId(registryMemo)),
  panes: byId(paneMemo),
  screens: byId(screenMemo),
  asks: byId(askMemo),
  waits: byId(waitMemo),
})

const transcriptVerdict = z.union([
  z.object({ verdict: z.literal('moved-on'), at: time, why: z.enum(['new-prompt', 'tool-answered']) }),
  z.object({ verdict: z.literal('interrupted'), at: time }),
  z.object({ verdict: z.literal('error'), at: time, message: z.string() }),
])
const transcriptEntry = z.object({ r: z.string(), f: z.string(), v: z.nullable(transcriptVerdict) })
export const transcriptsSchema = z.object({ v: z.literal(TRANSCRIPT_MEMO_VERSION), entries: byId(transcriptEntry) })

// Each entry's record is checked by the record's own compiled check (lib/record/snapshot.ts): the
// file's check holds the snapshot's frame only, not a second copy of the record schema.
export const recordsSchema = z.object({
  v: z.literal(SNAPSHOT_VERSION),
  dir: z.string(),
  entries: byId(z.object({ k: z.string(), r: z.record(z.string(), z.unknown()) })),
})

/** A session of this machine, or `<destination>:<session id>` for one of another host (lib/remote/items.ts). */
const numberedSession = z.string().check(z.regex(/^(?:[A-Za-z0-9._@:%[\]-]{1,253}:)?[A-Za-z0-9_-]{1,128}$/))
const numberEntry = z.object({ n: z.number().check(z.int(), z.gte(1)), sessionId: numberedSession, since: time, freedAt: z.nullable(time) })
export const numbersSchema = z.object({ v: z.literal(NUMBERS_VERSION), waits: z.array(numberEntry) })

export const notifySchema = z.object({
  v: z.literal(NOTIFY_STATE_VERSION),
  told: z.record(z.string(), z.array(z.string())),
  said: z.optional(z.array(z.string())),
  digestAt: z.optional(time),
})

export const activitySchema = z.object({
  v: z.literal(ACTIVITY_VERSION),
  at: time,
  away: z.optional(z.object({ since: time, back: time })),
})

export const seenSchema = z.object({ v: z.literal(SEEN_VERSION), since: time, seenAt: z.nullable(time), activeAt: z.nullable(time) })

export const originSchema = z.object({
  v: z.literal(ORIGIN_VERSION),
  socket: z.string(),
  client: z.string(),
  pane: z.string().check(z.regex(/^%\d+$/)),
  at: time,
})

// Not a cache but the person's list (lib/remote/hosts-file.ts), read on the path of `ls` all the
// same: held to this shape by the same compiled kind of check. The remote layer sits above this
// one, so its version is written here as the number it is (test/hosts.test.ts reads back what
// addHost writes). The names themselves are checked by lib/remote/host-name.ts.
export const hostsSchema = z.object({
  v: z.literal(1),
  hosts: z.array(z.object({ destination: z.string(), addedAt: z.string() })),
})

/** Every cache, by the name its compiled check is exported under (lib/cache/check.generated.js). */
export const CACHE_SCHEMAS = {
  checkScreens: screensSchema,
  checkDiscovery: discoverySchema,
  checkTranscripts: transcriptsSchema,
  checkRecords: recordsSchema,
  checkNumbers: numbersSchema,
  checkNotify: notifySchema,
  checkSeen: seenSchema,
  checkOrigin: originSchema,
  checkHosts: hostsSchema,
  checkActivity: activitySchema,
  // Not a cache: another host's `ls --json` (lib/remote/answer.ts), checked on the path of `ls`
  // without zod; zod has the last word on what this stricter check refuses (a newer host's fields).
  checkListing: lsOutputSchema,
} as const

// The schemas and the types the code is written against must not drift apart.
const _same: [
  Same<z.infer<typeof screenEntry>, ScreenCacheEntry>,
  Same<z.infer<typeof screenMemo>, ScreenMemo>,
  Same<Omit<z.infer<typeof discoverySchema>, 'v' | 'registry'>, Omit<DiscoveryCache, 'registry'>>,
  Same<z.infer<typeof transcriptEntry>, TranscriptMemoEntry>,
  Same<z.infer<typeof numberEntry>, NumberEntry>,
  Same<Omit<z.infer<typeof seenSchema>, 'v'>, SeenMark>,
  Same<Omit<z.infer<typeof originSchema>, 'v'>, Origin>,
  Same<Omit<z.infer<typeof notifySchema>, 'v'>, Omit<NotifyState, 'v'>>,
  Same<Omit<z.infer<typeof activitySchema>, 'v'>, Omit<ActivityFile, 'v'>>,
] = [true, true, true, true, true, true, true, true, true]
void _same
