// GitHub Copilot CLI's rules of the state table (docs/design.md §3), from the captures in
// test/fixtures/copilot. Its hooks are blocking and run one after another, so events arrive in
// order. permission = notification `permission_prompt` (permissionRequest fires for an
// auto-approved call too, so only the notification proves a dialog); question = notification
// `elicitation_dialog` (ask_user's form); done = agentStop; error = errorOccurred (one per
// attempt: a retry that then succeeds goes on with its next event); ended = sessionEnd. An Esc,
// in a dialog or while streaming, fires no hook at all. Pure.
import type { HookEvent, SessionRecord } from '../../record/types.js'
import type { FoldRules, StateChange } from '../types.js'
import { afterToolEnd } from '../tool-in-flight.js'

/** The tool Copilot asks the person a question with. */
export const COPILOT_QUESTION_TOOL = 'ask_user'

/** The notification of a tool call waiting for the person's approval. */
export const PERMISSION_PROMPT = 'permission_prompt'
/** The notification of ask_user's form on screen. */
export const ELICITATION_DIALOG = 'elicitation_dialog'

const WORKING_EVENTS = new Set([
  'userPromptSubmitted',
  'userPromptTransformed',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'subagentStart',
])

export const stateChangeFor = (rec: SessionRecord | null, ev: HookEvent): StateChange | null => {
  if (WORKING_EVENTS.has(ev.name)) return { state: 'working', kind: null }
  switch (ev.name) {
    case 'sessionStart':
      // It fires at the first prompt (not at launch), just before userPromptSubmitted.
      return { state: 'idle', kind: null }
    case 'notification': {
      // The notification names no tool: the preToolUse just before it does.
      const tool = rec?.lastTool ?? null
      if (ev.notificationType === PERMISSION_PROMPT) return { state: 'permission', kind: 'permission', tool, message: ev.message }
      if (ev.notificationType === ELICITATION_DIALOG) return { state: 'permission', kind: 'question', tool, message: ev.message }
      return null
    }
    case 'agentStop':
      // It carries no message of the agent's: the turn is done.
      return { state: 'waiting', kind: 'done' }
    case 'errorOccurred':
      return { state: 'waiting', kind: 'error', message: ev.message }
    case 'sessionEnd':
      return rec?.state === 'ended' ? null : { state: 'ended', kind: null }
    default:
      // permissionRequest (also fired for auto-approved calls), subagentStop, preCompact: no state.
      return null
  }
}

export const copilotRules: FoldRules = {
  track: (rec, ev) => {
    if (ev.name === 'preToolUse' && ev.tool) rec.lastTool = ev.tool
    else if (ev.name === 'postToolUse' || ev.name === 'postToolUseFailure') rec.lastTool = afterToolEnd(rec.lastTool, ev.tool)
  },
  // A resumed session starts again under its old id with sessionStart (source resume).
  reopensEnded: (ev) => ev.name === 'sessionStart',
  stateChange: stateChangeFor,
  changed: (rec, ev) => {
    if (ev.name === 'sessionStart' || ev.name === 'userPromptSubmitted') rec.lastTool = null
  },
}
