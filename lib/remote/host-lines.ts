// Pure: the one line a host that did not answer gets under the table (and on stderr for --plain).
// The line itself is the render layer's (lib/render/host-line.ts), which `watch` shows too.
import { formatHostLine, needsHostColumn } from '../render/host-line.js'
import type { HostRead } from './fleet.js'

export { formatHostLine, needsHostColumn }

/** Pure: a line for each host that did not answer, in the list's order. */
export const formatHostLines = (hosts: readonly HostRead[], now: number): string =>
  hosts
    .filter((h) => !h.answered)
    .map((h) => `${formatHostLine(h, now)}\n`)
    .join('')
