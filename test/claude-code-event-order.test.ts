// Rules for what async hooks and Claude Code's own quirks do to the order and meaning of events.
import t from 'tap'
import { applyEvent } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { hookEvent } from './helpers/hook-event.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

const ev = (name: string, stamp: number, extra: Partial<HookEvent> = {}): HookEvent =>
  hookEvent({ stamp, name, promptId: 'p1', offset: 100, ...extra })
const fold = (...events: HookEvent[]): SessionRecord => {
  const r = events.reduce<SessionRecord | null>((rec, e) => applyEvent(rec, e, hooksFor), null)
  if (!r) throw new Error('no events')
  return r
}
const bash = { name: 'Bash', input: { command: 'touch x' }, useId: null }

t.test('a PreToolUse stamped after the dialog it belongs to leaves the dialog open', async (t) => {
  const r = fold(
    ev('UserPromptSubmit', 1),
    ev('PermissionRequest', 10, { tool: bash }),
    ev('PreToolUse', 11, { tool: { ...bash, useId: 'tu1' } }),
  )
  t.same([r.state, r.kind, r.since], ['permission', 'permission', 10])
  t.equal(r.tool?.useId, 'tu1', 'and lends the dialog its tool_use_id')
  const other = fold(
    ev('PermissionRequest', 10, { tool: bash }),
    ev('PreToolUse', 11, { tool: { name: 'Bash', input: { command: 'ls' }, useId: 'tu2' } }),
  )
  t.equal(other.state, 'working', 'another call means the dialog was answered')
  const later = fold(ev('PermissionRequest', 10, { tool: bash }), ev('PreToolUse', 11, { promptId: 'p2', tool: { ...bash, useId: 'tu3' } }))
  t.equal(later.state, 'working', 'the same call in a later prompt is new work')
  const inOrder = fold(ev('PreToolUse', 9, { tool: { ...bash, useId: 'tu1' } }), ev('PermissionRequest', 10, { tool: bash }))
  t.same([inOrder.state, inOrder.tool?.useId], ['permission', 'tu1'], 'in order, as before')
  const lateArrival = fold(ev('PermissionRequest', 10, { tool: bash }), ev('PreToolUse', 9, { tool: { ...bash, useId: 'tu1' } }))
  t.same([lateArrival.state, lateArrival.tool?.useId], ['permission', 'tu1'], 'an older PreToolUse that lands late still gives the id')
})

t.test('idle_prompt', async (t) => {
  const cleared = fold(ev('SessionStart', 1, { source: 'clear' }), ev('Notification', 5, { notificationType: 'idle_prompt' }))
  t.equal(cleared.state, 'idle', 'after /clear nobody has prompted the new session: nothing waits')
  const compacted = fold(
    ev('Stop', 1, { offset: 100, message: 'Done.' }),
    ev('SessionStart', 2, { source: 'compact', offset: 150 }),
    ev('Notification', 5, { notificationType: 'idle_prompt', offset: 900 }),
  )
  t.same([compacted.state, compacted.kind, compacted.since], ['waiting', 'done', 1], 'a wait stays the same wait')
  t.equal(compacted.offset, 900, 'and the transcript is read from here on: a /compact line is not the person coming back')
  const working = fold(ev('UserPromptSubmit', 1), ev('Notification', 5, { notificationType: 'idle_prompt' }))
  t.same([working.state, working.kind], ['waiting', 'done'], 'any other live state becomes a wait')
})
