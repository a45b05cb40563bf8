// Pure: HookEvents fold into a session record (docs/design.md §2.6 order rules, §3 state table). The
// order rules, the fields that locate a session and when a wait begins are the same for every
// agent and live here; what each agent's events mean comes from its adapter's FoldRules
// (lib/agents/<id>/). No I/O and nothing heavy: this file is on the emitter's path.
import { hooksFor } from '../agents/hook-registry.js'
import type { FoldRules } from '../agents/types.js'
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
 * Folds one event into a record (docs/design.md §2.6 order rules, §3 state table). Pure: the same
 * record and event always give the same result, so readers can replay pending events.
 */
export const applyEvent = (prev: SessionRecord | null, ev: HookEvent): SessionRecord => {
  const base = prev ?? emptyRecord(ev)
  // Fields that locate the session heal on every event, whatever its age.
  const rec: SessionRecord = {
    ...base,
    host: ev.host || base.host,
    headless: base.headless || ev.headless,
    cwd: ev.cwd ?? base.cwd,
    project: ev.project ?? base.project,
    transcriptPath: ev.transcriptPath ?? base.transcriptPath,
    tmux: ev.headless || base.headless ? null : ev.tmux ?? base.tmux,
    firstEventAt: Math.min(base.firstEventAt, ev.stamp),
    lastEventAt: Math.max(base.lastEventAt, ev.stamp),
    lastEvent: ev.stamp >= base.lastEventAt ? ev.name : base.lastEvent,
    events: base.events + 1,
  }
  const rules = hooksFor(ev.agent)?.rules ?? NO_RULES
  rules.heal?.(rec, prev, ev)
  // The agent process that ran the hook: `send` types only into it.
  if (ev.agentProcess !== undefined) rec.agentProcess = rec.headless ? null : ev.agentProcess
  if (prev && ev.stamp < prev.stateStamp) return rec
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

/** Folds events in stamp order (ties by arrival), as readers and the reliability tests do. */
export const foldEvents = (rec: SessionRecord | null, events: readonly HookEvent[]): SessionRecord | null =>
  [...events].sort((a, b) => a.stamp - b.stamp).reduce<SessionRecord | null>((r, e) => applyEvent(r, e), rec)
