// Pure renderers of the queue: the table for people, plain lines for fzf, JSON for scripts
// (docs/design.md §6.3, §6.4). Colour is decided by the caller (TTY, NO_COLOR) and passed in.
import { formatAge } from '../duration.js'
import type { Ask, QueueItem } from '../queue/derive.js'
import type { WaitKind } from '../record/types.js'
import { formatVisible } from './visible-text.js'

export const JSON_VERSION = 1

/**
 * One line of what a wait asks: the tool and its command or file, else the message's last line.
 * Every human-facing output that names a wait shows it, so its text is made visible here
 * (a `\r` or an ESC in a command is shown, never run by the terminal).
 */
export const summarizeAsk = (ask: Ask, max = 80): string => {
  let text = ''
  if (ask.tool) {
    const input = ask.input
    const obj = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : null
    const detail =
      typeof input === 'string'
        ? input
        : obj
          ? firstString(obj, ['command', 'file_path', 'path', 'url', 'pattern', 'query', 'description', 'prompt']) ?? questionOf(obj) ?? JSON.stringify(obj)
          : ''
    text = detail ? `${ask.tool}: ${detail}` : ask.tool
  } else if (ask.message) {
    const lines = ask.message.trim().split('\n').map((l) => l.trim()).filter(Boolean)
    text = lines[lines.length - 1] ?? ''
  }
  // Line breaks and spaces fold into one space; a \r, \v or \f is a control and is shown.
  return truncate(formatVisible(text.replace(/[\t\n\p{Zs}]+/gu, ' ').trim()), max)
}

const firstString = (obj: Record<string, unknown>, keys: string[]): string | null => {
  for (const k of keys) if (typeof obj[k] === 'string' && obj[k]) return obj[k] as string
  return null
}

/** AskUserQuestion carries `questions: [{question, options}]`. */
const questionOf = (obj: Record<string, unknown>): string | null => {
  const qs = obj.questions
  if (!Array.isArray(qs)) return null
  const q = qs[0] as Record<string, unknown> | undefined
  return typeof q?.question === 'string' ? q.question : null
}

export const truncate = (text: string, max: number): string => {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`
}

const padEnd = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - [...text].length))

export const kindLabel = (item: Pick<QueueItem, 'state' | 'kind'>): string => (item.state === 'permission' || item.state === 'waiting' ? item.kind ?? item.state : item.state)

const PALETTE: Readonly<Record<string, string>> = {
  permission: '\u001b[33m',
  question: '\u001b[36m',
  done: '\u001b[32m',
  error: '\u001b[31m',
  interrupted: '\u001b[35m',
} satisfies Record<WaitKind, string>
const DIM = '\u001b[2m'
const BOLD = '\u001b[1m'
const RESET = '\u001b[0m'

export interface TableOptions {
  now: number
  colour: boolean
  width: number
}

const paneLabel = (item: QueueItem): string => {
  if (!item.tmux) return item.headless ? 'headless' : '-'
  const mark = item.tmux.alive === false ? '✗' : item.tmux.alive === null ? '?' : ''
  return `${item.tmux.pane}${mark}`
}

/** The human table: #, age, kind, project, what is asked, pane. Inferred states carry `~`. */
export const formatTable = (items: readonly QueueItem[], opts: TableOptions): string => {
  if (items.length === 0) return ''
  const rows = items.map((i) => ({
    n: i.n === null ? '-' : String(i.n),
    age: formatAge(opts.now - i.since),
    kind: `${kindLabel(i)}${i.inferred ? '~' : ''}`,
    project: truncate(formatVisible(i.project ?? '?'), 20),
    pane: formatVisible(paneLabel(i)),
    item: i,
  }))
  const w = {
    n: Math.max(1, ...rows.map((r) => r.n.length)),
    age: Math.max(3, ...rows.map((r) => r.age.length)),
    kind: Math.max(4, ...rows.map((r) => r.kind.length)),
    project: Math.max(7, ...rows.map((r) => [...r.project].length)),
    pane: Math.max(4, ...rows.map((r) => [...r.pane].length)),
  }
  const fixed = w.n + w.age + w.kind + w.project + w.pane + 5 * 2
  const askWidth = Math.max(20, opts.width - fixed)
  const line = (cells: string[]): string => cells.join('  ').trimEnd()
  const header = line([padEnd('#', w.n), padEnd('AGE', w.age), padEnd('KIND', w.kind), padEnd('PROJECT', w.project), padEnd('ASK', askWidth), 'PANE'])
  const out = [opts.colour ? `${BOLD}${header}${RESET}` : header]
  for (const r of rows) {
    const ask = padEnd(summarizeAsk(r.item.ask, askWidth), askWidth)
    const kindCell = padEnd(r.kind, w.kind)
    const colourOf = PALETTE[kindLabel(r.item)]
    const cells = [padEnd(r.n, w.n), padEnd(r.age, w.age), opts.colour && colourOf ? `${colourOf}${kindCell}${RESET}` : kindCell, padEnd(r.project, w.project), ask, r.pane]
    const text = line(cells)
    out.push(opts.colour && r.item.n === null ? `${DIM}${text}${RESET}` : text)
  }
  return `${out.join('\n')}\n`
}

/** A field of a --plain line: tabs and newlines in it would break the line; every control is shown. */
const field = (text: string): string => formatVisible(text)

/** `--plain`: key first, tab-separated, no header, no colour: safe for fzf and cut. */
export const formatPlain = (items: readonly QueueItem[], now: number): string =>
  items
    .map((i) =>
      [i.key, i.n === null ? '-' : String(i.n), formatAge(now - i.since), `${kindLabel(i)}${i.inferred ? '~' : ''}`, i.project ?? '?', i.tmux?.pane ?? '-', summarizeAsk(i.ask, 200)]
        .map(field)
        .join('\t'),
    )
    .map((l) => `${l}\n`)
    .join('')

export interface JsonItem {
  n: number | null
  key: string
  sessionId: string
  agent: string
  state: string
  kind: string | null
  since: string
  cwd: string | null
  project: string | null
  host: string
  headless: boolean
  tmux: { pane: string; socket: string; alive: boolean | null } | null
  inferred: boolean
  reason: string | null
  ask: Ask
  lastEventAt: string
  /** A tool call the agent's own check refused in this turn (auto mode), or null. */
  denied: { tool: string; reason: string | null; at: string } | null
}

export const toJsonItem = (i: QueueItem): JsonItem => ({
  n: i.n,
  key: i.key,
  sessionId: i.sessionId,
  agent: i.agent,
  state: i.state,
  kind: i.kind,
  since: new Date(i.since).toISOString(),
  cwd: i.cwd,
  project: i.project,
  host: i.host,
  headless: i.headless,
  tmux: i.tmux ? { pane: i.tmux.pane, socket: i.tmux.socket, alive: i.tmux.alive } : null,
  inferred: i.inferred,
  reason: i.reason,
  ask: i.ask,
  lastEventAt: new Date(i.record.lastEventAt).toISOString(),
  denied: i.record.denied ? { tool: i.record.denied.tool, reason: i.record.denied.reason, at: new Date(i.record.denied.at).toISOString() } : null,
})
