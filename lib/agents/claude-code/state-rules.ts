// Claude Code's rules of the state table (docs/design.md §3.1): which of its hook events and notification
// types mean which state, and the bookkeeping its event order needs (async hooks start
// milliseconds apart, a PermissionRequest has no tool_use_id, a Stop's late tool events).
// Pure; the core fold (lib/record/fold.ts) applies them.
import { jsonEqual } from '../../json-equal.js'
import type { HookEvent, SessionRecord } from '../../record/types.js'
import type { FoldRules, StateChange } from '../types.js'
import { afterToolEnd } from '../tool-in-flight.js'
import { endsWithQuestion } from '../wait-text.js'

/** The tool Claude Code asks the person a question with (its dialog is a permission dialog). */
export const QUESTION_TOOL = 'AskUserQuestion'

const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PostToolBatch', 'PermissionRequest', 'SubagentStart'])
const WORKING_EVENTS = new Set([
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PreToolUse',
  'PostToolUse',
  'PostToolBatch',
  'SubagentStart',
  // Auto mode refused a tool (2.1.332): the model is told and goes on.
  'PermissionDenied',
])

/**
 * Notification types that ask something of the person (2.1.332 added all but the first two):
 * each is a wait, its message the ask. Auto mode's "can't check actions" dialog fires only
 * `agent_needs_input` (no PermissionRequest); a worker's permission prompt and an MCP server's
 * URL to open (a question) are the others.
 */
const NEEDS_PERSON: Readonly<Record<string, 'permission' | 'question'>> = {
  elicitation_dialog: 'question',
  agent_needs_input: 'permission',
  worker_permission_prompt: 'permission',
  elicitation_url_dialog: 'question',
}

/**
 * Notification types that leave the state as it is: a repeat of a wait (`idle_prompt` and
 * `permission_prompt` are handled on their own) or news that asks nothing (a background agent
 * done, a push, a quota resumed, computer use switched, a fallback model, a plugin's word).
 */
export const KNOWN_NOTIFICATION_TYPES: ReadonlySet<string> = new Set([
  'permission_prompt',
  'idle_prompt',
  'auth_success',
  ...Object.keys(NEEDS_PERSON),
  'agent_completed',
  'push_notification',
  'computer_use_enter',
  'computer_use_exit',
  'quota_auto_resume_fired',
  'quota_auto_resume_stale',
  'quota_auto_resume_disabled',
  'model_refusal_fallback',
  'auth_storage_failure',
  'plugin_notification',
])

/** Whether `ev` (a PreToolUse) is the call that the record's open permission dialog is about. */
const isOpenDialogFor = (rec: SessionRecord, ev: HookEvent): boolean =>
  rec.state === 'permission' &&
  rec.tool !== null &&
  ev.tool !== null &&
  rec.promptId === ev.promptId &&
  rec.tool.name === ev.tool.name &&
  jsonEqual(rec.tool.input, ev.tool.input)

/** The state an event asks for, or null when it leaves the state as it is. */
export const stateChangeFor = (rec: SessionRecord | null, ev: HookEvent): StateChange | null => {
  const current = rec?.state ?? null
  const isToolEvent = TOOL_EVENTS.has(ev.name) || (ev.name === 'Notification' && ev.notificationType === 'permission_prompt')
  // Within one prompt, a turn that Stop ended is not reopened by a late tool event of it.
  if (isToolEvent && rec && ev.promptId !== null && rec.turnEndedPromptId === ev.promptId) return null
  // The PreToolUse of the very call a dialog asks about, stamped after it (async hooks start
  // milliseconds apart): the dialog is still open.
  if (ev.name === 'PreToolUse' && rec && isOpenDialogFor(rec, ev)) return null
  if (WORKING_EVENTS.has(ev.name)) return { state: 'working', kind: null }
  switch (ev.name) {
    case 'SessionStart':
      return ev.source === 'compact' ? null : { state: 'idle', kind: null }
    case 'PostToolUseFailure':
      // Esc while the tool ran: the wait names it.
      return ev.isInterrupt ? { state: 'waiting', kind: 'interrupted', tool: ev.tool } : { state: 'working', kind: null }
    case 'PermissionRequest': {
      const last = rec?.lastTool
      const tool =
        ev.tool && last && last.name === ev.tool.name && jsonEqual(last.input, ev.tool.input) ? { ...ev.tool, useId: last.useId } : ev.tool
      return { state: 'permission', kind: ev.tool?.name === QUESTION_TOOL ? 'question' : 'permission', tool }
    }
    case 'Stop':
      if (ev.backgroundTasks > 0) return { state: 'working', kind: null }
      return { state: 'waiting', kind: endsWithQuestion(ev.message) ? 'question' : 'done', message: ev.message }
    case 'StopFailure':
      return { state: 'waiting', kind: 'error', message: ev.message }
    case 'SessionEnd':
      return { state: 'ended', kind: null }
    case 'Notification':
      switch (ev.notificationType) {
        case 'permission_prompt':
          // Repeats the PermissionRequest of the open dialog; alone (a missed PermissionRequest),
          // the latest PreToolUse is the best guess at what is asked.
          if (current === 'permission' && rec) return { state: 'permission', kind: rec.kind, tool: rec.tool, message: rec.message }
          return {
            state: 'permission',
            kind: rec?.lastTool?.name === QUESTION_TOOL ? 'question' : 'permission',
            tool: rec?.lastTool ?? null,
          }
        case 'idle_prompt':
          // Confirms a wait as it is, even when its prompt id is newer (a /compact in between).
          if (current === 'waiting') return null
          // After /clear Claude Code sends idle_prompt for the new session, which nobody has
          // prompted yet: nothing waits on the person there.
          if (current === 'idle') return null
          return { state: 'waiting', kind: 'done', tool: null, message: rec?.message ?? null }
        default: {
          // Unknown types (a newer build's) leave the state: the emitter logs them once.
          const type = ev.notificationType
          const kind = type !== null && Object.hasOwn(NEEDS_PERSON, type) ? NEEDS_PERSON[type] : undefined
          if (!kind) return null
          if (kind === 'question') return { state: 'permission', kind, tool: null, message: ev.message }
          // The dialog is about the turn's pending tool call, when there is one.
          const tool =
            current === 'working' && rec?.lastEvent === 'PreToolUse' ? rec.lastTool : current === 'permission' ? (rec?.tool ?? null) : null
          return { state: 'permission', kind, tool, message: ev.message }
        }
      }
    default:
      return null
  }
}

export const claudeCodeRules: FoldRules = {
  // A PermissionRequest has no tool_use_id; its PreToolUse, in whatever order it lands, has.
  heal: (rec, prev, ev) => {
    if (ev.name === 'PreToolUse' && ev.tool && prev && isOpenDialogFor(prev, ev) && prev.tool?.useId === null) {
      rec.tool = { ...prev.tool, useId: ev.tool.useId }
    }
  },
  track: (rec, ev) => {
    if (ev.name === 'PreToolUse' && ev.tool) rec.lastTool = ev.tool
    else if (ev.name === 'PostToolUse' || ev.name === 'PostToolUseFailure') rec.lastTool = afterToolEnd(rec.lastTool, ev.tool)
    // Kept with its turn (a new prompt clears it): the session goes on, but the person may
    // want to know what was not done.
    if (ev.name === 'PermissionDenied' && ev.tool) rec.denied = { tool: ev.tool.name, reason: ev.reason, at: ev.stamp }
  },
  // Once ended, only a new SessionStart (resume) brings a session back (docs/design.md §3.2).
  reopensEnded: (ev) => ev.name === 'SessionStart',
  stateChange: stateChangeFor,
  // idle_prompt: Claude Code sits at its prompt and the person pressed no key since the turn
  // ended, so what the transcript gained meanwhile (a /compact) is not the person coming back.
  unchanged: (rec, base, ev) => {
    if (ev.name === 'Notification' && ev.notificationType === 'idle_prompt' && base.state === 'waiting' && ev.offset !== null)
      rec.offset = ev.offset
  },
  changed: (rec, ev, change) => {
    if (ev.name === 'SessionStart') rec.lastTool = null
    if (ev.name === 'Stop' || ev.name === 'StopFailure') {
      rec.backgroundTasks = ev.backgroundTasks
      if (change.state === 'waiting') rec.turnEndedPromptId = ev.promptId
    } else if (ev.name === 'UserPromptSubmit' || ev.name === 'SessionStart') {
      rec.turnEndedPromptId = null
      rec.lastTool = null
      rec.backgroundTasks = 0
      if (rec.denied) rec.denied = null
    }
  },
}
