// GitHub Copilot CLI's events file (`session-state/<sessionId>/events.jsonl`): what happened to a
// wait or turn that no hook reports. An Esc, in a dialog or while streaming, fires no hook; the
// file then has an `abort`. A failed model call's last word is a `session.error`. Lines:
// {type, data, id, timestamp, parentId}; only the types below are parsed.
import { isRefusal, readRange, withRegularFile } from '../../fs/safe-file.js'
import { wholeLines } from '../jsonl-lines.js'

/** At most this much of the file's end is read per check: a session's system prompt alone is tens of kB. */
export const EVENTS_READ_CAP = 4 * 1024 * 1024

export type CopilotEntry =
  | { kind: 'prompt'; at: number }
  | { kind: 'abort'; at: number }
  | { kind: 'error'; at: number; message: string }
  /** A permission dialog answered (approved or denied; not `cancelled`, which an abort follows). */
  | { kind: 'answered'; at: number }

/** Only lines of these types can matter: the rest is never JSON.parse'd. */
const WANTED = /^\{"type":"(user\.message|abort|session\.error|permission\.completed|human_response\.recorded)"/

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/** Pure: one line of events.jsonl as an entry we care about, or null. */
export const parseEventsLine = (line: string): CopilotEntry | null => {
  if (!WANTED.test(line)) return null
  let o: unknown
  try {
    o = JSON.parse(line)
  } catch {
    return null
  }
  if (!isObject(o)) return null
  const at = typeof o.timestamp === 'string' ? Date.parse(o.timestamp) : NaN
  if (!Number.isFinite(at)) return null
  const data = isObject(o.data) ? o.data : {}
  switch (o.type) {
    case 'user.message':
      return { kind: 'prompt', at }
    case 'abort':
      return { kind: 'abort', at }
    case 'session.error':
      return { kind: 'error', at, message: typeof data.message === 'string' ? data.message : 'error' }
    case 'permission.completed':
      return isObject(data.result) && data.result.kind === 'cancelled' ? null : { kind: 'answered', at }
    case 'human_response.recorded':
      return { kind: 'answered', at }
    default:
      return null
  }
}

export const parseEvents = (lines: readonly string[]): CopilotEntry[] =>
  lines.flatMap((l) => {
    const e = parseEventsLine(l)
    return e ? [e] : []
  })

export interface EventsQuestion {
  state: 'working' | 'permission' | 'waiting'
  /** When the record's state began (ms since the epoch). */
  since: number
}

export type EventsVerdict =
  | { verdict: 'error'; at: number; message: string }
  | { verdict: 'interrupted'; at: number }
  | { verdict: 'moved-on'; at: number; why: 'new-prompt' | 'tool-answered' }

/**
 * Pure: what the file says happened after the record's state began, if anything. Copilot's
 * hooks carry no turn or call id, so entries are matched by time alone: the first that tells.
 */
export const deriveEventsVerdict = (entries: readonly CopilotEntry[], q: EventsQuestion): EventsVerdict | null => {
  for (const e of entries) {
    if (e.at <= q.since) continue
    if (e.kind === 'abort' && q.state !== 'waiting') return { verdict: 'interrupted', at: e.at }
    if (e.kind === 'error' && q.state !== 'waiting') return { verdict: 'error', at: e.at, message: e.message }
    if (e.kind === 'answered' && q.state === 'permission') return { verdict: 'moved-on', at: e.at, why: 'tool-answered' }
    if (e.kind === 'prompt' && q.state !== 'working') return { verdict: 'moved-on', at: e.at, why: 'new-prompt' }
  }
  return null
}

/** The entries of the file's last `cap` bytes; null when it cannot be read. */
export const readEventsTail = (path: string, cap = EVENTS_READ_CAP): CopilotEntry[] | null => {
  const got = withRegularFile(path, {}, (fd, st) => {
    const from = Math.max(0, st.size - cap)
    return parseEvents(wholeLines(readRange(fd, from, st.size - from).toString('utf8'), from === 0))
  })
  return isRefusal(got) ? null : got
}
