// GitHub Copilot CLI's hook payloads, as captured from a real TUI session and a `copilot -p` run
// (test/fixtures/copilot), through its adapter and the core fold: the state after every event.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { hooksFor } from '../lib/agents/hook-registry.js'
import { COPILOT, COPILOT_EVENT_ENV } from '../lib/agents/copilot/hook-event.js'
import { applyEvent } from '../lib/record/fold.js'
import type { HookContext } from '../lib/record/agent-rules.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'

interface Captured {
  argv: string
  ts: number
  tmux_pane: string
  /** The names of the agent's variables the hook saw. */
  env: string
  payload: Record<string, unknown>
}

const readCaptures = (name: string): Captured[] =>
  readFileSync(new URL(`./fixtures/copilot/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Captured)

const tui = readCaptures('hooks-tui-session1.jsonl')
const promptMode = readCaptures('hooks-prompt-mode.jsonl')

/** The hook's environment as our installed command gives it: the capture's pane and the event's name. */
const envOf = (c: Captured): Record<string, string> => {
  const names = c.env.split(' ')
  const env: Record<string, string> = { [COPILOT_EVENT_ENV]: c.argv, COPILOT_PROJECT_DIR: '/home/dev/probe/proj-copilot' }
  if (c.tmux_pane) Object.assign(env, { TMUX: '/tmp/tmux-1000/probe-copilot,29908,0', TMUX_PANE: c.tmux_pane })
  if (names.includes('COPILOT_LOADER_PID')) env.COPILOT_LOADER_PID = '9848'
  return env
}

const contextOf = (env: Record<string, string>, stamp: number): HookContext => ({
  env,
  stamp,
  host: 'h',
  fileSize: () => 123,
  projectLabel: (dir) => (dir ? dir.split('/').at(-1)! : null),
})

const toEvent = (c: Captured): HookEvent => {
  const e = hooksFor(COPILOT)!.toHookEvent(c.payload, contextOf(envOf(c), c.ts))
  if (typeof e === 'string') throw new Error(e)
  return e
}

t.test('payloads become events: names from our command, fields renamed', async (t) => {
  const start = toEvent(tui.find((c) => c.argv === 'sessionStart')!)
  t.match(start, { agent: COPILOT, name: 'sessionStart', source: 'new', promptId: null, headless: false, project: 'proj-copilot' })
  t.match(start.tmux, { pane: '%0' })
  const pre = toEvent(tui.find((c) => c.argv === 'preToolUse')!)
  t.match(pre.tool, { name: 'bash', input: { command: 'echo probe > probe-out.txt', description: 'Write a marker file' }, useId: null })
  const ask = toEvent(tui.find((c) => c.argv === 'permissionRequest')!)
  t.match(ask.tool, { name: 'bash', input: { command: 'echo probe > probe-out.txt' } })
  const note = toEvent(tui.find((c) => c.argv === 'notification')!)
  t.match(note, { notificationType: 'permission_prompt', message: 'Run command: echo probe > probe-out.txt', tool: null })
  const stop = toEvent(tui.find((c) => c.argv === 'agentStop')!)
  t.match(stop.transcriptPath, /\/\.copilot\/session-state\/50484cbd-[0-9a-f-]+\/events\.jsonl$/)
  const err = toEvent(tui.find((c) => c.argv === 'errorOccurred')!)
  t.match(err.message, /mock: the server broke \(500\)/)
  t.match(toEvent(tui.find((c) => c.argv === 'sessionEnd')!), { reason: 'user_exit' })
  // `copilot -p`: no COPILOT_LOADER_PID, no pane.
  t.match(toEvent(promptMode[0]!), { headless: true, tmux: null })
})

t.test('payloads that are not events', async (t) => {
  const hooks = hooksFor(COPILOT)!
  const payload = tui[0]!.payload
  t.equal(hooks.toHookEvent(null, contextOf({ [COPILOT_EVENT_ENV]: 'sessionStart' }, 1)), 'payload is not a JSON object')
  // A hook that did not come from our install names no event.
  t.equal(hooks.toHookEvent(payload, contextOf({}, 1)), `no event name in ${COPILOT_EVENT_ENV}`)
  t.equal(hooks.toHookEvent(payload, contextOf({ [COPILOT_EVENT_ENV]: 'a b' }, 1)), `no event name in ${COPILOT_EVENT_ENV}`)
  t.match(hooks.toHookEvent({ ...payload, sessionId: '../x' }, contextOf({ [COPILOT_EVENT_ENV]: 'sessionStart' }, 1)), /invalid session_id/)
})

/** The record's state after each event, as `event → state/kind tool`. */
const foldAll = (captures: readonly Captured[]): string[] => {
  let rec: SessionRecord | null = null
  return captures.map((c) => {
    rec = applyEvent(rec, toEvent(c), hooksFor)
    return `${c.argv} → ${rec.state}/${rec.kind ?? '-'}${rec.tool ? ` ${rec.tool.name}` : ''}`
  })
}

t.test('the captured TUI session, folded: the state after every event', async (t) => {
  const states = foldAll(tui)
  t.same(states, [
    // "PLAIN hello there": sessionStart fires at the first prompt.
    'sessionStart → idle/-',
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'agentStop → waiting/done',
    // "TOOL write the marker", approved.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'preToolUse → working/-',
    // permissionRequest also fires for auto-approved calls: only the notification is a dialog.
    'permissionRequest → working/-',
    'notification → permission/permission bash',
    'postToolUse → working/-',
    'agentStop → waiting/done',
    // "TOOL again please", denied with feedback: no post hook, the turn goes on to its end.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'preToolUse → working/-',
    'permissionRequest → working/-',
    'notification → permission/permission bash',
    'agentStop → waiting/done',
    // "TOOL third time", Esc in the dialog: no hook, so the dialog's state stays until the next prompt.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'preToolUse → working/-',
    'permissionRequest → working/-',
    'notification → permission/permission bash',
    // "SLOW think hard", Esc Esc while streaming: no hook either.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    // "FAIL now": HTTP 500, one errorOccurred per attempt and no agentStop.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'errorOccurred → waiting/error',
    'errorOccurred → waiting/error',
    'errorOccurred → waiting/error',
    'errorOccurred → waiting/error',
    'errorOccurred → waiting/error',
    'errorOccurred → waiting/error',
    // "FAIL400 now": one attempt.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'errorOccurred → waiting/error',
    // "ASK me something": the model's first ask_user call was refused by Copilot itself (no form).
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'preToolUse → working/-',
    'postToolUseFailure → working/-',
    'agentStop → waiting/done',
    // "ASK me again": the form opens (elicitation_dialog), answered.
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'preToolUse → working/-',
    'notification → permission/question ask_user',
    'postToolUse → working/-',
    'agentStop → waiting/done',
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'agentStop → waiting/done',
    'userPromptSubmitted → working/-',
    'userPromptTransformed → working/-',
    'agentStop → waiting/done',
    // /exit.
    'sessionEnd → ended/-',
  ])
})

t.test('the permission wait names the command; the question wait the form', async (t) => {
  let rec: SessionRecord | null = null
  const seen: SessionRecord[] = []
  for (const c of tui) {
    rec = applyEvent(rec, toEvent(c), hooksFor)
    if (c.argv === 'notification') seen.push(rec)
  }
  t.match(seen[0], { state: 'permission', kind: 'permission', tool: { name: 'bash', input: { command: 'echo probe > probe-out.txt' } } })
  t.match(seen.at(-1), { state: 'permission', kind: 'question', tool: { name: 'ask_user', input: { message: 'Which color?' } } })
})

t.test('a `copilot -p` run, folded: headless, done, ended', async (t) => {
  t.same(foldAll(promptMode).slice(-2), ['agentStop → waiting/done', 'sessionEnd → ended/-'])
})
