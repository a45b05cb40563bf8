// Pure: the queue in a few characters, for status lines (tmux's `#(trailboss status)` today; a
// Claude Code statusline segment later is one more caller of deriveSummary + formatSegment).
import { formatAge, formatSpan } from '../duration.js'
import { kindLabel } from './queue-table.js'
import { countsAsWaiting, type QueueItem } from '../queue/derive.js'
import type { WaitKind } from '../record/types.js'

/** Every wait kind (lib/record/types.ts WAIT_KINDS), most urgent first. */
export const SUMMARY_KINDS = ['permission', 'question', 'error', 'interrupted', 'done'] as const satisfies readonly WaitKind[]
export type SummaryKind = (typeof SUMMARY_KINDS)[number]
// Leaves no kind out: a kind added to WAIT_KINDS fails to compile here until it is placed.
const _everyKind: [Exclude<WaitKind, SummaryKind>] extends [never] ? true : never = true
void _everyKind

/** Short enough for a crowded status-right; `--format` changes it. */
export const DEFAULT_STATUS_FORMAT = '{count} waiting · {oldest}'

export interface QueueSummary {
  count: number
  /** Age of the oldest wait in ms (0 when nothing waits). */
  oldestMs: number
  byKind: Record<SummaryKind, number>
  /** The kind that most needs the person: a blocked tool before a question before a finished turn. */
  urgent: SummaryKind | null
  /** Each other host read, with the age of its queue (null: none yet) and whether that queue is stale. */
  hosts: HostAge[]
}

/** How a status line names a host: its name, its queue's age, and whether it did not answer lately. */
export interface HostAge {
  destination: string
  ageMs: number | null
  stale: boolean
}

/** What a host read says of itself (lib/remote/fleet.ts HostRead fits). */
export interface HostReadFacts {
  destination: string
  answered: boolean
  queueAt: number | null
}

export interface SummaryOptions {
  /** Leave this session out (a statusline segment inside one session counts the others). */
  excludeSessionId?: string
  /** Also count finished turns (`--all`); else the waits that need the person, seen or not (one count everywhere). */
  all?: boolean
  /** The other hosts read, for `{hosts}` and `{stale}`. */
  hosts?: readonly HostReadFacts[]
}

/** Counts the waits among `items` (any list of queue items: others are passed over). */
export const deriveSummary = (items: readonly QueueItem[], now: number, opts: SummaryOptions = {}): QueueSummary => {
  const byKind: Record<SummaryKind, number> = { permission: 0, question: 0, error: 0, interrupted: 0, done: 0 }
  let count = 0
  let oldest = now
  for (const item of items) {
    if (!countsAsWaiting(item, opts.all) || item.sessionId === opts.excludeSessionId) continue
    count++
    oldest = Math.min(oldest, item.since)
    const kind = kindLabel(item)
    if (kind in byKind) byKind[kind as SummaryKind]++
  }
  const hosts = (opts.hosts ?? []).map((h) => ({
    destination: h.destination,
    ageMs: h.queueAt === null ? null : Math.max(0, now - h.queueAt),
    stale: !h.answered,
  }))
  return {
    count,
    oldestMs: count > 0 ? Math.max(0, now - oldest) : 0,
    byKind,
    urgent: SUMMARY_KINDS.find((k) => byKind[k] > 0) ?? null,
    hosts,
  }
}

/** `devbox 4s, gpu 3m`: hosts with the age of their queue (`?`: none yet). */
export const formatHostAges = (hosts: readonly HostAge[]): string =>
  hosts.map((h) => `${h.destination} ${h.ageMs === null ? '?' : formatAge(h.ageMs)}`).join(', ')

/** The hosts whose queue is stale, as formatHostAges says them; '' when none is. */
export const formatStale = (s: Pick<QueueSummary, 'hosts'>): string => formatHostAges(s.hosts.filter((h) => h.stale))

/** What a default segment adds when a host's waits are stale: ` · devbox 3m old`. */
const staleSuffix = (s: QueueSummary): string => {
  const stale = formatStale(s)
  return stale ? ` · ${stale} old` : ''
}

/** Each kind's word for a count: `1 question`, `2 questions`, `1 interrupted`, `3 done`. */
export const KIND_WORDS: Record<SummaryKind, readonly [one: string, many: string]> = {
  permission: ['permission', 'permissions'],
  question: ['question', 'questions'],
  error: ['error', 'errors'],
  interrupted: ['interrupted', 'interrupted'],
  done: ['done', 'done'],
}

/** `2 permissions, 1 question, 1 done`: the non-zero kinds in words, most urgent first. */
export const formatKinds = (s: QueueSummary): string =>
  SUMMARY_KINDS.filter((k) => s.byKind[k] > 0)
    .map((k) => `${s.byKind[k]} ${KIND_WORDS[k][s.byKind[k] === 1 ? 0 : 1]}`)
    .join(', ')

/** tmux colours per most urgent kind (`#[fg=…]`), matching the table's palette. */
export const TMUX_COLOURS: Record<SummaryKind, string> = {
  permission: 'yellow',
  question: 'cyan',
  error: 'red',
  interrupted: 'magenta',
  done: 'green',
}

const PLACEHOLDER = /\{(count|oldest|kinds|s|permission|question|done|error|interrupted|hosts|stale|blocked)\}/g

/**
 * The segment, or '' when nothing waits (so tmux shows nothing), unless the format names
 * `{blocked}` (today's blocked time is news with an empty queue too). Unknown `{names}` stay as
 * typed, which makes a typo visible instead of silently empty. Without a format, the default
 * one, and the stale hosts' ages after it when some of the count comes from an old queue.
 * `blockedMs`: agent time blocked today (lib/history/today.ts), for `{blocked}`.
 */
export const formatSegment = (s: QueueSummary, format?: string, opts: { tmux?: boolean; blockedMs?: number } = {}): string => {
  if (s.count === 0 && !(format?.includes('{blocked}') ?? false)) return ''
  const values: Record<string, string> = {
    blocked: formatSpan(opts.blockedMs ?? 0),
    count: String(s.count),
    oldest: formatAge(s.oldestMs),
    kinds: formatKinds(s),
    s: s.count === 1 ? '' : 's',
    hosts: formatHostAges(s.hosts),
    stale: formatStale(s),
    ...Object.fromEntries(SUMMARY_KINDS.map((k) => [k, String(s.byKind[k])])),
  }
  const template = format ?? `${DEFAULT_STATUS_FORMAT}${staleSuffix(s)}`
  const text = template.replace(PLACEHOLDER, (_m, name: string) => values[name] ?? '')
  if (!opts.tmux) return text
  const colour = s.urgent ? TMUX_COLOURS[s.urgent] : 'default'
  // Our values never hold `#`; a `#[…]` in the person's --format is theirs to keep.
  return `#[fg=${colour},bold]${text}#[default]`
}

/**
 * The segment inside one Claude Code session (its status line, the plugin's mod): the *other*
 * sessions that wait, `2 others wait · oldest 4m`; '' when none does.
 */
export const formatOthers = (s: QueueSummary): string =>
  s.count === 0 ? '' : `${s.count === 1 ? '1 other waits' : `${s.count} others wait`} · oldest ${formatAge(s.oldestMs)}${staleSuffix(s)}`
