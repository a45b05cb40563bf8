import t from 'tap'
import { normalizeEvent } from '../lib/agents/claude-code/hook-event.js'
import { stateChangeFor } from '../lib/agents/claude-code/state-rules.js'
import { endsWithQuestion } from '../lib/agents/wait-text.js'
import { CONTEXT_CAP, TRUNCATION_MARKER, capInput, capText } from '../lib/record/context-cap.js'
import { applyEvent, foldEvents } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { parseTmuxEnv } from '../lib/tmux/env.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

const ENV = { TMUX: '/tmp/tmux-1000/default,800,0', TMUX_PANE: '%3', CLAUDE_CODE_ENTRYPOINT: 'cli' }
let clock = 1_000_000

/** An event as the emitter makes it, stamped 1 ms after the previous one. */
const ev = (name: string, extra: Record<string, unknown> = {}, env: Record<string, string> = ENV): HookEvent => {
  const e = normalizeEvent(
    { session_id: 's1', hook_event_name: name, cwd: '/w', ...extra },
    { env, stamp: (clock += 1), host: 'h', offset: 10, project: 'w' },
  )
  if (typeof e === 'string') throw new Error(e)
  return e
}
const fold = (...events: HookEvent[]): SessionRecord => foldEvents(null, events, hooksFor)!
const stateOf = (r: SessionRecord | null): string => (r ? `${r.state}/${r.kind ?? '-'}` : 'none')

t.test('endsWithQuestion', async (t) => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ['', false],
    ['Done.', false],
    ['Should I?', true],
    ['Should I?\n\n', true],
    ['Is this ok?\nDone.', false],
    ['Done.\nShall I go on?', true],
    ['**Shall I go on?**', true],
    ['Want `x`?`', true],
    ['(really?)', true],
    ['"Ok?"', true],
    ['What? No.', false],
  ]
  for (const [text, want] of cases) t.equal(endsWithQuestion(text), want, JSON.stringify(text))
})

t.test('parseTmuxEnv', async (t) => {
  const cases: [string | undefined, string | undefined, ReturnType<typeof parseTmuxEnv>][] = [
    ['/tmp/tmux-1000/default,800,0', '%3', { pane: '%3', socket: '/tmp/tmux-1000/default', serverPid: 800 }],
    ['/tmp/a,b/sock,12,4', '%10', { pane: '%10', socket: '/tmp/a,b/sock', serverPid: 12 }],
    ['/tmp/sock,notapid,0', '%1', { pane: '%1', socket: '/tmp/sock', serverPid: null }],
    ['/tmp/sock,-5,0', '%1', { pane: '%1', socket: '/tmp/sock', serverPid: null }],
    [undefined, '%1', null],
    ['/tmp/sock,1,0', undefined, null],
    ['/tmp/sock,1,0', '3', null],
    ['/tmp/sock,1,0', '%3x', null],
    ['relative,1,0', '%1', null],
    ['/tmp/sock', '%1', null],
    ['', '', null],
  ]
  for (const [tmux, pane, want] of cases) t.same(parseTmuxEnv(tmux, pane), want, `${String(tmux)} ${String(pane)}`)
})

t.test('capInput and capText', async (t) => {
  const big = { command: 'x'.repeat(CONTEXT_CAP) }
  const capped = capInput(big)
  t.type(capped, 'string', 'a large input becomes its capped JSON text')
  t.equal((capped as string).length, CONTEXT_CAP)
  t.ok((capped as string).endsWith(TRUNCATION_MARKER))
  t.ok((capped as string).startsWith('{"command":"xxx'))
  t.same(capInput({ a: 1 }), { a: 1 }, 'small input as is')
  t.equal(capInput(undefined), null)
  t.equal(
    capInput(() => 1),
    null,
    'not JSON at all',
  )
  t.equal(capInput('short'), 'short')
  t.equal(capText('abc', 10), 'abc')
  t.equal(capText('x'.repeat(20), 15), 'xxx' + TRUNCATION_MARKER)
  t.equal(capText('x'.repeat(20), 15).length, 15)
})

t.test('normalizeEvent', async (t) => {
  const ctx = { env: ENV, stamp: 5, host: 'h', offset: null, project: null }
  const rejects: [unknown, RegExp][] = [
    [null, /not a JSON object/],
    [[], /not a JSON object/],
    [42, /not a JSON object/],
    ['Stop', /not a JSON object/],
    [{ session_id: 'a' }, /no hook_event_name/],
    [{ session_id: 'a', hook_event_name: 3 }, /no hook_event_name/],
    [{ session_id: '../../x', hook_event_name: 'Stop' }, /invalid session_id/],
    [{ session_id: 'a.b', hook_event_name: 'Stop' }, /invalid session_id/],
    [{ session_id: '', hook_event_name: 'Stop' }, /invalid session_id/],
    [{ session_id: 'a'.repeat(129), hook_event_name: 'Stop' }, /invalid session_id/],
    [{ session_id: 7, hook_event_name: 'Stop' }, /invalid session_id/],
    [{ hook_event_name: 'Stop' }, /invalid session_id/],
  ]
  for (const [p, want] of rejects) t.match(normalizeEvent(p, ctx), want, JSON.stringify(p)?.slice(0, 40) ?? String(p))
  const e = normalizeEvent({ session_id: 'A-z_09', hook_event_name: 'Notification', message: 'hi', notification_type: 'idle_prompt' }, ctx)
  t.match(e, { sessionId: 'A-z_09', message: 'hi', notificationType: 'idle_prompt', tmux: { pane: '%3' }, headless: false })
  t.match(normalizeEvent({ session_id: 'a', hook_event_name: 'Stop' }, { ...ctx, env: { ...ENV, CLAUDE_CODE_ENTRYPOINT: 'sdk-ts' } }), {
    headless: true,
    tmux: null,
  })
  t.match(normalizeEvent({ session_id: 'a', hook_event_name: 'StopFailure', error: 'rate_limit' }, ctx), { message: 'rate_limit' })
  t.match(normalizeEvent({ session_id: 'a', hook_event_name: 'Stop', background_tasks: [1, 2] }, ctx), { backgroundTasks: 2 })
  t.match(normalizeEvent({ session_id: 'a', hook_event_name: 'PostToolUseFailure', is_interrupt: 'yes' }, ctx), { isInterrupt: false })
  const long = normalizeEvent({ session_id: 'a', hook_event_name: 'Stop', last_assistant_message: 'm'.repeat(10_000) }, ctx) as HookEvent
  t.equal(long.message?.length, CONTEXT_CAP, 'messages are capped')
})

t.test('stateChangeFor: the state table (docs/design.md §3.1), from no record', async (t) => {
  const cases: [HookEvent, string | null][] = [
    [ev('SessionStart', { source: 'startup' }), 'idle/-'],
    [ev('SessionStart', { source: 'clear' }), 'idle/-'],
    [ev('SessionStart', { source: 'resume' }), 'idle/-'],
    [ev('SessionStart', { source: 'compact' }), null],
    [ev('UserPromptSubmit'), 'working/-'],
    [ev('UserPromptExpansion'), 'working/-'],
    [ev('PreToolUse', { tool_name: 'Bash' }), 'working/-'],
    [ev('PostToolUse', { tool_name: 'Bash' }), 'working/-'],
    [ev('PostToolBatch'), 'working/-'],
    [ev('SubagentStart'), 'working/-'],
    [ev('PostToolUseFailure', { tool_name: 'Bash' }), 'working/-'],
    [ev('PostToolUseFailure', { tool_name: 'Bash', is_interrupt: true }), 'waiting/interrupted'],
    [ev('PermissionRequest', { tool_name: 'Bash' }), 'permission/permission'],
    [ev('PermissionRequest', { tool_name: 'AskUserQuestion' }), 'permission/question'],
    [ev('Notification', { notification_type: 'permission_prompt' }), 'permission/permission'],
    [ev('Notification', { notification_type: 'elicitation_dialog' }), 'permission/question'],
    [ev('Notification', { notification_type: 'idle_prompt' }), 'waiting/done'],
    [ev('Notification', { notification_type: 'auth_success' }), null],
    [ev('Stop', { last_assistant_message: 'Done.' }), 'waiting/done'],
    [ev('Stop', { last_assistant_message: 'Ok?' }), 'waiting/question'],
    [ev('Stop', { last_assistant_message: 'Ok?', background_tasks: [{}] }), 'working/-'],
    [ev('StopFailure', { error: 'rate_limit' }), 'waiting/error'],
    [ev('SessionEnd', { reason: 'other' }), 'ended/-'],
    [ev('SubagentStop'), null],
    [ev('MessageDisplay'), null],
    [ev('PreCompact'), null],
    [ev('PostCompact'), null],
    [ev('SomethingNew'), null],
  ]
  for (const [e, want] of cases) {
    const c = stateChangeFor(null, e)
    t.equal(c ? `${c.state}/${c.kind ?? '-'}` : null, want, `${e.name} ${e.source ?? e.notificationType ?? ''}`)
  }
})

t.test('applyEvent: sequences', async (t) => {
  const cases: [string, HookEvent[], string][] = [
    [
      'prompt then stop',
      [ev('UserPromptSubmit', { prompt_id: 'p' }), ev('Stop', { prompt_id: 'p', last_assistant_message: 'x' })],
      'waiting/done',
    ],
    [
      'late tool event of an ended turn',
      [ev('Stop', { prompt_id: 'p' }), ev('PostToolUse', { prompt_id: 'p', tool_name: 'Bash' })],
      'waiting/done',
    ],
    ['tool event of a new prompt', [ev('Stop', { prompt_id: 'p' }), ev('PreToolUse', { prompt_id: 'q', tool_name: 'Bash' })], 'working/-'],
    ['ended stays ended', [ev('SessionEnd'), ev('StopFailure', { error: 'x' })], 'ended/-'],
    ['resume revives', [ev('SessionEnd'), ev('SessionStart', { source: 'resume' })], 'idle/-'],
    [
      'compact keeps the wait',
      [ev('Stop', { prompt_id: 'p', last_assistant_message: 'Go?' }), ev('SessionStart', { source: 'compact', prompt_id: 'c' })],
      'waiting/question',
    ],
    [
      'idle_prompt after compact',
      [
        ev('UserPromptSubmit', { prompt_id: 'p' }),
        ev('SessionStart', { source: 'compact' }),
        ev('Notification', { notification_type: 'idle_prompt' }),
      ],
      'waiting/done',
    ],
    [
      'permission_prompt alone uses the last tool',
      [
        ev('PreToolUse', { prompt_id: 'p', tool_name: 'AskUserQuestion' }),
        ev('Notification', { prompt_id: 'p', notification_type: 'permission_prompt' }),
      ],
      'permission/question',
    ],
    [
      'approved permission',
      [ev('PermissionRequest', { prompt_id: 'p', tool_name: 'Bash' }), ev('PostToolUse', { prompt_id: 'p', tool_name: 'Bash' })],
      'working/-',
    ],
  ]
  for (const [name, events, want] of cases) t.equal(stateOf(fold(...events)), want, name)
})

t.test('applyEvent: since, tool ids and order', async (t) => {
  const pre = ev('PreToolUse', { prompt_id: 'p', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu1' })
  const req = ev('PermissionRequest', { prompt_id: 'p', tool_name: 'Bash', tool_input: { command: 'ls' } })
  const note = ev('Notification', { prompt_id: 'p', notification_type: 'permission_prompt' })
  const r = fold(pre, req, note)
  t.equal(r.tool?.useId, 'tu1', 'PermissionRequest borrows the PreToolUse id')
  t.equal(r.since, req.stamp, 'permission_prompt keeps the since')
  t.equal(r.event, 'PermissionRequest')
  const other = ev('PermissionRequest', { prompt_id: 'p', tool_name: 'Bash', tool_input: { command: 'rm' } })
  t.equal(fold(pre, other).tool?.useId, null, 'a different input is not the same call')

  const stop = ev('Stop', { prompt_id: 'p', last_assistant_message: 'Go?' })
  const idle = ev('Notification', { prompt_id: 'p', notification_type: 'idle_prompt' })
  t.equal(fold(stop, idle).since, stop.stamp, 'idle_prompt keeps the since')
  t.equal(fold(stop, idle).message, 'Go?', 'and the message')

  // Arrival order differs from stamp order: the older event updates fields, not the state.
  const older = ev('UserPromptSubmit', { prompt_id: 'q' }, { ...ENV, TMUX_PANE: '%9' })
  const newer = ev('Stop', { prompt_id: 'q', last_assistant_message: 'Done.' })
  const late = applyEvent(applyEvent(null, newer, hooksFor), older, hooksFor)
  t.equal(stateOf(late), 'waiting/done')
  t.equal(late.tmux?.pane, '%9', 'the pane still heals')
  t.equal(late.events, 2)
  t.equal(late.firstEventAt, older.stamp)
  t.equal(late.lastEvent, 'Stop')

  // A newer event that leaves the state does not void an older Stop arriving after it.
  const prompt = ev('UserPromptSubmit', { prompt_id: 'r' })
  const stop2 = ev('Stop', { prompt_id: 'r', last_assistant_message: 'Done.' })
  const display = ev('MessageDisplay', { prompt_id: 'r' })
  const r2 = applyEvent(applyEvent(fold(prompt), display, hooksFor), stop2, hooksFor)
  t.equal(stateOf(r2), 'waiting/done')
  t.equal(r2.stateStamp, stop2.stamp)

  // The fold sorts by stamp, so any arrival order gives the same record.
  const seq = [
    ev('UserPromptSubmit', { prompt_id: 'z' }),
    ev('PreToolUse', { prompt_id: 'z', tool_name: 'Bash', tool_use_id: 'a' }),
    ev('Stop', { prompt_id: 'z' }),
  ]
  t.same(foldEvents(null, [...seq].reverse(), hooksFor), foldEvents(null, seq, hooksFor))
  t.equal(foldEvents(null, [], hooksFor), null)
})

t.test('applyEvent is pure', async (t) => {
  const a = fold(ev('UserPromptSubmit', { prompt_id: 'p' }))
  const snapshot = JSON.stringify(a)
  const e = ev('Stop', { prompt_id: 'p' })
  t.same(applyEvent(a, e, hooksFor), applyEvent(a, e, hooksFor))
  t.equal(JSON.stringify(a), snapshot, 'the input record is not changed')
})

t.test('lastTool is the call in flight in the current prompt', async (t) => {
  const bash = (id: string, command: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    prompt_id: 'p1',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
    ...extra,
  })
  t.match(
    fold(ev('UserPromptSubmit', { prompt_id: 'p1' }), ev('PreToolUse', bash('a', 'ls'))).lastTool,
    { useId: 'a' },
    'started: in flight',
  )
  t.equal(fold(ev('PreToolUse', bash('a', 'ls')), ev('PostToolUse', bash('a', 'ls'))).lastTool, null, 'ended: none in flight')
  t.match(
    fold(ev('PreToolUse', bash('a', 'ls')), ev('PreToolUse', bash('b', 'make')), ev('PostToolUse', bash('a', 'ls'))).lastTool,
    { useId: 'b' },
    'another call ending leaves it',
  )
  t.equal(
    fold(ev('PreToolUse', bash('a', 'ls')), ev('UserPromptSubmit', { prompt_id: 'p2' })).lastTool,
    null,
    'a new prompt: none of its own yet',
  )
  const stopped = fold(ev('PreToolUse', bash('a', 'npm test')), ev('PostToolUseFailure', bash('a', 'npm test', { is_interrupt: true })))
  t.match(
    stopped,
    { state: 'waiting', kind: 'interrupted', tool: { name: 'Bash', input: { command: 'npm test' } } },
    'Esc while it ran: the wait keeps the tool',
  )
})
