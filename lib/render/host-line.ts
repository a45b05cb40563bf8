// Pure: how another host that did not answer is said under a queue (`ls`, `watch`), and when a
// queue needs its HOST column. Here, below the remote layer, so that `watch`'s screen says it too.
import { formatAge } from '../duration.js'
import { formatVisible } from '../text/visible-text.js'

/** This machine in `--host` and the HOST column: never a destination (lib/remote/host-name.ts refuses it). */
export const LOCAL_LABEL = 'local'

/** What a host's read says of itself (lib/remote/fleet.ts HostRead). */
export interface HostStatus {
  destination: string
  answered: boolean
  /** Why it did not answer (plain text), or null. */
  why: string | null
  /** When the queue shown for it was read; null: never. */
  queueAt: number | null
}

/** `devbox: no answer, last queue 3m old (could not connect)`. */
export const formatHostLine = (h: HostStatus, now: number): string =>
  `${formatVisible(h.destination)}: no answer, ${h.queueAt === null ? 'no queue from it yet' : `last queue ${formatAge(now - h.queueAt)} old`}` +
  (h.why ? ` (${h.why})` : '')

/** Whether the table needs a HOST column: rows of more than one host, or only of another host. */
export const needsHostColumn = (items: readonly { remote?: { destination: string } | undefined }[]): boolean => {
  const hosts = new Set(items.map((i) => i.remote?.destination ?? ''))
  return hosts.size > 1 || (hosts.size === 1 && !hosts.has(''))
}

/** Pure: a line for each host that did not answer, in the list's order. */
export const formatHostLines = (hosts: readonly HostStatus[], now: number): string =>
  hosts
    .filter((h) => !h.answered)
    .map((h) => `${formatHostLine(h, now)}\n`)
    .join('')
