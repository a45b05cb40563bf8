// Pure: the `--agent` filter every queue command shares (ls, show, go, watch, status, notify).
import type { QueueView } from './load.js'

/**
 * The view narrowed to sessions of the given agents; no agents: the view as it is. Numbers stay
 * those of the whole queue, as with ls's other filters, so `go 3` means the same in every view.
 */
export const filterAgents = <V extends Pick<QueueView, 'queue' | 'items'>>(view: V, agents: readonly string[] | undefined): V => {
  if (!agents?.length) return view
  const wanted = new Set(agents)
  return { ...view, queue: view.queue.filter((i) => wanted.has(i.agent)), items: view.items.filter((i) => wanted.has(i.agent)) }
}
