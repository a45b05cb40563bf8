// Which session a command line names: a queue number, a pane id or a key / session-id prefix.
import { EXIT_FAILURE, EXIT_USAGE, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { callerSocket } from '../tmux/env.js'
import type { QueueItem } from './derive.js'
import type { QueueView } from './load.js'

/** `the wait is 4`, `the waits are 2, 4 and 5`: the numbers a command line may name now. */
export const formatNumbers = (items: readonly Pick<QueueItem, 'n'>[]): string => {
  const ns = items.flatMap((i) => (i.n === null ? [] : [i.n])).sort((a, b) => a - b)
  if (ns.length === 1) return `the wait is ${ns[0]}`
  return `the waits are ${ns.slice(0, -1).join(', ')} and ${ns[ns.length - 1]}`
}

const describe = (item: QueueItem): string =>
  `${item.key} (${item.project ?? '?'}, ${item.state}${item.tmux ? `, pane ${item.tmux.pane}` : ''})`

/**
 * A number (queue position), a pane id (`%12`, the caller's tmux server first), or a key /
 * session-id prefix (docs/design.md §4.5). Ambiguity is an error that lists the candidates.
 */
export const resolveTarget = (view: QueueView, target: string, io: Pick<Io, 'env'>): QueueItem => {
  const t = target.trim()
  // An empty prefix would match every session: say what is missing instead.
  if (t === '') throw new TrailbossError('no session named', 'give a number, a key or a pane id from trailboss ls', EXIT_USAGE)
  if (/^\d{1,4}$/.test(t)) {
    const n = Number(t)
    // A number names the wait that holds it now (queue/numbers.ts), seen or not, in or out of
    // the default view; numbers are not positions, so the error lists the ones that exist.
    const numbered = view.items.filter((i) => i.n !== null)
    const item = numbered.find((i) => i.n === n)
    if (item) return item
    throw new TrailbossError(
      numbered.length === 0 ? `nothing waits, so there is no number ${n}` : `no wait holds number ${n}; ${formatNumbers(numbered)}`,
      'see trailboss ls',
    )
  }
  if (/^%\d+$/.test(t)) {
    const live = view.items.filter((i) => i.tmux?.pane === t && i.state !== 'gone' && i.state !== 'ended')
    const socket = callerSocket(io.env.TMUX)
    const mine = socket ? live.filter((i) => i.tmux?.socket === socket) : []
    const pick = mine.length > 0 ? mine : live
    if (pick.length === 1 && pick[0]) return pick[0]
    if (pick.length === 0) throw new TrailbossError(`no live session in pane ${t}`, 'see trailboss ls --all')
    throw new TrailbossError(
      `pane ${t} exists on several tmux servers: ${pick.map(describe).join('; ')}`,
      'name the session by its key instead',
      EXIT_FAILURE,
    )
  }
  const matches = view.items.filter((i) => i.sessionId.startsWith(t))
  if (matches.length === 1 && matches[0]) return matches[0]
  if (matches.length === 0)
    throw new TrailbossError(`no session matches ${JSON.stringify(t)}`, 'use a number, a key or a pane id from trailboss ls')
  throw new TrailbossError(
    `${JSON.stringify(t)} matches ${matches.length} sessions: ${matches.map(describe).join('; ')}`,
    'type more of the key',
  )
}
