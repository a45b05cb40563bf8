// Transcript checks on read (docs/design.md §4.1, §8.2). Hooks miss approvals, denials and interrupts; the
// transcript shows them. Only the bytes after the offset recorded at the event are read (and at
// most TRANSCRIPT_READ_CAP of them, from the end), so a transcript's size never matters.
import { isRefusal, readRange, withRegularFile } from '../../fs/safe-file.js'
import type { TranscriptVerdict } from '../types.js'
import { wholeLines } from '../jsonl-lines.js'

/** The most bytes one check reads. The last decisive line wins, so the end is what counts. */
export const TRANSCRIPT_READ_CAP = 1024 * 1024

export interface TranscriptEntry {
  type?: unknown
  isMeta?: unknown
  promptId?: unknown
  timestamp?: unknown
  message?: { role?: unknown; content?: unknown }
  [key: string]: unknown
}

export interface WaitRef {
  /** The prompt the wait belongs to: a user line with another prompt id is the person back. */
  promptId: string | null
  /** For a permission wait: the tool whose result means the dialog was answered. */
  pendingToolUseId: string | null
  permission: boolean
  /**
   * When the wait began: a prompt written before it is part of the turn the wait ends, not the
   * person coming back (a record's first hook can arrive mid-turn, its offset before the
   * turn's lines; Codex's and Gemini CLI's checks hold the same rule).
   */
  since?: number
}

const INTERRUPT_PREFIX = '[Request interrupted by user'

/**
 * Lines that can be a `user` entry, the only kind that decides a wait: its JSON holds `"user"`
 * verbatim (JSON encoders never escape ASCII letters). Replies and attachments, most of a
 * transcript's bytes, are then never parsed.
 */
export const mayBeUserLine = (line: string): boolean => line.includes('"user"')

/** Splits complete lines and parses those kept; a partial last line (still being written) is dropped. */
export const parseTranscriptLines = (text: string, fromStart: boolean, keep: (line: string) => boolean = () => true): TranscriptEntry[] => {
  const lines = wholeLines(text, fromStart)
  const out: TranscriptEntry[] = []
  for (const line of lines) {
    if (!line.startsWith('{') || !keep(line)) continue
    try {
      const v: unknown = JSON.parse(line)
      if (typeof v === 'object' && v !== null) out.push(v as TranscriptEntry)
    } catch {
      // A foreign or torn line is not a signal.
    }
  }
  return out
}

const contentParts = (entry: TranscriptEntry): Record<string, unknown>[] => {
  const c = entry.message?.content
  return Array.isArray(c) ? c.filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null) : []
}

const timeOf = (entry: TranscriptEntry, fallback: number): number => {
  const t = typeof entry.timestamp === 'string' ? Date.parse(entry.timestamp) : Number.NaN
  return Number.isFinite(t) ? t : fallback
}

/** Pure: the last decisive line among `entries` for this wait, or null when none decides. */
export const deriveTranscriptVerdict = (
  entries: readonly TranscriptEntry[],
  wait: WaitRef,
  fallbackTime: number,
): TranscriptVerdict | null => {
  let verdict: TranscriptVerdict | null = null
  for (const e of entries) {
    if (e.type !== 'user' || e.isMeta === true) continue
    const at = timeOf(e, fallbackTime)
    const content = e.message?.content
    const parts = contentParts(e)
    const text =
      typeof content === 'string'
        ? content
        : parts
            .filter((p) => p.type === 'text')
            .map((p) => String(p.text ?? ''))
            .join('\n')
    if (text.startsWith(INTERRUPT_PREFIX)) {
      verdict = { verdict: 'interrupted', at }
      continue
    }
    const results = parts.filter((p) => p.type === 'tool_result')
    if (results.length > 0) {
      // An answered dialog; an error result is a denial only if an interrupt line follows.
      const answered = results.some((r) => wait.pendingToolUseId === null || r.tool_use_id === wait.pendingToolUseId)
      if (wait.permission && answered) verdict = { verdict: 'moved-on', at, why: 'tool-answered' }
      continue
    }
    if (typeof e.promptId === 'string' && e.promptId !== wait.promptId && (wait.since === undefined || at > wait.since))
      verdict = { verdict: 'moved-on', at, why: 'new-prompt' }
  }
  return verdict
}

/**
 * Reads what the transcript holds after `offset` (bounded), or null when it cannot be read: a
 * FIFO, a folder or a link where the transcript should be is not read (lib/fs/safe-file.ts).
 */
export const readTranscriptAfter = (
  path: string,
  offset: number | null,
  cap = TRANSCRIPT_READ_CAP,
  keep?: (line: string) => boolean,
): TranscriptEntry[] | null => {
  const got = withRegularFile(path, { ownOnly: true }, (fd, st) => {
    const size = st.size
    // A transcript shorter than the offset was rewritten (Claude Code can drop lines by uuid):
    // read its end instead of trusting a stale place.
    const from = offset !== null && offset <= size ? Math.max(offset, size - cap) : Math.max(0, size - cap)
    if (size - from <= 0) return []
    const buf = readRange(fd, from, size - from)
    // A read from the exact recorded offset starts on a line boundary; any other does not.
    const atBoundary = from === 0 || from === offset
    return parseTranscriptLines(buf.toString('utf8'), atBoundary, keep)
  })
  return isRefusal(got) ? null : got
}

/** The last `count` conversation entries (prompts, replies, tool calls and results), for `show`. */
export const readTranscriptTail = (path: string, count: number, cap = 256 * 1024): TranscriptEntry[] | null => {
  const entries = readTranscriptAfter(path, null, cap)
  if (!entries) return null
  return entries.filter((e) => (e.type === 'user' || e.type === 'assistant') && e.isMeta !== true).slice(-count)
}
