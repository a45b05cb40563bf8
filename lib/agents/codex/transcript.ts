// Codex's rollout file (the session's transcript, `transcript_path`): what happened to a turn
// that no hook reports. An API error fires no hook at all; the rollout's `task_complete` of
// the turn then carries `error`. Lines: {timestamp, type, payload}; the ones read here are
// event_msg task_started / task_complete / turn_aborted and response_item function_call_output.
import { isRefusal, readRange, withRegularFile } from '../../fs/safe-file.js'

/** At most this much of a rollout is read past a record's offset per check. */
export const ROLLOUT_READ_CAP = 4 * 1024 * 1024
/**
 * A check starts this far before the record's offset. Codex's events reach the record through
 * the spool, and the fold that measures the rollout may run a little after the event: by then
 * the turn's end (an error) can be written already. Entries are matched by turn and call id,
 * and a new prompt only counts after the wait began, so reading earlier lines is harmless.
 */
export const ROLLOUT_LOOKBACK = 256 * 1024

export type RolloutEntry =
  | { kind: 'task_started'; turnId: string; at: number }
  | { kind: 'task_complete'; turnId: string; at: number; error: string | null }
  | { kind: 'turn_aborted'; turnId: string; at: number; reason: string | null }
  | { kind: 'tool_output'; callId: string; at: number }

/** Only lines holding one of these can matter: the rest is never JSON.parse'd. */
const WANTED = /"(task_started|task_complete|turn_aborted|function_call_output)"/

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** Pure: one rollout line as an entry we care about, or null. */
export const parseRolloutLine = (line: string): RolloutEntry | null => {
  if (!WANTED.test(line)) return null
  let o: unknown
  try {
    o = JSON.parse(line)
  } catch {
    return null
  }
  if (typeof o !== 'object' || o === null) return null
  const { timestamp, type, payload } = o as { timestamp?: unknown; type?: unknown; payload?: unknown }
  const at = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN
  if (!Number.isFinite(at) || typeof payload !== 'object' || payload === null) return null
  const p = payload as Record<string, unknown>
  if (type === 'event_msg') {
    const turnId = str(p.turn_id)
    if (!turnId) return null
    if (p.type === 'task_started') return { kind: 'task_started', turnId, at }
    if (p.type === 'turn_aborted') return { kind: 'turn_aborted', turnId, at, reason: str(p.reason) }
    if (p.type === 'task_complete') {
      const err = p.error
      const error = err === null || err === undefined ? null : (str((err as Record<string, unknown>).message) ?? 'error')
      return { kind: 'task_complete', turnId, at, error }
    }
    return null
  }
  if (type === 'response_item' && p.type === 'function_call_output') {
    const callId = str(p.call_id)
    return callId ? { kind: 'tool_output', callId, at } : null
  }
  return null
}

export const parseRollout = (text: string): RolloutEntry[] => {
  const out: RolloutEntry[] = []
  for (const line of text.split('\n')) {
    const e = parseRolloutLine(line)
    if (e) out.push(e)
  }
  return out
}

export interface RolloutQuestion {
  /** The turn the record's state belongs to (its promptId). */
  turnId: string | null
  /** When the record's state began (ms since the epoch). */
  since: number
  state: 'working' | 'permission' | 'waiting'
  /** The call a permission or question dialog is about. */
  pendingCallId: string | null
}

export type RolloutVerdict =
  | { verdict: 'error'; at: number; message: string }
  | { verdict: 'interrupted'; at: number }
  | { verdict: 'moved-on'; at: number; why: 'new-prompt' | 'tool-answered' }

/** Pure: what the rollout past the record's offset says about its wait or turn, if anything. */
export const deriveRolloutVerdict = (entries: readonly RolloutEntry[], q: RolloutQuestion): RolloutVerdict | null => {
  for (const e of entries) {
    if (e.kind === 'task_complete' && e.turnId === q.turnId && e.error !== null && q.state !== 'waiting')
      return { verdict: 'error', at: e.at, message: e.error }
    if (e.kind === 'turn_aborted' && e.turnId === q.turnId && q.state !== 'waiting') return { verdict: 'interrupted', at: e.at }
    if (e.kind === 'tool_output' && q.state === 'permission' && q.pendingCallId !== null && e.callId === q.pendingCallId)
      return { verdict: 'moved-on', at: e.at, why: 'tool-answered' }
    if (e.kind === 'task_started' && e.turnId !== q.turnId && e.at > q.since && q.state !== 'working')
      return { verdict: 'moved-on', at: e.at, why: 'new-prompt' }
  }
  return null
}

/** The rollout's entries from ROLLOUT_LOOKBACK before `offset` on (at most `cap` bytes); null when unreadable. */
export const readRolloutAfter = (path: string, offset: number | null, cap = ROLLOUT_READ_CAP): RolloutEntry[] | null => {
  const got = withRegularFile(path, {}, (fd, st) => {
    const from = offset !== null && offset >= 0 && offset <= st.size ? Math.max(0, offset - ROLLOUT_LOOKBACK) : 0
    const text = readRange(fd, from, Math.min(cap, st.size - from)).toString('utf8')
    // A partial first line (an offset inside a line) simply does not parse.
    return parseRollout(text)
  })
  return isRefusal(got) ? null : got
}
