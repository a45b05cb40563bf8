// Claude Code 2.1.332's real hook payloads (test/fixtures/claude-code-2.1.332/), replayed through
// the built emitter one at a time as they were fired: auto mode behind a gateway (no
// PermissionRequest, a Notification `agent_needs_input` instead), the classic default mode, and
// a PermissionDenied. Plus the notification types 2.1.332 added, one by one.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { SessionRecord } from '../lib/record/types.js'
import { baseEnv, payload, readSession, runEmitter, tempDir, type ChildEnv } from './helpers/emitter.js'

t.setTimeout(300_000)

interface Captured {
  t: number
  event: string
  env?: Record<string, string>
  payload: Record<string, unknown>
}

const captures = (file: string): Captured[] =>
  fs
    .readFileSync(new URL(`./fixtures/claude-code-2.1.332/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Captured)

const home = (t: Test): { env: ChildEnv; sessions: string; log: string } => {
  const root = tempDir(t)
  fs.mkdirSync(join(root, 'home'), { recursive: true })
  const env = baseEnv(root)
  return { env, sessions: join(env.TRAILBOSS_HOME!, 'sessions'), log: join(env.TRAILBOSS_HOME!, 'log') }
}

const logText = (file: string): string => {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** Replays a capture; returns the session's record after each step. */
const replay = async (t: Test, file: string): Promise<{ after: (SessionRecord | null)[]; log: string }> => {
  const h = home(t)
  const after: (SessionRecord | null)[] = []
  for (const c of captures(file)) {
    // The headless capture logged no environment: `claude -p` runs with the sdk-cli entrypoint.
    const env: ChildEnv = c.env
      ? { ...h.env, TMUX: c.env.TMUX, TMUX_PANE: c.env.TMUX_PANE, CLAUDE_CODE_ENTRYPOINT: c.env.CLAUDE_CODE_ENTRYPOINT }
      : { ...h.env, CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' }
    const r = await runEmitter(JSON.stringify(c.payload), env)
    t.equal(r.code, 0, `${c.event}: exit 0`)
    after.push(readSession(h.sessions, String(c.payload.session_id)).view)
  }
  return { after, log: logText(h.log) }
}

t.test("auto mode behind a gateway: the can't-check dialog is a wait from its Notification", async (t) => {
  const { after, log } = await replay(t, 'auto/events.jsonl')
  t.match(after[4], { state: 'working', lastTool: { name: 'Bash' } }, 'PreToolUse: working (no PermissionRequest follows)')
  t.match(
    after[5],
    {
      state: 'permission',
      kind: 'permission',
      event: 'Notification',
      tool: { name: 'Bash' },
      message: "Auto mode can't check actions in this session and needs your choice",
    },
    'agent_needs_input: a permission wait, its message the ask',
  )
  t.match(
    after[6],
    { state: 'permission', kind: 'permission', since: after[5]?.since },
    'the approval dialog after it (permission_prompt): the same wait',
  )
  t.match(after[7], { state: 'working' }, 'approved: PostToolUse')
  t.match(after[9], { state: 'waiting', kind: 'done', message: 'Created the file.' })
  t.match(after[11], { state: 'working' }, 'the next tool call: PreToolUse only (the registry tells of its dialog)')
  t.match(after[14], { state: 'permission', kind: 'question' }, 'AskUserQuestion still fires PermissionRequest')
  t.match(after[19], { state: 'waiting', kind: 'error' }, 'StopFailure')
  t.match(after[23], { state: 'waiting', kind: 'done', since: after[22]?.since }, 'idle_prompt keeps the wait')
  t.match(after[24], { state: 'ended' })
  t.equal(log, '', 'real payloads log nothing')
})

t.test('default mode: as 2.1.197', async (t) => {
  const { after, log } = await replay(t, 'default/events.jsonl')
  t.match(after[5], {
    state: 'permission',
    kind: 'permission',
    event: 'PermissionRequest',
    tool: { name: 'Bash', useId: after[4]?.lastTool?.useId },
  })
  t.match(after[6], { state: 'permission', since: after[5]?.since }, 'permission_prompt 6 s later: the same wait')
  t.match(after[9], { state: 'waiting', kind: 'done' })
  t.match(after[15], { state: 'permission', kind: 'question' })
  t.equal(log, '', 'real payloads log nothing')
})

t.test('PermissionDenied: recorded, and the session goes on', async (t) => {
  const { after, log } = await replay(t, 'permission-denied-headless.jsonl')
  const denied = after[3]
  t.match(
    denied,
    { state: 'working', denied: { tool: 'Bash', reason: 'Classifier unavailable' } },
    'the refusal is kept with the tool and the reason',
  )
  t.match(after[4], { state: 'waiting', kind: 'done', denied: { tool: 'Bash' } }, 'and stays with the turn it belongs to')
  t.equal(log, '', 'real payloads log nothing')
})

t.test("2.1.332's notification types", async (t) => {
  const h = home(t)
  const env: ChildEnv = { ...h.env, TMUX: '/tmp/tmux-1000/default,800,0', TMUX_PANE: '%3', CLAUDE_CODE_ENTRYPOINT: 'cli' }
  let n = 0
  /** A session at work on a Bash call, then one notification. */
  const after = async (type: string, message = `about ${type}`): Promise<SessionRecord | null> => {
    const sid = `notif-${++n}`
    await runEmitter(JSON.stringify(payload(sid, 'UserPromptSubmit', { prompt_id: 'p1', prompt: 'x' })), env)
    await runEmitter(
      JSON.stringify(
        payload(sid, 'PreToolUse', { prompt_id: 'p1', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' }),
      ),
      env,
    )
    await runEmitter(JSON.stringify(payload(sid, 'Notification', { prompt_id: 'p1', notification_type: type, message })), env)
    return readSession(h.sessions, sid).view
  }
  for (const type of ['agent_needs_input', 'worker_permission_prompt']) {
    t.match(
      await after(type),
      { state: 'permission', kind: 'permission', message: `about ${type}`, tool: { name: 'Bash' } },
      `${type}: a wait, the message its ask`,
    )
  }
  t.match(
    await after('elicitation_url_dialog'),
    { state: 'permission', kind: 'question', message: 'about elicitation_url_dialog' },
    'elicitation_url_dialog: a question',
  )
  const quiet = [
    'agent_completed',
    'push_notification',
    'plugin_notification',
    'quota_auto_resume_fired',
    'computer_use_enter',
    'auth_success',
  ]
  const records = await Promise.all(quiet.map((type) => after(type)))
  quiet.forEach((type, i) => t.match(records[i], { state: 'working' }, `${type}: no wait`))
  t.equal(logText(h.log), '', 'known types log nothing')
  // An unknown type: logged once (not once per event), and never a change of state.
  t.match(await after('brand_new_type'), { state: 'working' }, 'an unknown type: the state stays')
  await after('brand_new_type')
  const lines = logText(h.log)
    .split('\n')
    .filter((l) => l.includes('brand_new_type'))
  t.equal(lines.length, 1, 'logged once')
  // It never turns a wait into work either.
  const sid = 'notif-wait'
  await runEmitter(JSON.stringify(payload(sid, 'UserPromptSubmit', { prompt_id: 'p1', prompt: 'x' })), env)
  await runEmitter(JSON.stringify(payload(sid, 'Stop', { prompt_id: 'p1', last_assistant_message: 'Done.' })), env)
  await runEmitter(
    JSON.stringify(payload(sid, 'Notification', { prompt_id: 'p1', notification_type: 'another_new_type', message: 'x' })),
    env,
  )
  t.match(readSession(h.sessions, sid).view, { state: 'waiting', kind: 'done', message: 'Done.' })
})
