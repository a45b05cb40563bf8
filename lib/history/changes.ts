// Pure: which state changes a fold or a check on read established, as history lines
// (docs/design.md §11). The fold's caller hands the records before and after each event; a
// reader hands the state it derived beside the record's.
import type { SessionRecord, WaitKind } from '../record/types.js'
import { HISTORY_VERSION, type HistoryEntry, type HistorySource, type HistoryState } from './types.js'

/** The host of this machine's sessions, as every surface names it (render/host-line.ts LOCAL_LABEL). */
export const LOCAL_HOST = 'local'

/**
 * What is asked, in visible text, cut to this many characters; with the project's cap it keeps
 * every line under 4 KiB, so one write(2) on an O_APPEND descriptor carries it whole.
 */
export const MAX_ASK_CHARS = 300
export const MAX_PROJECT_CHARS = 200

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * Controls, bidi overrides and zero-width marks become `?`: the line's text is safe to print as
 * it is. Not text/visible-text.ts's formatVisible, whose Unicode classes cost the emitter's
 * start-up; every surface still prints the text through it.
 */
const ACTING = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g
export const toPlainLine = (text: string): string => text.replace(ACTING, '?')

/** Pure: one line of text for what a wait asks (the tool's command or input, else the message). */
export const deriveAskText = (tool: string | null, input: unknown, message: string | null): string | undefined => {
  let text: string | null = null
  if (tool !== null) {
    const command = input !== null && typeof input === 'object' ? (input as Record<string, unknown>).command : undefined
    const detail =
      typeof command === 'string'
        ? command
        : typeof input === 'string'
          ? input
          : input === null || input === undefined
            ? ''
            : JSON.stringify(input)
    text = detail ? `${tool}: ${detail}` : tool
  } else if (message) text = message
  return text === null
    ? undefined
    : cut(
        toPlainLine(
          text
            .slice(0, MAX_ASK_CHARS * 2)
            .replace(/\s+/g, ' ')
            .trim(),
        ),
        MAX_ASK_CHARS,
      )
}

export const isWaitState = (s: HistoryState | null): boolean => s === 'permission' || s === 'waiting'

interface Change {
  from: HistoryState | null
  to: HistoryState
  kind: WaitKind | null
  at: number
  by: HistorySource
  ask?: string | undefined
}

/** Pure: a line for a session's change. */
export const toEntry = (rec: SessionRecord, c: Change): HistoryEntry => {
  const e: HistoryEntry = {
    v: HISTORY_VERSION,
    at: Math.round(c.at),
    sessionId: rec.sessionId,
    agent: rec.agent,
    project: cut(toPlainLine(rec.project ?? '?'), MAX_PROJECT_CHARS),
    host: LOCAL_HOST,
    from: c.from,
    to: c.to,
    kind: isWaitState(c.to) ? c.kind : null,
    by: c.by,
  }
  if (isWaitState(c.to) && c.ask !== undefined) e.ask = c.ask
  return e
}

/** A change of state or kind, or a new wait (a second dialog after the first was answered). */
const changed = (prev: SessionRecord | null, next: SessionRecord): boolean =>
  prev === null || prev.state !== next.state || prev.kind !== next.kind || (isWaitState(next.state) && prev.since !== next.since)

/**
 * Pure: the changes a fold under the session's lock made, one per event that changed the state,
 * dated by the record's `since` (the stamp of the event that set it). A headless run has no one
 * to wait on and is not logged.
 */
export const deriveFoldChanges = (before: SessionRecord | null, steps: readonly SessionRecord[]): HistoryEntry[] => {
  const out: HistoryEntry[] = []
  let prev = before
  for (const next of steps) {
    if (!next.headless && changed(prev, next))
      out.push(
        toEntry(next, {
          from: prev?.state ?? null,
          to: next.state,
          kind: next.kind,
          at: next.since,
          by: 'hook',
          ask: deriveAskText(next.tool?.name ?? null, next.tool?.input ?? null, next.message),
        }),
      )
    prev = next
  }
  return out
}

/** What a reader derived for a session: the queue's state, kind, since and ask. */
export interface ReadState {
  state: HistoryState
  kind: WaitKind | null
  since: number
  ask?: string | undefined
}

/**
 * Pure: the change a check on read found, or null when the reader agrees with the record. It
 * is dated by what decided it (the transcript line, the quiet screen's last event); a pane
 * found gone, by the session's last event: the last moment it is known to have run. Every
 * reader derives the same date from the same files, which makes the change's identity.
 */
export const deriveReadChange = (rec: SessionRecord, read: ReadState): HistoryEntry | null => {
  if (rec.headless) return null
  if (read.state === rec.state && read.kind === rec.kind && read.since === rec.since) return null
  const at = read.state === 'gone' ? Math.max(rec.lastEventAt, rec.since) : read.since
  return toEntry(rec, { from: rec.state, to: read.state, kind: read.kind, at, by: 'read', ask: read.ask })
}
