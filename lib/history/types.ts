// The history's shapes (design §11): one line per state change of a session, and the report
// computed from a span of lines. Types and constants only, so that the emitter (which appends)
// and the page renderer (which draws a report) can both import it without the rest.
import type { AgentId, LiveState, WaitKind } from '../record/types.js'

export const HISTORY_VERSION = 1

/** A session's state as the history keeps it: the record's states and `gone` (found on read). */
export type HistoryState = LiveState | 'gone'

/** Who established a change: a hook's event (emitter or spool fold), or a check on read. */
export type HistorySource = 'hook' | 'read'

/** One line of a daily history file, as JSON. */
export interface HistoryEntry {
  v: typeof HISTORY_VERSION
  /** When the change happened (ms since the epoch): the event's own time, or the time of the transcript line or screen that decided it; never when a reader noticed. */
  at: number
  sessionId: string
  agent: AgentId
  /** The project's name, as the queue shows it. */
  project: string
  /** `local`, or the destination a remote host was added under. */
  host: string
  from: HistoryState | null
  to: HistoryState
  /** The kind of wait `to` is, when it is one. */
  kind: WaitKind | null
  /** What is asked (tool and command, or the question), visible text, when `to` is a wait. */
  ask?: string
  by: HistorySource
}

/** What a report groups by. */
export const REPORT_GROUPINGS = ['project', 'agent', 'host', 'kind'] as const
export type ReportGrouping = (typeof REPORT_GROUPINGS)[number]

/** A stretch of one session in one state: a bar of the timeline. */
export interface ReportSpan {
  sessionId: string
  agent: AgentId
  project: string
  host: string
  state: HistoryState
  kind: WaitKind | null
  start: number
  end: number
  ask?: string
}

/** Time per kind of wait, in ms; every kind present, zero when none. */
export type KindTimes = Record<WaitKind, number>

export interface ReportGroup {
  name: string
  blockedMs: number
  byKind: KindTimes
  waits: number
}

export interface SessionTimes {
  sessionId: string
  agent: AgentId
  project: string
  host: string
  workingMs: number
  waitingMs: number
  idleMs: number
  /** Time in the span with no known state (no line before it, or after the session was last seen). */
  unaccountedMs: number
}

/** Everything `trailboss report` shows, whatever the surface (table, JSON, page). */
export interface Report {
  /** The span, ms since the epoch. */
  since: number
  until: number
  /** The IANA time zone the hours of the day are in. */
  timeZone: string
  by: ReportGrouping
  /** Agent time blocked on the person: the sum over sessions of time spent waiting or in a dialog. */
  blocked: { totalMs: number; byKind: KindTimes; groups: ReportGroup[] }
  /** The person's answer time, from a wait's start to the agent moving on. */
  answers: {
    count: number
    p50Ms: number | null
    p90Ms: number | null
    longest: { ms: number; sessionId: string; kind: WaitKind | null; at: number } | null
  }
  sessions: SessionTimes[]
  /** Waits that began in each local hour of the day, 0–23. */
  waitsPerHour: number[]
  /** Session time in the span no line accounts for. */
  unaccountedMs: number
  /** The timeline, one lane per session, in order of first appearance. */
  spans: ReportSpan[]
  /** History lines of the span's files that were skipped (torn, foreign); absent when none. */
  skippedLines?: number
}
