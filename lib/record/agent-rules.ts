// What the record layer needs of an agent, handed down by the caller that knows the agents (the
// emitter, the queue's readers): the meaning of its events for the fold, and the turning of a
// spooled payload into an event. The record layer sits below the agents (docs/design.md §9), so
// it names none of them and imports nothing from lib/agents/: an agent adapter implements these.
import type { Env } from '../paths.js'
import type { HookEvent, LiveState, SessionRecord, ToolCall, WaitKind } from './types.js'

/** What the emitter knows besides the payload, for the adapter to build the event from. */
export interface HookContext {
  /** The hook's environment. */
  env: Env
  /** When the emitter's process started (the event's order, docs/design.md §2.6). */
  stamp: number
  host: string
  /** The size of a file, or null when it cannot be stat'ed (the transcript's offset). */
  fileSize: (path: string) => number | null
  /** The label of a project: the folder's basename, `~` for home; from cwd, the folder holding .git. */
  projectLabel: (projectDir: string | undefined, cwd: string | null) => string | null
}

/** The state an event asks for. `tool` and `message` left out: the fold's defaults. */
export interface StateChange {
  state: LiveState
  kind: WaitKind | null
  tool?: ToolCall | null
  message?: string | null
}

/**
 * An agent's rules of the state table (docs/design.md §3). The core fold (lib/record/fold.ts) owns the
 * order rules, the fields that locate a session and when a wait is new; it calls these, in this
 * order, for what only the agent's events can say.
 */
export interface FoldRules {
  /** Fields an event heals whatever its age (before the order check). */
  heal?: (rec: SessionRecord, prev: SessionRecord | null, ev: HookEvent) => void
  /** Fields an event not older than the state updates, even on an ended record. */
  track?: (rec: SessionRecord, ev: HookEvent) => void
  /** Whether this event brings an ended session back (a resume). */
  reopensEnded: (ev: HookEvent) => boolean
  /** The state the event asks for, or null when it leaves the state as it is. */
  stateChange: (prev: SessionRecord | null, ev: HookEvent) => StateChange | null
  /** What an event that leaves the state may still update. */
  unchanged?: (rec: SessionRecord, base: SessionRecord, ev: HookEvent) => void
  /** Bookkeeping after the event set the state (the turn it ended, background tasks). */
  changed?: (rec: SessionRecord, ev: HookEvent, change: StateChange) => void
}

/** An agent as the record layer sees it: what its events mean, and how a payload becomes one. */
export interface AgentRecordRules {
  /** A parsed hook payload as our HookEvent, or why it cannot be one. */
  toHookEvent: (payload: unknown, ctx: HookContext) => HookEvent | string
  rules: FoldRules
  /**
   * The variables of the hook's environment that toHookEvent reads about the session, besides
   * the pane's (TMUX, TMUX_PANE): what a spooled event keeps for its fold (lib/agents/spool-env.ts).
   */
  sessionEnv?: readonly string[]
}

/** The agents a caller knows, by the record's `agent` id; undefined for one it does not know. */
export type AgentRulesOf = (agentId: string) => AgentRecordRules | undefined
