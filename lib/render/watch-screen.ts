// Pure: what `trailboss watch` shows. The full-screen view (a queue, a selection, the time and
// the terminal's size in; lines out), and the one-line-per-change log used without a TTY.
import { formatAge } from '../duration.js'
import { formatTable, kindLabel, placeLabel, summarizeItemAsk, truncate } from './queue-table.js'
import { renderToolCall } from './tool-call.js'
import { formatVisible } from '../text/visible-text.js'
import { deriveSummary } from './status-segment.js'
import { formatHostLine, needsHostColumn, type HostStatus } from './host-line.js'
import type { QueueItem } from '../queue/derive.js'

export interface WatchScreen {
  /** The rows to show: the queue, or every session with --all. */
  items: readonly QueueItem[]
  /** Session id of the selected row; null or unknown: the first row. */
  selected: string | null
  now: number
  width: number
  height: number
  details: boolean
  colour: boolean
  /** One line of news at the bottom (where `go` went, or why it could not). */
  message: string | null
  tmuxAvailable: boolean
  /** Digits typed so far, while a number of two or more digits is being typed. */
  digits: string
  /** `--all`: the count takes in the finished turns too, as status --all does. */
  all?: boolean
  /** Other hosts followed: one line for each that does not answer (its waits shown are stale). */
  hosts?: readonly HostStatus[]
  /**
   * The selected wait's live screen (its pane's visible text), shown beside the list when the
   * terminal is at least PEEK_MIN_WIDTH wide; null: no screen to show (another host, a gone pane).
   */
  peek?: string | null
}

/** Below this width the list keeps the whole terminal: the peek panel needs room of its own. */
export const PEEK_MIN_WIDTH = 140
/** The list's share of a wide terminal; the peek panel takes the rest. */
const LIST_SHARE = 0.55

const ANSI = /\u001b\[[0-9;]*m/g
const visibleLength = (text: string): number => [...text.replace(ANSI, '')].length

export const WATCH_KEYS_HELP = '1-9/Enter go · j/k move · y/n answer · a seen · s details · q quit'

const DIM = '\u001b[2m'
const BOLD = '\u001b[1m'
const RESET = '\u001b[0m'

/** The selected row's index in `items` (the first when the selection left the list). */
export const deriveSelectedIndex = (items: readonly Pick<QueueItem, 'sessionId'>[], selected: string | null): number => {
  const i = items.findIndex((it) => it.sessionId === selected)
  return i >= 0 ? i : 0
}

/** Moves the selection by `delta` rows, stopping at the ends. */
export const deriveMove = (items: readonly Pick<QueueItem, 'sessionId'>[], selected: string | null, delta: number): string | null => {
  if (items.length === 0) return null
  const i = Math.min(items.length - 1, Math.max(0, deriveSelectedIndex(items, selected) + delta))
  return items[i]?.sessionId ?? null
}

/** The details block of one item: where it is, why its state, and what it asks in full. */
export const formatDetails = (item: QueueItem, now: number, width: number): string[] => {
  const facts = [
    `${kindLabel(item)}${item.inferred ? ' (inferred)' : ''} for ${formatAge(now - item.since)} · ${item.project ?? '?'} · ${item.tmux ? `${placeLabel(item)} · pane ${item.tmux.pane}` : item.headless ? 'headless' : 'no tmux pane'}`,
    `key ${item.key} · session ${item.sessionId}`,
    ...(item.cwd ? [`cwd ${item.cwd}`] : []),
    ...(item.reason ? [`why: ${item.reason}`] : []),
  ]
  const ask: string[] = []
  if (item.ask.tool) ask.push(...renderToolCall(item.ask.tool, item.ask.input))
  if (item.ask.message) ask.push(...item.ask.message.trim().split('\n'))
  return [...facts, ...ask].map((l) => truncate(formatVisible(l, { tabs: 'expand' }), Math.max(1, width - 2))).map((l) => `  ${l}`)
}

/**
 * The whole screen, at most `height` lines, none wider than `width` except table rows, which
 * formatTable already fits (the view turns autowrap off, so nothing breaks the layout).
 */
export const formatWatchScreen = (s: WatchScreen): string[] => {
  if (s.peek !== undefined && s.width >= PEEK_MIN_WIDTH && s.items.length > 0) return withPeek(s, s.peek)
  // The last column stays empty: with autowrap off a terminal keeps the cursor on it, and the
  // erase-to-end that follows each line would wipe the character written there.
  const width = Math.max(20, s.width) - 1
  const height = Math.max(3, s.height)
  // The one count every surface gives (status-segment.ts deriveSummary).
  const summary = deriveSummary(s.items, s.now, { all: s.all === true })
  const title =
    summary.count === 0
      ? 'Trail Boss · nothing waits on you'
      : `Trail Boss · ${summary.count} waiting · oldest ${formatAge(summary.oldestMs)}${s.tmuxAvailable ? '' : ' · tmux unavailable: panes unknown'}`
  const top = [s.colour ? `${BOLD}${truncate(title, width)}${RESET}` : truncate(title, width), '']
  const footer = [
    ...(s.hosts ?? []).filter((h) => !h.answered).map((h) => truncate(formatHostLine(h, s.now), width)),
    // The news names a session (its project, what it asks): shown visibly like the rest.
    ...(s.message ? [truncate(formatVisible(s.message), width)] : []),
    truncate(s.digits ? `go to ${s.digits}…  (Enter: go now)` : WATCH_KEYS_HELP, width),
  ].map((l) => (s.colour ? `${DIM}${l}${RESET}` : l))

  if (s.items.length === 0) return [...top, '', ...footer].slice(0, height)

  const tableLines = formatTable(s.items, { now: s.now, colour: s.colour, width: width - 2, hosts: needsHostColumn(s.items) })
    .replace(/\n$/, '')
    .split('\n')
  const header = tableLines[0] ?? ''
  const rows = tableLines.slice(1)
  const sel = deriveSelectedIndex(s.items, s.selected)
  const selectedItem = s.items[sel]
  const details = s.details && selectedItem ? ['', ...formatDetails(selectedItem, s.now, width)] : []
  // Rows get what the frame and (at most half the screen of) details leave.
  const frame = top.length + 1 + footer.length + 1
  const detailRoom = Math.min(details.length, Math.max(0, Math.floor((height - frame) / 2)))
  const room = Math.max(1, height - frame - detailRoom)
  const start = Math.min(Math.max(0, sel - room + 1), Math.max(0, rows.length - room))
  const visible = rows
    .slice(start, start + room)
    .map((r, i) => (start + i === sel ? `${s.colour ? BOLD : ''}>${s.colour ? RESET : ''} ${r}` : `  ${r}`))
  const more = rows.length > room ? [`  (${start + 1}-${start + visible.length} of ${rows.length})`] : []
  const body = [`  ${header}`, ...visible, ...more, ...details.slice(0, detailRoom)]
  const gap = Math.max(0, height - top.length - body.length - footer.length)
  return [...top, ...body, ...Array<string>(Math.min(gap, 1)).fill(''), ...footer].slice(0, height)
}

/** Pure: the screen with the list on the left and the selected wait's live screen on the right. */
const withPeek = (s: WatchScreen, peek: string | null): string[] => {
  // The news (why a key did nothing, where `go` went) takes the whole last line: cut to the
  // list's width it would lose its reason.
  const news = s.message ? [truncate(formatVisible(s.message), s.width - 1)].map((l) => (s.colour ? `${DIM}${l}${RESET}` : l)) : []
  const height = Math.max(3, s.height - news.length)
  const listWidth = Math.floor(s.width * LIST_SHARE)
  const panelWidth = Math.max(10, s.width - listWidth - 4)
  const left = formatWatchScreen({ ...s, width: listWidth, height, message: null, peek: undefined })
  // The pane's last lines, where an agent draws its dialog; blank lines at the bottom left out.
  const screen = (peek ?? '(no screen to show: another host, or the pane is gone)').replace(/\s+$/, '').split('\n')
  const right = screen.slice(-height).map((l) => truncate(formatVisible(l, { tabs: 'expand' }), panelWidth))
  const sides = Array.from({ length: Math.min(height, Math.max(left.length, right.length)) }, (_, i) => {
    const l = left[i] ?? ''
    return `${l}${' '.repeat(Math.max(0, listWidth - 1 - visibleLength(l)))} │ ${right[i] ?? ''}`
  })
  return [...sides, ...news]
}

/** What a session shows in the change log; a new signature is a new line. */
const signature = (i: QueueItem): string => `${i.state}/${i.kind ?? ''}@${i.since}`

/** One log line: time, number, kind, project, ask, pane, key (tab-free, for logs and grep). */
export const formatChangeLine = (i: QueueItem, now: number): string =>
  formatVisible(
    [
      new Date(now).toISOString(),
      i.n === null ? '-' : `#${i.n}`,
      `${kindLabel(i)}${i.inferred ? '~' : ''}`,
      i.project ?? '?',
      i.tmux?.pane ?? '-',
      i.key,
      summarizeItemAsk(i, 120),
    ]
      .filter((f) => f !== '')
      .join('  '),
  )

/**
 * The lines a change from `prev` to `next` earns: one per session that appeared, changed state
 * or kind, or started a new wait; one per session that left (its new state, or `gone`).
 */
export const formatChanges = (
  prev: ReadonlyMap<string, QueueItem>,
  next: readonly QueueItem[],
  now: number,
  everyone: readonly QueueItem[] = next,
): string[] => {
  const lines: string[] = []
  const seen = new Set<string>()
  for (const i of next) {
    seen.add(i.sessionId)
    const before = prev.get(i.sessionId)
    if (!before || signature(before) !== signature(i)) lines.push(formatChangeLine(i, now))
  }
  for (const [id, before] of prev) {
    if (seen.has(id)) continue
    const after = everyone.find((i) => i.sessionId === id)
    lines.push(
      formatVisible(
        [
          new Date(now).toISOString(),
          '-',
          after ? kindLabel(after) : 'gone',
          before.project ?? '?',
          before.tmux?.pane ?? '-',
          before.key,
        ].join('  '),
      ),
    )
  }
  return lines
}
