// The digest shown once when the person comes back after a quiet stretch, and told by
// `notify --digest` (docs/design.md §11.8): what the history says arrived in a span, and the
// oldest wait the queue still holds. Pure: the callers read the history and the queue.
import { formatSpan } from '../duration.js'
import { formatVisible } from '../text/visible-text.js'
import type { WaitKind } from '../record/types.js'
import type { HistoryEntry } from './types.js'

export const DIGEST_VERSION = 1

/** Kinds of wait that ask the person something; `done` and `error` are counted apart. */
export const ASKING_KINDS = ['permission', 'question', 'interrupted'] as const
export type AskingKind = (typeof ASKING_KINDS)[number]

/** A wait of the current queue, as much of it as the digest tells. */
export interface OpenWait {
  key: string
  agent: string
  project: string | null
  kind: WaitKind | null
  since: number
}

export interface Digest {
  /** The span, ms since the epoch: from the last sign of the person to the digest. */
  since: number
  until: number
  /** Waits that began in the span and ask the person something, by kind. */
  waits: { count: number; byKind: Record<AskingKind, number> }
  /** Turns that finished in the span (waits of kind `done`). */
  done: number
  /** Turns that stopped on an error in the span (waits of kind `error`). */
  errors: number
  /** The oldest wait still open now, with its age at `until`. */
  oldest: (OpenWait & { ageMs: number }) | null
}

/** A wait line without a kind reads as the report reads it: `permission` in permission, `question` in waiting. */
const kindOf = (e: Pick<HistoryEntry, 'to' | 'kind'>): WaitKind | null => {
  if (e.to !== 'permission' && e.to !== 'waiting') return null
  return e.kind ?? (e.to === 'permission' ? 'permission' : 'question')
}

/**
 * Pure: the digest of the history lines dated in (since, until] and the waits open at `until`.
 * Each line into a wait is a wait that arrived (a line is a change, logged once: §11.3).
 */
export const deriveDigest = (
  entries: readonly HistoryEntry[],
  open: readonly OpenWait[],
  span: { since: number; until: number },
): Digest => {
  const byKind: Record<AskingKind, number> = { permission: 0, question: 0, interrupted: 0 }
  let count = 0
  let done = 0
  let errors = 0
  for (const e of entries) {
    if (e.at <= span.since || e.at > span.until) continue
    const kind = kindOf(e)
    if (kind === 'done') done++
    else if (kind === 'error') errors++
    else if (kind !== null) {
      byKind[kind]++
      count++
    }
  }
  const first = [...open].sort((a, b) => a.since - b.since || a.key.localeCompare(b.key))[0]
  return {
    since: span.since,
    until: span.until,
    waits: { count, byKind },
    done,
    errors,
    oldest: first ? { ...first, ageMs: Math.max(0, span.until - first.since) } : null,
  }
}

/** Pure: nothing arrived in the span (an open wait alone is no news: the queue shows it). */
export const isEmptyDigest = (d: Pick<Digest, 'waits' | 'done' | 'errors'>): boolean =>
  d.waits.count === 0 && d.done === 0 && d.errors === 0

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

const kindParts = (d: Digest): string =>
  ASKING_KINDS.filter((k) => d.waits.byKind[k] > 0)
    .map((k) => `${d.waits.byKind[k]} ${k}`)
    .join(', ')

const describeOldest = (o: NonNullable<Digest['oldest']>): string =>
  `${formatVisible(o.key)} ${formatVisible(o.project ?? '?')} (${formatVisible(o.agent)}${o.kind ? `, ${o.kind}` : ''}), ${formatSpan(o.ageMs)}`

const parts = (d: Digest): string[] => [
  `${plural(d.waits.count, 'wait')}${d.waits.count > 0 ? ` (${kindParts(d)})` : ''}`,
  `${plural(d.done, 'turn')} finished`,
  plural(d.errors, 'error'),
]

/** How a digest begins: a return's, or `notify --digest`'s. */
export const AWAY_LEAD = 'While you were away'
export const SINCE_LEAD = 'Since the last digest'

/** Pure: the digest on one line (a tmux message, a toast). Visible text only. */
export const formatDigestLine = (d: Digest, lead = AWAY_LEAD): string =>
  `${lead} (${formatSpan(d.until - d.since)}): ${parts(d).join(', ')}${d.oldest ? `; oldest open: ${describeOldest(d.oldest)}` : ''}`

/** Pure: the digest on a few lines (a terminal, a desktop notification's body). Visible text only. */
export const formatDigestText = (d: Digest, lead = AWAY_LEAD): string => {
  const lines = [`${lead} (${formatSpan(d.until - d.since)}):`, ...parts(d).map((p) => `  ${p}`)]
  if (d.oldest) lines.push(`  oldest open: ${describeOldest(d.oldest)}`)
  return `${lines.join('\n')}\n`
}
