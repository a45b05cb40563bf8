// Pure renderers of the queue: the table for people, plain lines for fzf, JSON for scripts
// (docs/design.md §6.3, §6.4). Colour is decided by the caller (TTY, NO_COLOR) and passed in.
import { formatAge } from '../duration.js'
import { LOCAL_LABEL } from './host-line.js'
import type { Ask, QueueItem } from '../queue/derive.js'
import type { WaitKind } from '../record/types.js'
import { agentFor } from '../agents/index.js'
import { summarizeToolCall } from './tool-call.js'
import { formatVisible } from '../text/visible-text.js'

export const JSON_VERSION = 2

/** What an interrupted turn that ran no tool was doing when it stopped. */
export const STOPPED_WRITING = 'stopped while writing its answer (no tool was running)'

/**
 * One line of what a wait asks: the tool and its command or file, else the message's last line;
 * an interrupted turn without either says it was stopped while writing. Every human-facing
 * output that names a wait shows it, so its text is made visible here (a `\r` or an ESC in a
 * command is shown, never run by the terminal).
 */
export const summarizeAsk = (ask: Ask, max = 80, kind: WaitKind | null = null): string => {
  let text = ''
  if (ask.tool) {
    text = summarizeToolCall(ask.tool, ask.input)
  } else if (kind === 'interrupted' && !ask.message) {
    text = STOPPED_WRITING
  } else if (ask.message) {
    const lines = ask.message
      .trim()
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
    text = lines[lines.length - 1] ?? ''
  }
  // Line breaks and spaces fold into one space; a \r, \v or \f is a control and is shown.
  return truncate(formatVisible(text.replace(/[\t\n\p{Zs}]+/gu, ' ').trim()), max)
}

/** The ASK cell: what the agent asks when known; Trail Boss's hint only when nothing else is. */
export const summarizeItemAsk = (item: Pick<QueueItem, 'ask' | 'hint' | 'kind'>, max = 80): string =>
  summarizeAsk(item.ask, max, item.kind) || (item.hint ? truncate(formatVisible(item.hint), max) : '')

export const truncate = (text: string, max: number): string => {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`
}

const padEnd = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - [...text].length))

export const kindLabel = (item: Pick<QueueItem, 'state' | 'kind'>): string =>
  item.state === 'permission' || item.state === 'waiting' ? (item.kind ?? item.state) : item.state

/** The kind with its marks: `~` inferred, `✓` seen (listed with --all). */
export const kindCell = (item: Pick<QueueItem, 'state' | 'kind' | 'inferred' | 'seen'>): string =>
  `${kindLabel(item)}${item.inferred ? '~' : ''}${item.seen ? '✓' : ''}`

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
  /** A HOST column (rows of more than one host, lib/remote/): the destination, or `local`. */
  hosts?: boolean
}

/** HOST's cell: where the row was read; a host that did not answer this time is marked. */
export const hostLabel = (item: Pick<QueueItem, 'remote'>): string =>
  item.remote ? `${item.remote.destination}${item.remote.stale ? ' (stale)' : ''}` : LOCAL_LABEL

const HOST_MAX = 24

/** The agent's short name (claude, codex, gemini); an agent this version does not know, as recorded. */
export const agentLabel = (agent: string): string => agentFor(agent)?.shortName ?? agent

/** The marks after WHERE; TABLE_LEGEND says what each means. */
export const PLACE_MARKS = { gone: '✗', shell: '$', unknown: '?' } as const

/**
 * Where a session runs, as tmux names it (`session:window (window name)`), else the pane id, and
 * the mark after it: the pane is gone, back at its shell, or tmux could not be asked. An ended
 * session was never looked for in tmux (it runs nowhere): the pane it ran in, no mark.
 */
export const placeParts = (item: Pick<QueueItem, 'tmux' | 'headless' | 'state'>): { text: string; mark: string } => {
  if (!item.tmux) return { text: item.headless ? 'headless' : '-', mark: '' }
  const place = item.tmux.place
  const text = place ? `${place.session}:${place.window}${place.windowName ? ` (${place.windowName})` : ''}` : item.tmux.pane
  if (item.state === 'ended') return { text: item.tmux.pane, mark: '' }
  // A pane that lives but no longer runs the session still has its place (lib/queue/derive.ts).
  if (item.tmux.alive === false) return { text, mark: place ? PLACE_MARKS.shell : PLACE_MARKS.gone }
  return { text, mark: item.tmux.alive === null ? PLACE_MARKS.unknown : '' }
}

export const placeLabel = (item: Pick<QueueItem, 'tmux' | 'headless' | 'state'>): string => {
  const { text, mark } = placeParts(item)
  return text + mark
}

/** What every mark of the table means: `ls --help`, the README and `watch` say the same. */
export const TABLE_LEGEND = [
  'KIND: permission (a dialog waits for your yes or no), question, error, interrupted, done (the turn finished); with --all also working, idle, ended, gone.',
  'Waits that need you come first; finished turns (done) follow, dimmed.',
  "~ after a kind: inferred from the pane's screen or process, not said by the agent's hooks. ✓: seen (shown with --all).",
  'WHERE: tmux session:window (window name), or the pane id; headless: no terminal (claude -p); -: not in tmux. An ended session: the pane it ran in, unmarked.',
  'After WHERE: ✗ the pane is gone, or another session took it; $ the pane lives but is back at its shell (the agent exited); ? tmux could not be asked.',
  '# - : not waiting (shown with --all). A cut cell ends in …',
].join('\n')

const visiblePlace = (item: QueueItem): { text: string; mark: string } => {
  const { text, mark } = placeParts(item)
  return { text: formatVisible(text), mark }
}

/** A cut WHERE keeps its mark: the mark says more than the end of a window's name. */
const truncatePlace = (place: { text: string; mark: string }, width: number): string =>
  truncate(place.text, Math.max(1, width - [...place.mark].length)) + place.mark

/** Cells cut to these widths at most, so WHERE stays near the left and ASK gets the rest. */
const PROJECT_MAX = 20
const PLACE_MAX = 28
/** Below this, ASK first takes room from PROJECT and WHERE, then from AGENT. */
const ASK_MIN = 16

/** The human table: #, age, kind, agent, project, where, what is asked. Inferred states carry `~`. */
export const formatTable = (items: readonly QueueItem[], opts: TableOptions): string => {
  if (items.length === 0) return ''
  const rows = items.map((i) => ({
    n: i.n === null ? '-' : String(i.n),
    age: formatAge(opts.now - i.since),
    kind: kindCell(i),
    agent: formatVisible(agentLabel(i.agent)),
    project: formatVisible(i.project ?? '?'),
    place: visiblePlace(i),
    host: formatVisible(hostLabel(i)),
    item: i,
  }))
  const showHost = opts.hosts === true
  const widest = (texts: string[], min: number, max = Infinity): number => Math.min(max, Math.max(min, ...texts.map((t) => [...t].length)))
  const w = {
    n: widest(
      rows.map((r) => r.n),
      1,
    ),
    age: widest(
      rows.map((r) => r.age),
      3,
    ),
    kind: widest(
      rows.map((r) => r.kind),
      4,
    ),
    agent: widest(
      rows.map((r) => r.agent),
      5,
    ),
    project: widest(
      rows.map((r) => r.project),
      7,
      PROJECT_MAX,
    ),
    place: widest(
      rows.map((r) => r.place.text + r.place.mark),
      5,
      PLACE_MAX,
    ),
    host: showHost
      ? widest(
          rows.map((r) => r.host),
          4,
          HOST_MAX,
        )
      : 0,
  }
  const gaps = (cols: number): number => cols * 2
  let showAgent = true
  const fixed = (): number =>
    w.n + w.age + w.kind + (showAgent ? w.agent : 0) + w.host + w.project + w.place + gaps((showAgent ? 6 : 5) + (showHost ? 1 : 0))
  // A narrow terminal: PROJECT, then WHERE give up room first, then the AGENT column goes.
  for (const col of ['project', 'place'] as const) {
    const spare = opts.width - fixed() - ASK_MIN
    if (spare < 0) w[col] = Math.max(7, w[col] + spare)
  }
  if (opts.width - fixed() < ASK_MIN) showAgent = false
  const askWidth = Math.max(ASK_MIN, opts.width - fixed())
  const line = (cells: string[]): string => truncate(cells.join('  ').trimEnd(), Math.max(ASK_MIN, opts.width))
  // Cells in order: # AGE KIND AGENT HOST PROJECT WHERE ASK; AGENT goes first on a narrow terminal.
  const pick = (all: string[]): string[] => all.filter((_, i) => (showAgent || i !== 3) && (showHost || i !== 4))
  const header = line(
    pick([
      padEnd('#', w.n),
      padEnd('AGE', w.age),
      padEnd('KIND', w.kind),
      padEnd('AGENT', w.agent),
      padEnd('HOST', w.host),
      padEnd('PROJECT', w.project),
      padEnd('WHERE', w.place),
      'ASK',
    ]),
  )
  const out = [opts.colour ? `${BOLD}${header}${RESET}` : header]
  for (const r of rows) {
    const kindCell = padEnd(r.kind, w.kind)
    const colourOf = PALETTE[kindLabel(r.item)]
    const cells = pick([
      padEnd(r.n, w.n),
      padEnd(r.age, w.age),
      kindCell,
      padEnd(r.agent, w.agent),
      padEnd(truncate(r.host, w.host), w.host),
      padEnd(truncate(r.project, w.project), w.project),
      padEnd(truncatePlace(r.place, w.place), w.place),
      summarizeItemAsk(r.item, askWidth),
    ])
    let text = line(cells)
    // Colour goes in after the cut, so escape codes never count as width; # and AGE are ASCII.
    const at = w.n + w.age + 4
    if (opts.colour && colourOf && text.slice(at, at + kindCell.length) === kindCell)
      text = `${text.slice(0, at)}${colourOf}${kindCell}${RESET}${text.slice(at + kindCell.length)}`
    // Finished turns, seen waits and other sessions are dimmed: they do not block on the person.
    out.push(opts.colour && (r.item.n === null || !r.item.needsYou) ? `${DIM}${text}${RESET}` : text)
  }
  return `${out.join('\n')}\n`
}

/** A field of a --plain line: tabs and newlines in it would break the line; every control is shown. */
const field = (text: string): string => formatVisible(text)

/**
 * `--plain`: key first, tab-separated, no header, no colour: safe for fzf and cut. Fields:
 * key, #, age, kind, project, pane, ask, agent, where, then host for a row of another host
 * (lib/remote/; a row of this machine has none); new fields only ever go at the end.
 */
export const formatPlain = (items: readonly QueueItem[], now: number): string =>
  items
    .map((i) =>
      [
        i.key,
        i.n === null ? '-' : String(i.n),
        formatAge(now - i.since),
        kindCell(i),
        i.project ?? '?',
        i.tmux?.pane ?? '-',
        summarizeItemAsk(i, 200),
        agentLabel(i.agent),
        placeLabel(i),
        ...(i.remote ? [hostLabel(i)] : []),
      ]
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
  tmux: {
    pane: string
    socket: string
    alive: boolean | null
    place: { session: string; window: number; windowName: string } | null
  } | null
  inferred: boolean
  reason: string | null
  /** A wait that blocks on the person; false for a finished turn (done) and for every other session. */
  needsYou: boolean
  /** A wait the person has seen (listed with --all only). */
  seen: boolean
  ask: Ask
  lastEventAt: string
  /** A tool call the agent's own check refused in this turn (auto mode), or null. */
  denied: { tool: string; reason: string | null; at: string } | null
  /** Trail Boss's own advice about the session (a session without hooks: how to give it some), apart from `ask`; null when none. */
  hint: string | null
  /** The host it was read from, as `trailboss hosts add` named it; null for this machine's sessions. */
  destination: string | null
  /** A host that did not answer this time: its last known state. */
  stale: boolean
}

export const toJsonItem = (i: QueueItem): JsonItem => ({
  n: i.n,
  key: i.key,
  sessionId: i.remote?.sessionId ?? i.sessionId,
  agent: i.agent,
  state: i.state,
  kind: i.kind,
  since: new Date(i.since).toISOString(),
  cwd: i.cwd,
  project: i.project,
  host: i.host,
  headless: i.headless,
  tmux: i.tmux ? { pane: i.tmux.pane, socket: i.tmux.socket, alive: i.tmux.alive, place: i.tmux.place ?? null } : null,
  inferred: i.inferred,
  reason: i.reason,
  needsYou: i.needsYou,
  seen: i.seen,
  ask: i.ask,
  lastEventAt: new Date(i.record.lastEventAt).toISOString(),
  denied: i.record.denied
    ? { tool: i.record.denied.tool, reason: i.record.denied.reason, at: new Date(i.record.denied.at).toISOString() }
    : null,
  hint: i.hint,
  destination: i.remote?.destination ?? null,
  stale: i.remote?.stale ?? false,
})
