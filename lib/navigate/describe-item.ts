// How every command names the wait it chose, in one line: `go`, `next`, `ack`, `send`, `ok`/`no`.
import { kindLabel, summarizeItemAsk } from '../render/queue-table.js'
import { formatVisible } from '../text/visible-text.js'
import type { QueueItem } from '../queue/derive.js'

/**
 * `2 · myproj · %12 (permission: Bash: npm test)`: enough to know which session was chosen; a
 * pane of another host is named with it (`devbox:%12`).
 */
export const describeItem = (item: QueueItem): string => {
  const what = summarizeItemAsk(item, 60)
  const pane = item.tmux ? `${item.remote ? `${formatVisible(item.remote.destination)}:` : ''}${item.tmux.pane}` : 'no pane'
  const parts = [item.n !== null ? String(item.n) : item.key, formatVisible(item.project ?? '?'), pane]
  return `${parts.join(' · ')} (${kindLabel(item)}${what ? `: ${what}` : ''})`
}
