// OpenCode's rules of the state table (docs/design.md §3), from the events captured in
// test/fixtures/opencode. Our plugin (plugin.ts) forwards them in the order OpenCode published
// them: permission = permission.asked (with the command); question = question.asked; a dialog
// answered = *.replied (a refusal ends the turn); interrupted = session.error MessageAbortedError;
// error = session.error of any other name, or an idle while a retry waited; done = session.idle; ended = the plugin's dispose.
// session.idle follows every end of a turn (twice after an error): it must not turn an
// interrupted or failed turn into a done one. Pure; the core fold (lib/record/fold.ts) applies them.
import type { HookEvent, SessionRecord } from '../../record/types.js'
import type { FoldRules, StateChange } from '../types.js'
import { endsWithQuestion } from '../wait-text.js'

/** The tool OpenCode asks the person a question with. */
export const QUESTION_TOOL = 'question'

/** A dialog's answer that refuses it: the turn stops there, and session.idle follows. */
export const REJECT = 'reject'

/** The reason our plugin gives a session.idle that came while a failed request waited for its retry. */
export const RETRYING = 'retrying'

/** The events that end a turn before its session.idle does, so that idle leaves their wait. */
const TURN_ENDERS = new Set(['session.error', 'permission.replied', 'question.rejected'])

/** A wait that an abort or a refusal has already ended: what comes after it of the same end keeps it. */
const endedByRefusalOrAbort = (rec: SessionRecord | null): boolean =>
  rec?.state === 'waiting' && rec.kind === 'interrupted' && TURN_ENDERS.has(rec.event)

/**
 * A refused dialog ends the turn, saying which tool was refused. The Esc that refuses it can also
 * abort the turn, and OpenCode may publish the abort first: the wait it made already names the tool.
 */
const refusal = (rec: SessionRecord | null): StateChange | null =>
  endedByRefusalOrAbort(rec) ? null : { state: 'waiting', kind: 'interrupted', tool: rec?.state === 'permission' ? rec.tool : null }

export const stateChangeFor = (rec: SessionRecord | null, ev: HookEvent): StateChange | null => {
  switch (ev.name) {
    case 'session.created':
      return { state: 'idle', kind: null }
    case 'session.busy':
      // The run goes on while a dialog is open; only the dialog's answer (*.replied) closes it.
      return rec?.state === 'permission' ? null : { state: 'working', kind: null }
    case 'question.replied':
      return { state: 'working', kind: null }
    case 'session.retry':
      // The API failed and OpenCode tries again: still working, with its words on the failure.
      return { state: 'working', kind: null, message: ev.message }
    case 'permission.asked':
      return { state: 'permission', kind: 'permission', tool: ev.tool }
    case 'question.asked':
      return { state: 'permission', kind: 'question', tool: ev.tool }
    case 'permission.replied':
      if (ev.reason !== REJECT) return { state: 'working', kind: null }
      return refusal(rec)
    case 'question.rejected':
      return refusal(rec)
    case 'session.error':
      if (ev.isInterrupt) {
        // The Esc that refuses a dialog can also abort the turn: the refusal already stopped it,
        // and the wait keeps saying which tool was refused.
        return refusal(rec)
      }
      return { state: 'waiting', kind: 'error', message: ev.message }
    case 'session.idle':
      if (rec?.state === 'waiting' && TURN_ENDERS.has(rec.event)) return null
      // Stopped while OpenCode waited to retry a failed request: no session.error comes; the
      // plugin marks the idle, with the failure's words.
      if (ev.reason === RETRYING) return { state: 'waiting', kind: 'error', message: ev.message }
      if (rec?.state === 'idle' || rec?.state === 'ended') return null
      return { state: 'waiting', kind: endsWithQuestion(ev.message) ? 'question' : 'done', message: ev.message }
    case 'session.deleted':
    case 'dispose':
      return rec?.state === 'ended' ? null : { state: 'ended', kind: null }
    default:
      return null
  }
}

export const opencodeRules: FoldRules = {
  // A session OpenCode takes up again (`opencode --session`, `--continue`) after it was ended.
  reopensEnded: (ev) => ev.name === 'session.busy' || ev.name === 'session.created',
  stateChange: stateChangeFor,
}
