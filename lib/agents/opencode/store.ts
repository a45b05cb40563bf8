// OpenCode's own record of a session, read from its SQLite database (sqlite.ts): the last
// messages of the session and their parts, newest rows first, stopping as soon as what a check
// or `show` needs is read. Rows as OpenCode 1.18.33 writes them (test/fixtures/opencode/db/):
// `message(id, session_id, time_created, time_updated, data)` with data {role, time{created,
// completed}, error{name, data{message}}}; `part(id, message_id, session_id, time_created,
// time_updated, data)` with data {type: text|tool|…, text, callID, tool, state{status, input,
// output, error}}. Row ids only grow, so the newest rows are met first.
import { type Row, withSqlite } from './sqlite.js'

/** At most this many rows of a table are looked at per read: a bound on one check's cost. */
export const ROW_CAP = 20_000

export interface StoredMessage {
  id: string
  role: 'user' | 'assistant'
  created: number
  updated: number
  /** The error the turn ended with (`MessageAbortedError` for an Esc, `APIError`, …). */
  error: { name: string; message: string | null } | null
}

export interface StoredPart {
  id: string
  messageId: string
  created: number
  updated: number
  data: Record<string, unknown>
}

/** A session's last messages and their parts, oldest first. */
export interface SessionTail {
  messages: StoredMessage[]
  parts: StoredPart[]
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const parseData = (row: Row): Record<string, unknown> | null => {
  const text = row.get('data')
  if (typeof text !== 'string') return null
  try {
    const v: unknown = JSON.parse(text)
    return isObject(v) ? v : null
  } catch {
    return null
  }
}

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : NaN)

/** Pure: a message row's fields as a message, or null when it is not one of ours to read. */
export const toMessage = (id: unknown, created: unknown, updated: unknown, data: Record<string, unknown> | null): StoredMessage | null => {
  if (typeof id !== 'string' || !data || (data.role !== 'user' && data.role !== 'assistant')) return null
  const err = isObject(data.error) ? data.error : null
  const errData = err && isObject(err.data) ? err.data : {}
  return {
    id,
    role: data.role,
    created: num(created),
    updated: num(updated),
    error: err
      ? { name: typeof err.name === 'string' ? err.name : 'Error', message: typeof errData.message === 'string' ? errData.message : null }
      : null,
  }
}

/** How far back to read: to the prompt of the turn that ran at `since` (ms), or `messages` messages. */
export type TailWanted = { since: number; messages?: undefined } | { messages: number; since?: undefined }

/**
 * The session's messages back to what `want` asks, and their parts; null when the database
 * cannot be read. A session with no message yet has an empty tail.
 */
export const readSessionTail = (dbPath: string, sessionId: string, want: TailWanted): SessionTail | null =>
  withSqlite(dbPath, (db) => {
    const messages: StoredMessage[] = []
    let seen = 0
    db.scan('message', true, (row) => {
      if (++seen > ROW_CAP) return false
      if (row.get('session_id') !== sessionId) return true
      const m = toMessage(row.get('id'), row.get('time_created'), row.get('time_updated'), parseData(row))
      if (!m) return true
      messages.unshift(m)
      // Back to the prompt of the turn that ran when the wait began, or to enough messages.
      if (want.since !== undefined) return !(m.role === 'user' && m.created <= want.since)
      return messages.length < (want.messages ?? Infinity)
    })
    const ids = new Set(messages.map((m) => m.id))
    const oldest = messages[0]?.created ?? Infinity
    const parts: StoredPart[] = []
    seen = 0
    db.scan('part', true, (row) => {
      if (++seen > ROW_CAP) return false
      if (row.get('session_id') !== sessionId) return true
      const created = num(row.get('time_created'))
      // A message's parts are made after it: older ones belong to older messages.
      if (created < oldest) return false
      const messageId = row.get('message_id')
      const id = row.get('id')
      if (typeof messageId !== 'string' || typeof id !== 'string' || !ids.has(messageId)) return true
      const data = parseData(row)
      if (data) parts.unshift({ id, messageId, created, updated: num(row.get('time_updated')), data })
      return true
    })
    return { messages, parts }
  })

/** What happened after a wait began, by OpenCode's own record. */
export type StoreEntry =
  | { kind: 'prompt'; at: number }
  | { kind: 'abort'; at: number }
  | { kind: 'error'; at: number; message: string }
  /** The tool call the wait was for ran (its dialog was approved, its question answered). */
  | { kind: 'answered'; at: number }
  /** The tool call the wait was for was refused (Reject, Esc). */
  | { kind: 'refused'; at: number }

/** The error OpenCode's message carries when the person stopped the turn (Esc). */
const ABORTED = 'MessageAbortedError'

/** Pure: a session's tail as the entries a check reads, in time order; `callId`: the tool call a wait is for. */
export const deriveStoreEntries = (tail: SessionTail, callId: string | null): StoreEntry[] => {
  const out: StoreEntry[] = []
  for (const m of tail.messages) {
    if (m.role === 'user') out.push({ kind: 'prompt', at: m.created })
    else if (m.error?.name === ABORTED) out.push({ kind: 'abort', at: m.updated })
    else if (m.error) out.push({ kind: 'error', at: m.updated, message: m.error.message ?? m.error.name })
  }
  if (callId !== null) {
    const part = tail.parts.find((p) => p.data.type === 'tool' && p.data.callID === callId)
    const status = part && isObject(part.data.state) ? part.data.state.status : null
    if (part && status === 'completed') out.push({ kind: 'answered', at: part.updated })
    if (part && status === 'error') out.push({ kind: 'refused', at: part.updated })
  }
  return out.sort((a, b) => a.at - b.at)
}

export interface StoreQuestion {
  state: 'working' | 'permission' | 'waiting'
  /** When the record's state began (ms since the epoch). */
  since: number
}

export type StoreVerdict =
  | { verdict: 'error'; at: number; message: string }
  | { verdict: 'interrupted'; at: number }
  | { verdict: 'moved-on'; at: number; why: 'new-prompt' | 'tool-answered' }

/**
 * Pure: what OpenCode's record says happened after the record's state began, if anything: the
 * first entry that tells. An Esc or a failed request ends a turn that works or waits on a dialog;
 * the dialog's own call ran or was refused; a new prompt moves any wait on.
 */
export const deriveStoreVerdict = (entries: readonly StoreEntry[], q: StoreQuestion): StoreVerdict | null => {
  for (const e of entries) {
    if (e.at <= q.since) continue
    if (e.kind === 'abort' && q.state !== 'waiting') return { verdict: 'interrupted', at: e.at }
    if (e.kind === 'error' && q.state !== 'waiting') return { verdict: 'error', at: e.at, message: e.message }
    if (e.kind === 'answered' && q.state === 'permission') return { verdict: 'moved-on', at: e.at, why: 'tool-answered' }
    if (e.kind === 'refused' && q.state === 'permission') return { verdict: 'interrupted', at: e.at }
    if (e.kind === 'prompt' && q.state !== 'working') return { verdict: 'moved-on', at: e.at, why: 'new-prompt' }
  }
  return null
}
