// The Codex adapter's pure parts, table-tested with what Codex 0.171.0 really gave
// (test/fixtures/codex/, made by test/e2e/capture-codex.ts).
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { codexHooks } from '../lib/agents/codex/hooks.js'
import { deriveRolloutVerdict, parseRollout, type RolloutEntry } from '../lib/agents/codex/transcript.js'
import { classifyCodexScreen } from '../lib/agents/codex/screen.js'
import { applyEvent } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

const FIX = new URL('./fixtures/codex/', import.meta.url)
const text = (name: string): string => readFileSync(new URL(name, FIX), 'utf8')

interface Line {
  scenario?: string
  event?: string
  ts?: number
  payload?: Record<string, unknown>
}
const lines = text('hooks.jsonl')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line)

const TMUX_ENV = { TMUX: '/ROOT/sock,8681,0', TMUX_PANE: '%1', HOME: '/ROOT/home', CODEX_HOME: '/ROOT/home/.codex' }

const toEvent = (l: Line, i: number): HookEvent => {
  const ev = codexHooks.toHookEvent(l.payload, {
    env: TMUX_ENV,
    stamp: (l.ts ?? 0) + i / 1000,
    host: 'h',
    fileSize: () => 1,
    projectLabel: () => 'proj',
  })
  if (typeof ev === 'string') throw new Error(ev)
  return ev
}

/** The records after each scenario, folding every captured event in order. */
const afterScenarios = (): Map<string, Map<string, SessionRecord>> => {
  const out = new Map<string, Map<string, SessionRecord>>()
  const recs = new Map<string, SessionRecord>()
  let scenario = ''
  lines.forEach((l, i) => {
    if (l.scenario !== undefined) {
      if (scenario) out.set(scenario, new Map(recs))
      scenario = l.scenario
      return
    }
    const ev = toEvent(l, i)
    recs.set(ev.sessionId, applyEvent(recs.get(ev.sessionId) ?? null, ev, hooksFor))
  })
  out.set(scenario, new Map(recs))
  return out
}

t.test('payloads become events: turn id as prompt id, tool, pane, message', async (t) => {
  const perm = lines.find((l) => l.event === 'PermissionRequest')!
  const ev = toEvent(perm, 0)
  t.equal(ev.agent, 'codex')
  t.equal(ev.name, 'PermissionRequest')
  t.equal(ev.promptId, perm.payload!.turn_id)
  t.match(ev.tool, { name: 'Bash', input: { command: /^touch / }, useId: null })
  t.same(ev.tmux, { pane: '%1', socket: '/ROOT/sock', serverPid: 8681 })
  const stop = toEvent(
    lines.find((l) => l.event === 'Stop')!,
    0,
  )
  t.equal(stop.message, 'All done here.')
  t.equal(
    codexHooks.toHookEvent(
      { hook_event_name: 'Stop', session_id: '../x' },
      { env: {}, stamp: 1, host: 'h', fileSize: () => null, projectLabel: () => null },
    ),
    'invalid session_id "../x"',
  )
})

t.test('the state after each captured scenario', async (t) => {
  const after = afterScenarios()
  const first = (s: string): SessionRecord => [...after.get(s)!.values()].sort((a, b) => a.firstEventAt - b.firstEventAt)[0]!
  const last = (s: string): SessionRecord => [...after.get(s)!.values()].sort((a, b) => b.lastEventAt - a.lastEventAt)[0]!
  const cases: [string, (s: string) => SessionRecord, Partial<SessionRecord>][] = [
    ['done: a plain answer', first, { state: 'waiting', kind: 'done', message: 'All done here.' }],
    ['permission, then approve (y)', first, { state: 'waiting', kind: 'done', message: 'Ran the command.' }],
    ['permission, then deny (Esc)', first, { state: 'waiting', kind: 'interrupted' }],
    ['working, then Esc while streaming', first, { state: 'waiting', kind: 'interrupted' }],
    // No hook says so: the rollout check on read does (below).
    ['API error (response.failed): no hook after UserPromptSubmit', first, { state: 'working', kind: null }],
    [
      'Plan mode (Shift+Tab), question (request_user_input), answer (Enter)',
      first,
      { state: 'waiting', kind: 'done', message: 'Red it is.' },
    ],
    ['question, then Esc in the dialog', first, { state: 'waiting', kind: 'interrupted' }],
    ['/clear: a new session; its SessionStart (source clear) comes with the next prompt', last, { state: 'waiting', kind: 'done' }],
    ['resume (codex resume <id>): SessionStart source resume with the next prompt', last, { state: 'waiting', kind: 'done' }],
    ['killed pane during a permission dialog: no hook fires', last, { state: 'permission', kind: 'permission' }],
  ]
  for (const [scenario, pick, want] of cases) {
    t.ok(after.has(scenario), `scenario captured: ${scenario}`)
    if (after.has(scenario)) t.match(pick(scenario), want, scenario)
  }
  const quit = after.get('exit (/quit): SessionEnd for every session the process had, the cleared one too')!
  t.same(
    [...quit.values()].map((r) => r.state),
    ['ended', 'ended'],
    '/quit ends both sessions',
  )
})

t.test('a permission wait knows its call: PermissionRequest gets the tool_use_id of its PreToolUse', async (t) => {
  const rec = afterScenarios().get('killed pane during a permission dialog: no hook fires')!
  const r = [...rec.values()].sort((a, b) => b.lastEventAt - a.lastEventAt)[0]!
  t.match(r.tool, { name: 'Bash', useId: /^call_/ })
})

t.test('a question (request_user_input) is a question wait at once', async (t) => {
  const lineAt = lines.findIndex((l) => l.event === 'PreToolUse' && l.payload?.tool_name === 'request_user_input')
  let rec: SessionRecord | null = null
  lines.slice(0, lineAt + 1).forEach((l, i) => {
    if (l.event) {
      const ev = toEvent(l, i)
      if (ev.sessionId === toEvent(lines[lineAt]!, 0).sessionId) rec = applyEvent(rec, ev, hooksFor)
    }
  })
  t.match(rec, { state: 'permission', kind: 'question', tool: { name: 'request_user_input' } })
})

const rollouts = readdirSync(FIX.pathname + 'rollouts').map((n) => parseRollout(text(`rollouts/${n}`)))
const all: RolloutEntry[] = rollouts.flat()

t.test('the rollout tells an API error, an abort, an answer and a new prompt', async (t) => {
  type Of<K> = Extract<RolloutEntry, { kind: K }>
  // A check reads from the record's offset: the state event, at the turn's start.
  const from = (turnId: string): RolloutEntry[] =>
    rollouts
      .map((r) => r.slice(r.findIndex((e) => e.kind === 'task_started' && e.turnId === turnId)))
      .find((r) => r[0]?.kind === 'task_started' && (r[0] as Of<'task_started'>).turnId === turnId) ?? []
  const errors = all.filter((e): e is Of<'task_complete'> => e.kind === 'task_complete' && e.error !== null)
  t.equal(errors.length, 2, 'both captured API errors')
  const err = errors[0]!
  t.same(deriveRolloutVerdict(from(err.turnId), { turnId: err.turnId, since: 0, state: 'working', pendingCallId: null }), {
    verdict: 'error',
    at: err.at,
    message: 'stream disconnected before completion: mock: scripted failure',
  })
  const aborted = all.find((e): e is Of<'turn_aborted'> => e.kind === 'turn_aborted')!
  t.match(deriveRolloutVerdict(from(aborted.turnId), { turnId: aborted.turnId, since: 0, state: 'permission', pendingCallId: null }), {
    verdict: 'interrupted',
  })
  t.equal(
    deriveRolloutVerdict(from(aborted.turnId).slice(0, 1 + from(aborted.turnId).findIndex((e) => e.kind === 'turn_aborted')), {
      turnId: aborted.turnId,
      since: 0,
      state: 'waiting',
      pendingCallId: null,
    }),
    null,
    'a wait already says so',
  )
  const output = all.find((e): e is Of<'tool_output'> => e.kind === 'tool_output')!
  t.match(
    deriveRolloutVerdict(all.slice(all.indexOf(output)), { turnId: 'none', since: 0, state: 'permission', pendingCallId: output.callId }),
    { verdict: 'moved-on', why: 'tool-answered' },
  )
  const started = all.filter((e): e is Of<'task_started'> => e.kind === 'task_started')
  const q = { turnId: started[0]!.turnId, since: started[0]!.at, state: 'waiting' as const, pendingCallId: null }
  t.match(
    deriveRolloutVerdict(all, q),
    { verdict: 'moved-on', why: 'new-prompt', at: started[1]!.at },
    'a turn started after the wait began',
  )
  t.equal(
    deriveRolloutVerdict(all, { ...q, since: Math.max(...started.map((e) => e.at)) }),
    null,
    'turns before the wait began do not count',
  )
  const done = all.find((e): e is Of<'task_complete'> => e.kind === 'task_complete' && e.error === null)!
  t.equal(
    deriveRolloutVerdict([done], { turnId: done.turnId, since: 0, state: 'working', pendingCallId: null }),
    null,
    'a clean task_complete is the Stop hook’s to say',
  )
  t.same(parseRollout('not json\n{"type":"event_msg"}\n'), [], 'junk is skipped')
})

t.test('screens: each captured state', async (t) => {
  const want: Record<string, string> = {
    '01-startup.txt': 'idle',
    '02-done.txt': 'idle',
    '03-permission-dialog.txt': 'permission',
    '04-after-approve.txt': 'idle',
    '05-after-deny.txt': 'interrupted',
    '06-working.txt': 'working',
    '07-after-esc-streaming.txt': 'interrupted',
    '08-api-error.txt': 'idle',
    '09-api-error-500.txt': 'idle',
    '10-question-dialog.txt': 'permission',
    '11-after-esc-question.txt': 'interrupted',
    '12-after-clear.txt': 'idle',
    '13-after-quit.txt': 'unknown',
    '14-resumed.txt': 'idle',
  }
  for (const name of readdirSync(FIX.pathname + 'screens')) t.equal(classifyCodexScreen(text(`screens/${name}`)), want[name], name)
  t.equal(classifyCodexScreen(''), 'unknown')
})
