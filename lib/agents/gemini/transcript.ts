// Gemini CLI's chat file (`~/.gemini/tmp/<project>/chats/session-<start>-<id8>.jsonl`), read on
// a check (docs/design.md §4.1, §8): what no hook says — an Esc denial, and whether a turn that AfterAgent
// ended was cancelled or failed — the chat file does. Shapes as Gemini CLI 0.61.0 writes them
// (test/fixtures/gemini/chats): a header line, records `{id, timestamp, type, content, …}` with
// type user / gemini / info / error, and `{"$set": …}` patch lines. A record written again with
// the same id replaces the earlier one (a tool call gets its `toolCalls` and their `status`).
import { isRefusal, readRange, withRegularFile } from '../../fs/safe-file.js'
import type { LiveState } from '../../record/types.js'
import type { TranscriptVerdict } from '../types.js'
import { wholeLines } from '../jsonl-lines.js'

/** The most bytes one check reads, from the end: a turn's records are its last lines. */
export const CHAT_READ_CAP = 1024 * 1024

/** The info record Gemini CLI writes after an Esc: while streaming, or in a permission dialog. */
export const CANCELLED_TEXT = 'Request cancelled.'
/** The first words of the context block that opens a history rewrite (after an Esc denial). */
const CONTEXT_PREFIX = '<session_context>'

export interface ChatRecord {
  id?: unknown
  timestamp?: unknown
  type?: unknown
  content?: unknown
  toolCalls?: unknown
  [key: string]: unknown
}

/** A chat line that matters: a record, or a `$set` of the whole message list (a history rewrite). */
export type ChatLine = { record: ChatRecord } | { history: true }

export const asObj = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null

/**
 * Splits complete lines and keeps records and history rewrites. `$set` lines hold the whole
 * history and are most of a long chat's bytes: they are recognised by their start, never parsed.
 */
export const parseChatLines = (text: string, fromStart: boolean): ChatLine[] => {
  const lines = wholeLines(text, fromStart)
  const out: ChatLine[] = []
  for (const line of lines) {
    if (line.startsWith('{"$set":')) {
      if (line.startsWith('{"$set":{"messages":')) out.push({ history: true })
      continue
    }
    if (!line.startsWith('{')) continue
    try {
      const v = asObj(JSON.parse(line))
      if (v && typeof v.type === 'string') out.push({ record: v })
    } catch {
      // A torn or foreign line is not a signal.
    }
  }
  return out
}

export const parts = (rec: ChatRecord): Record<string, unknown>[] =>
  Array.isArray(rec.content) ? rec.content.map(asObj).filter((p): p is Record<string, unknown> => p !== null) : []

export const textOf = (rec: ChatRecord): string =>
  typeof rec.content === 'string'
    ? rec.content
    : parts(rec)
        .map((p) => (typeof p.text === 'string' ? p.text : ''))
        .join('\n')

/** A prompt the person typed: a user record with text and no tool result. */
export const isTypedPrompt = (rec: ChatRecord): boolean =>
  rec.type === 'user' &&
  !parts(rec).some((p) => p.functionResponse !== undefined) &&
  textOf(rec).trim() !== '' &&
  !textOf(rec).startsWith(CONTEXT_PREFIX)

const toolStatuses = (rec: ChatRecord): string[] =>
  Array.isArray(rec.toolCalls) ? rec.toolCalls.map((c) => asObj(c)?.status).filter((s): s is string => typeof s === 'string') : []

const timeOf = (rec: ChatRecord, fallback: number): number => {
  const t = typeof rec.timestamp === 'string' ? Date.parse(rec.timestamp) : Number.NaN
  return Number.isFinite(t) ? t : fallback
}

/**
 * The records as the conversation went, without history rewrites: after an Esc denial Gemini
 * CLI 0.61.0 appends the earlier turns again (a `<session_context>` user record first, fresh
 * timestamps) and ends the rewrite with a `$set` of the message list. Those copies are not new
 * activity, so everything from such a context record up to that `$set` is dropped.
 */
export const liveRecords = (lines: readonly ChatLine[]): ChatRecord[] => {
  const out: ChatRecord[] = []
  let inRewrite = false
  for (const line of lines) {
    if ('history' in line) {
      inRewrite = false
      continue
    }
    const rec = line.record
    if (rec.type === 'user' && textOf(rec).startsWith(CONTEXT_PREFIX)) {
      inRewrite = true
      continue
    }
    if (!inRewrite) out.push(rec)
  }
  return out
}

export interface ChatWait {
  state: LiveState
  /** When the wait (or the work) began. */
  since: number
}

/**
 * Pure: what the chat says about a session's current turn, or null when it says nothing new.
 * Each typed prompt starts a turn; only the last turn counts. In it: an `error` record is an
 * API error, the info "Request cancelled." (or a tool call cancelled) is an Esc, a tool result
 * after a permission wait began is an answered dialog, and a prompt typed after the wait began
 * is the person back.
 */
export const deriveChatVerdict = (lines: readonly ChatLine[], wait: ChatWait, fallbackTime: number): TranscriptVerdict | null => {
  let ended: TranscriptVerdict | null = null
  let answeredAt: number | null = null
  let promptAt: number | null = null
  for (const rec of liveRecords(lines)) {
    const at = timeOf(rec, fallbackTime)
    if (isTypedPrompt(rec)) {
      ended = null
      answeredAt = null
      promptAt = at
      continue
    }
    if (rec.type === 'error') ended = { verdict: 'error', at, message: textOf(rec) }
    else if (rec.type === 'info' && textOf(rec) === CANCELLED_TEXT) ended = { verdict: 'interrupted', at }
    else if (rec.type === 'gemini' && toolStatuses(rec).includes('cancelled'))
      ended ??= { verdict: 'interrupted', at: Math.max(at, wait.since) }
    else if (rec.type === 'user' && parts(rec).some((p) => p.functionResponse !== undefined) && at >= wait.since) answeredAt = at
  }
  // A working session's own prompt lands just after its BeforeAgent: only a wait can be left.
  if (wait.state !== 'working' && promptAt !== null && promptAt > wait.since)
    return { verdict: 'moved-on', at: promptAt, why: 'new-prompt' }
  if (ended) return ended
  if (wait.state === 'permission' && answeredAt !== null) return { verdict: 'moved-on', at: answeredAt, why: 'tool-answered' }
  return null
}

/** Reads the chat file's last `cap` bytes as lines, or null when it cannot be read. */
export const readChatTail = (path: string, cap = CHAT_READ_CAP): ChatLine[] | null => {
  // Through the safe reader: a FIFO or a device in the chat file's place is refused, never waited on.
  const got = withRegularFile(path, { follow: true }, (fd, st) => {
    const from = Math.max(0, st.size - cap)
    return from >= st.size ? [] : parseChatLines(readRange(fd, from, st.size - from).toString('utf8'), from === 0)
  })
  return isRefusal(got) ? null : got
}
