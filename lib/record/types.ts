// The session record and the hook event, as TypeScript types: the one description of their
// shape that code is written against. lib/record/schema.ts checks files against the same shape
// (a compile-time test there keeps the two equal). Types and constants only: every layer,
// the emitter included, imports this file.
import type { AgentProcess } from '../proc/agent-process.js'

export const RECORD_VERSION = 1

/** The agents whose sessions we follow; their adapters are registered in lib/agents/. */
export type AgentId = string
/** The states a record can hold; `gone` is derived on read (lib/queue/derive.ts). */
export const LIVE_STATES = ['idle', 'working', 'permission', 'waiting', 'ended'] as const
export type LiveState = (typeof LIVE_STATES)[number]
/** The states a transcript check on read may overturn (a wait answered elsewhere, a turn interrupted); idle and ended ones it leaves. */
export const isTranscriptChecked = (state: LiveState): state is 'working' | 'permission' | 'waiting' =>
  state === 'working' || state === 'permission' || state === 'waiting'
/** What a wait is about; every list of kinds (options, schemas, summaries) starts here. */
export const WAIT_KINDS = ['permission', 'question', 'done', 'error', 'interrupted'] as const
export type WaitKind = (typeof WAIT_KINDS)[number]

export interface TmuxLocation {
  pane: string
  socket: string
  serverPid: number | null
}

/** A tool call the agent's own check refused (Claude Code's auto mode: PermissionDenied). */
export interface Denial {
  tool: string
  /** The agent's words for why ("Classifier unavailable"). */
  reason: string | null
  /** The event's stamp. */
  at: number
}

export interface ToolCall {
  name: string
  /** The tool's input; a string ending in TRUNCATION_MARKER when its JSON was over the cap. */
  input: unknown
  useId: string | null
}

/** What the emitter keeps of one hook event: the fold's input, and a pending file's content. */
export interface HookEvent {
  v: 1
  stamp: number
  /** The agent's own name of the event (its adapter's state rules read it). */
  name: string
  sessionId: string
  agent: AgentId
  promptId: string | null
  host: string
  headless: boolean
  cwd: string | null
  project: string | null
  transcriptPath: string | null
  offset: number | null
  tmux: TmuxLocation | null
  source: string | null
  reason: string | null
  notificationType: string | null
  tool: ToolCall | null
  message: string | null
  backgroundTasks: number
  isInterrupt: boolean
  /** The agent process that ran the hook (not for headless runs); absent from older emitters. */
  agentProcess?: AgentProcess | null
}

export interface SessionRecord {
  v: 1
  agent: AgentId
  sessionId: string
  host: string
  headless: boolean
  cwd: string | null
  project: string | null
  transcriptPath: string | null
  tmux: TmuxLocation | null
  state: LiveState
  kind: WaitKind | null
  /** When the current state (for a wait: the wait) began, ms since the epoch. */
  since: number
  /** The event that set the state, and its prompt id. */
  event: string
  promptId: string | null
  /** The tool a permission wait is about. */
  tool: ToolCall | null
  /** The agent's last message (Stop, StopFailure) or the notification text. */
  message: string | null
  /** Transcript size at the state event: where a check on read starts reading. */
  offset: number | null
  /** The latest PreToolUse, to give a PermissionRequest (which has none) its tool_use_id. */
  lastTool: ToolCall | null
  /** Prompt whose turn a Stop/StopFailure ended: its late tool events must not reopen it. */
  turnEndedPromptId: string | null
  backgroundTasks: number
  firstEventAt: number
  lastEventAt: number
  lastEvent: string
  /** Stamp of the newest event that set the state; older events update fields only. */
  stateStamp: number
  events: number
  /** Pending files already folded into this record; a later lock holder deletes them. */
  foldedPending: string[]
  /** The latest refused tool call of the current turn; absent in records that never had one. */
  denied?: Denial | null
  /** The agent process of the latest event: `send` types only into it. Absent from older records. */
  agentProcess?: AgentProcess | null
}
