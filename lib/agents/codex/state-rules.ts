// Codex's rules of the state table (docs/design.md §3). Its hooks are blocking, so they arrive in the
// order they fired: permission = PermissionRequest (after its PreToolUse); question = the
// PreToolUse of `request_user_input` (its dialog opens at once, Plan mode only); done = Stop;
// interrupted = Interrupt (Esc in a dialog or while streaming); ended = SessionEnd. An API
// error fires no hook: the rollout tells it on read (transcript.ts). Pure.
import { jsonEqual } from '../../json-equal.js'
import type { HookEvent, SessionRecord, ToolCall } from '../../record/types.js'
import type { FoldRules, StateChange } from '../types.js'
import { afterToolEnd } from '../tool-in-flight.js'
import { endsWithQuestion } from '../wait-text.js'

/** The tool Codex asks the person a question with. */
export const CODEX_QUESTION_TOOL = 'request_user_input'

const WORKING_EVENTS = new Set(['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'SubagentStart'])
/** Events of a turn's tools: once the turn ended (Stop, Interrupt) they must not reopen it. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PermissionRequest', 'PostToolUse', 'SubagentStart'])

/** The command a tool input runs: PermissionRequest adds a `description` to PreToolUse's input. */
const commandOf = (input: unknown): unknown =>
  typeof input === 'object' && input !== null ? (input as Record<string, unknown>).command : undefined

/** PermissionRequest has no tool_use_id; the PreToolUse of the same call, just before it, has. */
const withUseId = (tool: ToolCall | null, last: ToolCall | null): ToolCall | null =>
  tool && last && tool.useId === null && last.name === tool.name && jsonEqual(commandOf(last.input), commandOf(tool.input))
    ? { ...tool, useId: last.useId }
    : tool

export const stateChangeFor = (rec: SessionRecord | null, ev: HookEvent): StateChange | null => {
  if (TOOL_EVENTS.has(ev.name) && rec && ev.promptId !== null && rec.turnEndedPromptId === ev.promptId) return null
  if (ev.name === 'PreToolUse' && ev.tool?.name === CODEX_QUESTION_TOOL) return { state: 'permission', kind: 'question', tool: ev.tool }
  if (WORKING_EVENTS.has(ev.name)) return { state: 'working', kind: null }
  switch (ev.name) {
    case 'SessionStart':
      return ev.source === 'compact' ? null : { state: 'idle', kind: null }
    case 'PermissionRequest':
      return { state: 'permission', kind: 'permission', tool: withUseId(ev.tool, rec?.lastTool ?? null) }
    case 'Stop':
      return { state: 'waiting', kind: endsWithQuestion(ev.message) ? 'question' : 'done', message: ev.message }
    case 'Interrupt':
      // A denial (Esc in the dialog) still says which tool was refused.
      return { state: 'waiting', kind: 'interrupted', tool: rec?.state === 'permission' ? rec.tool : null }
    case 'SessionEnd':
      return { state: 'ended', kind: null }
    default:
      return null
  }
}

export const codexRules: FoldRules = {
  track: (rec, ev) => {
    if (ev.name === 'PreToolUse' && ev.tool) rec.lastTool = ev.tool
    else if (ev.name === 'PostToolUse') rec.lastTool = afterToolEnd(rec.lastTool, ev.tool)
  },
  // `codex resume` brings an ended session back with a SessionStart (source resume).
  reopensEnded: (ev) => ev.name === 'SessionStart',
  stateChange: stateChangeFor,
  changed: (rec, ev, change) => {
    if (ev.name === 'SessionStart' || ev.name === 'UserPromptSubmit') rec.lastTool = null
    if (ev.name === 'Stop' || ev.name === 'Interrupt') {
      if (change.state === 'waiting') rec.turnEndedPromptId = ev.promptId
    } else if (ev.name === 'UserPromptSubmit' || ev.name === 'SessionStart') {
      rec.turnEndedPromptId = null
    }
  },
}
