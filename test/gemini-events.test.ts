import { readFileSync } from 'node:fs'
import t from 'tap'
import { GEMINI, normalizeGeminiEvent } from '../lib/agents/gemini/hook-event.js'
import { stateChangeFor } from '../lib/agents/gemini/state-rules.js'
import { applyEvent } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

interface Captured {
  event: string
  ts: number
  env: Record<string, string>
  payload: Record<string, unknown>
}
const captured: Captured[] = readFileSync(new URL('./fixtures/gemini/hooks.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Captured)

const toEvent = (c: Captured): HookEvent => {
  const e = normalizeGeminiEvent(c.payload, { env: c.env, stamp: c.ts, host: 'h', offset: null, project: 'proj' })
  if (typeof e === 'string') throw new Error(e)
  return e
}

t.test('normalizeGeminiEvent on captured payloads', async (t) => {
  const start = toEvent(captured.find((c) => c.event === 'SessionStart')!)
  t.match(start, { agent: GEMINI, name: 'SessionStart', source: 'startup', promptId: null, headless: false, project: 'proj' })
  t.match(start.tmux, { pane: '%1', socket: '/home/dev/gprobe/sock' })
  t.match(start.transcriptPath, /\/\.gemini\/tmp\/proj\/chats\/session-.*\.jsonl$/)
  const tool = toEvent(captured.find((c) => c.event === 'BeforeTool')!)
  t.match(tool.tool, { name: 'run_shell_command', input: { command: /^touch /, description: 'Create a test file' }, useId: null })
  const note = toEvent(captured.find((c) => c.event === 'Notification')!)
  t.match(note, { notificationType: 'ToolPermission', message: 'Tool Confirm Shell Command requires execution', tool: null })
  const [done, cancelled, failed] = captured.filter((c) => c.event === 'AfterAgent').map(toEvent)
  t.equal(done!.message, 'All done here.')
  t.match(cancelled!.message, /^Working on it/)
  // "[no response text]" is Gemini CLI's placeholder, not a message.
  t.equal(failed!.message, null)
  t.match(toEvent(captured.find((c) => c.event === 'SessionEnd')!), { reason: 'clear' })
})

t.test('payloads that are not events', async (t) => {
  const ctx = { env: {}, stamp: 1, host: 'h', offset: null, project: null }
  t.equal(normalizeGeminiEvent(null, ctx), 'payload is not a JSON object')
  t.equal(normalizeGeminiEvent([], ctx), 'payload is not a JSON object')
  t.equal(normalizeGeminiEvent({ session_id: 'a' }, ctx), 'payload has no hook_event_name')
  t.match(normalizeGeminiEvent({ hook_event_name: 'BeforeAgent', session_id: '../x' }, ctx), /invalid session_id/)
  t.match(normalizeGeminiEvent({ hook_event_name: 'BeforeAgent', session_id: { toString: 1 } }, ctx), /invalid session_id \(object\)/)
})

t.test('the captured run, folded: the state after each step', async (t) => {
  const records = new Map<string, SessionRecord>()
  const states: string[] = []
  let step = ''
  const snapshot = () => {
    const last = [...records.values()].sort((a, b) => b.lastEventAt - a.lastEventAt)[0]
    return last ? `${last.sessionId.slice(0, 4)} ${last.state}/${last.kind ?? '-'}${last.tool ? ` ${last.tool.name}` : ''}` : 'none'
  }
  for (const c of captured) {
    if (c.event === '#step') {
      if (step) states.push(`${step} → ${snapshot()}`)
      step = String(c.payload.step)
      continue
    }
    const ev = toEvent(c)
    records.set(ev.sessionId, applyEvent(records.get(ev.sessionId) ?? null, ev, hooksFor))
  }
  const ids = [...new Set(captured.filter((c) => c.event !== '#step').map((c) => String(c.payload.session_id).slice(0, 4)))]
  const [a, b] = ids
  t.same(states, [
    `start gemini (session A) → ${a} idle/-`,
    `submit "PLAIN hello" → ${a} waiting/done`,
    `submit "SLOW please" → ${a} working/-`,
    // The hooks say done; the chat file makes it interrupted on read (gemini-transcript.test.ts).
    `press Escape: cancel while streaming → ${a} waiting/done`,
    `submit "FAIL now" → ${a} waiting/done`,
    `submit "TOOL please" → ${a} permission/permission run_shell_command`,
    `press Enter: approve (1. Allow once) → ${a} waiting/done`,
    `submit "TOOL again" → ${a} permission/permission run_shell_command`,
    // No hook on an Esc denial: the record still says permission (the chat file says denied).
    `press Escape: deny with Esc (3. No, suggest changes) → ${a} permission/permission run_shell_command`,
    `submit "EDIT please" → ${a} permission/permission write_file`,
    `press Enter: approve the edit → ${a} waiting/done`,
    `submit "QUESTION please" → ${a} waiting/question`,
    `submit "/clear" → ${b} idle/-`,
    `submit "PLAIN after clear" → ${b} waiting/done`,
    `submit "/quit" → ${b} ended/-`,
    `start gemini --resume latest (session B) → ${b} idle/-`,
    `submit "PLAIN after resume" → ${b} waiting/done`,
    `submit "TOOL before kill" → ${b} permission/permission run_shell_command`,
    // A killed pane fires nothing: tmux tells it on read.
    `kill-pane B with its permission dialog open → ${b} permission/permission run_shell_command`,
  ])
  // Session A ended with /clear, once.
  t.match(records.get([...records.keys()].find((k) => k.startsWith(a!))!), { state: 'ended' })
})

t.test('SessionEnd three times is one end', async (t) => {
  const ends = captured.filter((c) => c.event === 'SessionEnd' && c.payload.reason === 'exit').map(toEvent)
  t.equal(ends.length, 3)
  let rec: SessionRecord | null = null
  for (const c of captured.filter((c) => c.payload.session_id === ends[0]!.sessionId && c.ts < ends[0]!.stamp))
    rec = applyEvent(rec, toEvent(c), hooksFor)
  const first = applyEvent(rec, ends[0]!, hooksFor)
  const third = applyEvent(applyEvent(first, ends[1]!, hooksFor), ends[2]!, hooksFor)
  t.equal(third.state, 'ended')
  t.equal(third.since, first.since)
  t.equal(third.stateStamp, first.stateStamp)
})

t.test('state rules', async (t) => {
  const base = toEvent(captured.find((c) => c.event === 'BeforeAgent')!)
  const ev = (name: string, extra: Partial<HookEvent> = {}): HookEvent => ({ ...base, name, ...extra })
  t.same(stateChangeFor(null, ev('BeforeTool', { tool: { name: 'ask_user', input: { q: 'x' }, useId: null } })), {
    state: 'permission',
    kind: 'question',
    tool: { name: 'ask_user', input: { q: 'x' }, useId: null },
  })
  t.equal(stateChangeFor(null, ev('Notification', { notificationType: 'Other' })), null)
  t.equal(stateChangeFor(null, ev('PreCompress')), null)
  t.equal(stateChangeFor(null, ev('BeforeModel')), null)
  t.match(stateChangeFor(null, ev('AfterAgent', { message: 'Shall I go on?' })), { state: 'waiting', kind: 'question' })
  t.match(stateChangeFor(null, ev('AfterAgent', { message: null })), { state: 'waiting', kind: 'done' })
})

t.test('ask_user: a question from BeforeTool on, kept by its Notification', async (t) => {
  const run = readFileSync(new URL('./fixtures/gemini/hooks-ask-user.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Captured)
    .filter((c) => c.event !== '#step')
  let rec: SessionRecord | null = null
  const kinds: string[] = []
  for (const c of run) {
    rec = applyEvent(rec, toEvent(c), hooksFor)
    kinds.push(`${c.event} ${rec.state}/${rec.kind ?? '-'}`)
  }
  t.same(kinds, [
    'SessionStart idle/-',
    'BeforeAgent working/-',
    'PreCompress working/-',
    'BeforeTool permission/question',
    'Notification permission/question',
    'AfterTool working/-',
    'PreCompress working/-',
    'AfterAgent waiting/done',
  ])
})
