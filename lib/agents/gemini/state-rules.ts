// Gemini CLI's rules of the state table (docs/design.md §3), from the captures in test/fixtures/gemini.
// Its hooks are blocking and run one at a time, so events arrive in order; what no hook says
// (an Esc denial, an API error against a cancel) the chat file says on read (transcript.ts).
// Pure; the core fold (lib/record/fold.ts) applies them.
import type { HookEvent, SessionRecord } from '../../record/types.js'
import type { FoldRules, StateChange } from '../types.js'
import { afterToolEnd } from '../tool-in-flight.js'
import { endsWithQuestion } from '../wait-text.js'

/** The tool Gemini CLI asks the person a question with; it needs no permission, only an answer. */
export const QUESTION_TOOL = 'ask_user'

/** The only notification type Gemini CLI 0.61.0 sends: a tool waits for the person's approval. */
export const PERMISSION_NOTIFICATION = 'ToolPermission'

export const stateChangeFor = (rec: SessionRecord | null, ev: HookEvent): StateChange | null => {
  switch (ev.name) {
    case 'SessionStart':
      return { state: 'idle', kind: null }
    case 'BeforeAgent':
    case 'AfterTool':
      return { state: 'working', kind: null }
    case 'BeforeTool':
      // ask_user's dialog opens at once; its Notification follows ~0.5 s later.
      if (ev.tool?.name === QUESTION_TOOL) return { state: 'permission', kind: 'question', tool: ev.tool }
      return { state: 'working', kind: null }
    case 'Notification':
      if (ev.notificationType !== PERMISSION_NOTIFICATION) return null
      // The Notification names no tool: the BeforeTool just before it does. ask_user's answer
      // dialog sends it too (details.type "ask_user").
      return {
        state: 'permission',
        kind: rec?.lastTool?.name === QUESTION_TOOL ? 'question' : 'permission',
        tool: rec?.lastTool ?? null,
        message: ev.message,
      }
    case 'AfterAgent':
      // A cancel and an API error end the turn here too; the chat file tells them apart on read.
      return { state: 'waiting', kind: endsWithQuestion(ev.message) ? 'question' : 'done', message: ev.message }
    case 'SessionEnd':
      // /quit fires it three times; the second and third change nothing.
      return rec?.state === 'ended' ? null : { state: 'ended', kind: null }
    default:
      return null
  }
}

export const geminiRules: FoldRules = {
  track: (rec, ev) => {
    if (ev.name === 'BeforeTool' && ev.tool) rec.lastTool = ev.tool
    else if (ev.name === 'AfterTool') rec.lastTool = afterToolEnd(rec.lastTool, ev.tool)
  },
  // `--resume` starts the ended session again under its old id.
  reopensEnded: (ev) => ev.name === 'SessionStart',
  stateChange: stateChangeFor,
  changed: (rec, ev) => {
    if (ev.name === 'SessionStart' || ev.name === 'BeforeAgent') rec.lastTool = null
  },
}
