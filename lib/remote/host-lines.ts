// Pure: the one line a host that did not answer gets under the table (and on stderr for --plain).
import { formatAge } from '../duration.js'
import { formatVisible } from '../text/visible-text.js'
import type { HostRead } from './fleet.js'

export const formatHostLine = (h: HostRead, now: number): string =>
  `${formatVisible(h.destination)}: no answer, ${h.queueAt === null ? 'no queue from it yet' : `last queue ${formatAge(now - h.queueAt)} old`}` +
  (h.why ? ` (${h.why})` : '')

/** Pure: a line for each host that did not answer, in the list's order. */
export const formatHostLines = (hosts: readonly HostRead[], now: number): string =>
  hosts
    .filter((h) => !h.answered)
    .map((h) => `${formatHostLine(h, now)}\n`)
    .join('')

/** Pure: whether the table needs a HOST column: rows of more than one host, or only of another host. */
export const needsHostColumn = (items: readonly { remote?: { destination: string } | undefined }[]): boolean => {
  const hosts = new Set(items.map((i) => i.remote?.destination ?? ''))
  return hosts.size > 1 || (hosts.size === 1 && !hosts.has(''))
}
