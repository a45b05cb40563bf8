// What `ls --json` prints and `ls` shows, as pure functions: the filters, the order, and the
// document with its digest. `ls` and its `--follow`/`--until-change` watch share them.
import { nodeBinding } from '../node-binding.js'
import { inDefaultQueue, isQueued, type QueueItem } from '../queue/derive.js'
import type { QueueView } from '../queue/load.js'
import { JSON_VERSION, toJsonItem } from '../render/queue-table.js'
import type { HostRead } from '../remote/fleet.js'
import { LOCAL_HOST } from '../remote/host-name.js'
import type { JsonReturnDigest } from './return-digest.js'

/** `--sort`'s orders (lib/options/tables.ts SORTS). */
export type SortKey = 'age' | 'kind' | 'project' | 'pane'

/** What the listing takes of `ls`'s arguments. */
export interface ListingArgs {
  all: boolean
  kind?: readonly string[] | undefined
  project?: readonly string[] | undefined
  /** `--host`: only the items of these destinations (lib/remote/). */
  host?: readonly string[] | undefined
  sort: SortKey
}

export interface LsFilter {
  all: boolean
  kinds?: readonly string[] | undefined
  projects?: readonly string[] | undefined
  hosts?: readonly string[] | undefined
  olderThanMs?: number | undefined
}

/** Pure: filters keep each item's number (docs/design.md §4.5). */
export const filterItems = (items: readonly QueueItem[], f: LsFilter, now: number): QueueItem[] =>
  items.filter(
    (i) =>
      (f.all || inDefaultQueue(i)) &&
      (!f.kinds?.length || (i.kind !== null && isQueued(i) && f.kinds.includes(i.kind))) &&
      (!f.projects?.length || f.projects.includes(i.project ?? '')) &&
      (!f.hosts?.length || f.hosts.includes(i.remote?.destination ?? LOCAL_HOST)) &&
      (f.olderThanMs === undefined || now - i.since >= f.olderThanMs),
  )

const SORT_KEYS: Record<SortKey, (i: QueueItem) => string | number> = {
  age: (i) => i.since,
  kind: (i) => `${i.kind ?? '~'}`,
  project: (i) => i.project ?? '',
  pane: (i) => i.tmux?.pane.slice(1).padStart(8, '0') ?? '~',
}

/** The groups, in order: waits that need you, finished turns, other sessions. */
const group = (i: QueueItem): number => (isQueued(i) ? (i.needsYou ? 0 : 1) : 2)

/** Pure: the groups in order; within each, by the chosen key, then oldest first. */
export const sortItems = (items: readonly QueueItem[], sort: SortKey): QueueItem[] => {
  if (sort === 'age') return [...items]
  const key = SORT_KEYS[sort]
  return [...items].sort((a, b) => {
    if (group(a) !== group(b)) return group(a) - group(b)
    const ka = key(a)
    const kb = key(b)
    return ka < kb ? -1 : ka > kb ? 1 : a.since - b.since
  })
}

/** Pure: the items shown, filtered and sorted as the arguments say. */
export const deriveShown = (view: QueueView, args: ListingArgs, olderThanMs: number | undefined): QueueItem[] =>
  sortItems(
    filterItems(view.items, { all: args.all, kinds: args.kind, projects: args.project, hosts: args.host, olderThanMs }, view.now),
    args.sort,
  )

const hex8 = (n: number): string => n.toString(16).padStart(8, '0')

/** The CRC-32 of `bytes`: zlib's native one, from its binding when this Node gives it. */
const crc32Of = (bytes: Buffer): number => {
  const native = nodeBinding<{ crc32?: (data: Uint8Array, value: number) => number }>('zlib')?.crc32
  if (typeof native === 'function') return native(bytes, 0) >>> 0
  return process.getBuiltinModule('node:zlib').crc32(bytes)
}

/**
 * Pure: a short hash of a document's content, whatever its layout: the same queue gives the
 * same digest, so a caller can ask `ls --json --until-change <digest>` to wait for a change.
 * It only has to change when the queue does, so no cryptographic hash: the CRC-32 of each half
 * of the compact JSON's UTF-8 bytes (16 hex digits). zlib's crc32 is native (a loop in script
 * over 30 KB runs cold: 3-4 ms), and its binding alone costs nothing to load, where node:zlib
 * brings the stream classes (3-4 ms when nothing else has loaded them).
 */
export const listingDigest = (content: object): string => {
  const bytes = Buffer.from(JSON.stringify(content), 'utf8')
  const mid = bytes.length >>> 1
  return hex8(crc32Of(bytes.subarray(0, mid))) + hex8(crc32Of(bytes.subarray(mid)))
}

/** A host of `ls --json`'s `hosts` (docs/ls.schema.json). */
export interface JsonHost {
  destination: string
  answered: boolean
  why: string | null
  queueAt: string | null
  queueAge: number | null
}

/** `ls --json`'s document. */
export interface Listing {
  version: number
  queue: ReturnType<typeof toJsonItem>[]
  tmux: 'ok' | 'unavailable'
  skipped: QueueView['skipped']
  digest: string
  hosts: JsonHost[]
  /** `--return-digest`, and this read ended a quiet stretch: what arrived meanwhile. Outside the digest. */
  returnDigest?: JsonReturnDigest
}

/** Pure: a host as `ls --json` lists it. */
export const toJsonHost = (h: HostRead, now: number): JsonHost => ({
  destination: h.destination,
  answered: h.answered,
  why: h.why,
  queueAt: h.queueAt === null ? null : new Date(h.queueAt).toISOString(),
  queueAge: h.queueAt === null ? null : Math.max(0, Math.round((now - h.queueAt) / 1000)),
})

/**
 * Pure: `ls --json`'s document (docs/ls.schema.json). The hosts stay outside the digest: their
 * ages move on every read, and a digest must change only when the queue does.
 */
export const deriveListing = (
  view: QueueView,
  args: ListingArgs & { olderThanMs: number | undefined },
  hosts: readonly HostRead[] = [],
): Listing => {
  const content = {
    version: JSON_VERSION,
    queue: deriveShown(view, args, args.olderThanMs).map(toJsonItem),
    tmux: view.tmuxAvailable ? ('ok' as const) : ('unavailable' as const),
    skipped: view.skipped,
  }
  return { ...content, digest: listingDigest(content), hosts: hosts.map((h) => toJsonHost(h, view.now)) }
}
