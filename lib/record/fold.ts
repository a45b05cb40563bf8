// Pure: HookEvents fold into a session record (docs/design.md §2.6 order rules, §3 state table). The
// order rules, the fields that locate a session and when a wait begins are the same for every
// agent and live here; what each agent's events mean comes from its adapter's FoldRules
// (lib/agents/<id>/), handed in by the caller, which knows the agents (record/agent-rules.ts).
// No I/O and nothing heavy: this file is on the emitter's path.
import type { AgentRulesOf, FoldRules } from './agent-rules.js'
import { jsonEqual } from '../json-equal.js'
import type { HookEvent, SessionRecord } from './types.js'

/** An agent no adapter knows (a record from a newer version): its events change no state. */
const NO_RULES: FoldRules = { reopensEnded: () => false, stateChange: () => null }

const emptyRecord = (ev: HookEvent): SessionRecord => ({
  v: 1,
  agent: ev.agent,
  sessionId: ev.sessionId,
  host: ev.host,
  headless: ev.headless,
  cwd: ev.cwd,
  project: ev.project,
  transcriptPath: ev.transcriptPath,
  tmux: ev.tmux,
  state: 'idle',
  kind: null,
  since: ev.stamp,
  event: ev.name,
  promptId: ev.promptId,
  tool: null,
  message: null,
  offset: ev.offset,
  lastTool: null,
  turnEndedPromptId: null,
  backgroundTasks: 0,
  firstEventAt: ev.stamp,
  lastEventAt: ev.stamp,
  lastEvent: ev.name,
  stateStamp: 0,
  events: 0,
  foldedPending: [],
})

/**
 * How far a stored stamp may lie ahead of the folder's clock before it counts as taken before
 * a step back of the wall clock. Stamps and clocks of one machine agree to a millisecond; this
 * leaves room for rounding, not for steps.
 */
export const CLOCK_STEP_SLACK_MS = 50

/** Whether a stamp of the record lies ahead of `now`: the wall clock stepped back since. */
const isAheadOf = (stamp: number, now: number | undefined): boolean => now !== undefined && stamp > now + CLOCK_STEP_SLACK_MS

/**
 * Folds one event into a record (docs/design.md §2.6 order rules, §3 state table). Pure: the
 * same record, event and `now` always give the same result, so readers can replay pending events.
 * `now` is the folder's clock (the lock holder's, or a reader's): a record stamped ahead of it
 * was stamped before the wall clock stepped back (NTP, a resume, a migrated VM), and its stamps
 * cannot order events any more. The order events reach the session then decides: the event
 * being folded is the newer. Without `now` (replays of known sequences), stamps alone decide.
 * `agents` gives the rules of the event's agent; an agent it does not know changes no state.
 */
export const applyEvent = (prev: SessionRecord | null, ev: HookEvent, agents: AgentRulesOf, now?: number): SessionRecord => {
  const base = prev ?? emptyRecord(ev)
  const lastAhead = isAheadOf(base.lastEventAt, now)
  // Fields that locate the session heal on every event, whatever its age.
  const rec: SessionRecord = {
    ...base,
    host: ev.host || base.host,
    headless: base.headless || ev.headless,
    cwd: ev.cwd ?? base.cwd,
    project: ev.project ?? base.project,
    transcriptPath: ev.transcriptPath ?? base.transcriptPath,
    tmux: ev.headless || base.headless ? null : (ev.tmux ?? base.tmux),
    firstEventAt: Math.min(base.firstEventAt, ev.stamp),
    lastEventAt: lastAhead ? ev.stamp : Math.max(base.lastEventAt, ev.stamp),
    lastEvent: lastAhead || ev.stamp >= base.lastEventAt ? ev.name : base.lastEvent,
    events: base.events + 1,
  }
  const rules = agents(ev.agent)?.rules ?? NO_RULES
  rules.heal?.(rec, prev, ev)
  // The agent process that ran the hook: `send` types only into it.
  if (ev.agentProcess !== undefined) rec.agentProcess = rec.headless ? null : ev.agentProcess
  if (prev && ev.stamp < prev.stateStamp && !isAheadOf(prev.stateStamp, now)) return rec
  rules.track?.(rec, ev)
  // Once ended, only the agent's resume brings a session back (docs/design.md §3.2).
  if (base.state === 'ended' && prev && !rules.reopensEnded(ev)) return rec
  const change = rules.stateChange(prev, ev)
  // Only an event that sets the state moves stateStamp: a newer event that leaves the state
  // (MessageDisplay, an unknown one) must not void an older Stop still on its way.
  if (!change) {
    rules.unchanged?.(rec, base, ev)
    return rec
  }
  rec.stateStamp = ev.stamp
  const tool = change.tool !== undefined ? change.tool : change.state === 'permission' ? base.tool : null
  const message = change.message !== undefined ? change.message : null
  const sameWait =
    prev !== null &&
    prev.state === change.state &&
    prev.kind === change.kind &&
    prev.promptId === (ev.promptId ?? prev.promptId) &&
    jsonEqual(prev.tool, tool)
  rec.state = change.state
  rec.kind = change.kind
  rec.tool = tool
  rec.message = message
  rules.changed?.(rec, ev, change)
  if (!sameWait) {
    rec.since = ev.stamp
    rec.event = ev.name
    rec.promptId = ev.promptId ?? base.promptId
    rec.offset = ev.offset
  } else if (rec.offset === null) {
    rec.offset = ev.offset
  }
  return rec
}

/**
 * Folds events in stamp order (ties by arrival), as readers and the reliability tests do:
 * pending events, saved without the lock, have no other order than their stamps.
 */
export const foldEvents = (
  rec: SessionRecord | null,
  events: readonly HookEvent[],
  agents: AgentRulesOf,
  now?: number,
): SessionRecord | null =>
  [...events].sort((a, b) => a.stamp - b.stamp).reduce<SessionRecord | null>((r, e) => applyEvent(r, e, agents, now), rec)
