// GitHub Copilot CLI's events file, read to tell what no hook says: an Esc (in a dialog or while
// streaming), a failed model call, an answered dialog, a new prompt. The captured file
// (test/fixtures/copilot/session-state-events.jsonl) is the same session as the captured hooks.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { deriveEventsVerdict, parseEvents, readEventsTail } from '../lib/agents/copilot/transcript.js'
import { deriveCopilotCommand } from '../lib/agents/copilot/settings-hooks.js'
import { deriveCopilotConversation } from '../lib/agents/copilot/conversation.js'
import { agentFor } from '../lib/agents/index.js'
import type { SessionRecord } from '../lib/record/types.js'
import { runCli } from './helpers/cli.js'
import { BUILT_EMITTER, tempDir } from './helpers/emitter.js'

const FIXTURE = new URL('./fixtures/copilot/session-state-events.jsonl', import.meta.url)
const entries = parseEvents(fs.readFileSync(FIXTURE, 'utf8').trim().split('\n'))
/** A hook's capture time (test/fixtures/copilot/hooks-tui-session1.jsonl), as the state's start. */
const at = (iso: string): number => Date.parse(iso)

t.test('the captured file: each wait, and what ended it', async (t) => {
  t.same(
    entries.map((e) => e.kind),
    [
      'prompt',
      'prompt',
      'answered',
      'prompt',
      'answered',
      'prompt',
      'abort',
      'prompt',
      'abort',
      'prompt',
      'error',
      'prompt',
      'error',
      'prompt',
      'prompt',
      'answered',
      'prompt',
      'prompt',
    ],
    'the cancelled dialog is no answer: its abort follows',
  )
  // Its notification hook at 07:20:06.413: approved.
  t.match(deriveEventsVerdict(entries, { state: 'permission', since: at('2026-12-02T07:20:06.413Z') }), {
    verdict: 'moved-on',
    why: 'tool-answered',
  })
  // "TOOL third time", notification at 07:20:44.958, then Esc in the dialog.
  t.same(deriveEventsVerdict(entries, { state: 'permission', since: at('2026-12-02T07:20:44.958Z') }), {
    verdict: 'interrupted',
    at: at('2026-12-02T07:20:48.677Z'),
  })
  // "SLOW think hard", prompt at 07:20:55.856, then Esc Esc while streaming.
  t.same(deriveEventsVerdict(entries, { state: 'working', since: at('2026-12-02T07:20:55.856Z') }), {
    verdict: 'interrupted',
    at: at('2026-12-02T07:21:06.869Z'),
  })
  // "FAIL400 now" with its errorOccurred hook lost: the file has the error.
  t.match(deriveEventsVerdict(entries, { state: 'working', since: at('2026-12-02T07:21:57.868Z') }), {
    verdict: 'error',
    message: '400 mock: the server broke (400)',
  })
  // The ask_user form, notification at 07:22:24.157: answered.
  t.match(deriveEventsVerdict(entries, { state: 'permission', since: at('2026-12-02T07:22:24.157Z') }), {
    verdict: 'moved-on',
    why: 'tool-answered',
  })
  // A finished turn (agentStop at 07:22:30.756), then the next prompt.
  t.match(deriveEventsVerdict(entries, { state: 'waiting', since: at('2026-12-02T07:22:30.756Z') }), {
    verdict: 'moved-on',
    why: 'new-prompt',
  })
  // The last turn's end: nothing after it.
  t.equal(deriveEventsVerdict(entries, { state: 'waiting', since: at('2026-12-02T07:22:49.261Z') }), null)
})

t.test('reading the file: whole lines only, unreadable is null', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'events.jsonl')
  const abort = '{"type":"abort","data":{"reason":"user_abort"},"id":"x","timestamp":"2026-12-02T07:21:06.869Z","parentId":null}'
  fs.writeFileSync(file, `${abort}\n${abort.slice(0, 30)}`)
  t.same(readEventsTail(file), [{ kind: 'abort', at: at('2026-12-02T07:21:06.869Z') }], 'the line still being written is left')
  t.same(readEventsTail(file, 40), [], 'a read from mid-file drops its first, partial line')
  t.equal(readEventsTail(join(dir, 'none.jsonl')), null)
})

t.test('the queue: an Esc in the dialog, which fires no hook, shows as interrupted', async (t) => {
  const dir = tempDir(t)
  const home = join(dir, 'home')
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(dir, 'tb') }
  const spool = join(BUILT_EMITTER, '..', 'spool.sh')
  const runner = { command: '/bin/sh', args: [spool, 'copilot', process.execPath] }
  const sessionId = '50484cbd-bd73-442b-a0d9-1b949c0d6b89'
  const hookEnv = { ...env, COPILOT_LOADER_PID: '9848' }
  const base = { sessionId, timestamp: Date.now(), cwd: dir }
  const hook = (event: string, payload: object): void => {
    execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', deriveCopilotCommand(event, runner)], {
      env: hookEnv,
      input: JSON.stringify({ ...base, ...payload }),
    })
  }
  hook('preToolUse', { toolName: 'bash', toolArgs: { command: 'echo probe > probe-out.txt' } })
  hook('notification', { message: 'Run command: echo probe > probe-out.txt', notification_type: 'permission_prompt' })
  const kinds = async (): Promise<unknown> => {
    const ls = await runCli(['ls', '--json', '--all'], env)
    t.equal(ls.code, 0, ls.stderr)
    return (JSON.parse(ls.stdout) as { queue: { kind: string }[] }).queue.map((q) => q.kind)
  }
  t.same(await kinds(), ['permission'])
  // Copilot writes the abort of an Esc to the session's events file, never to a hook.
  const events = join(home, '.copilot', 'session-state', sessionId, 'events.jsonl')
  fs.mkdirSync(join(events, '..'), { recursive: true })
  const later = new Date(Date.now() + 1000).toISOString()
  fs.writeFileSync(events, `{"type":"abort","data":{"reason":"user_initiated"},"id":"x","timestamp":"${later}","parentId":null}\n`)
  t.same(await kinds(), ['interrupted'])
})

t.test("show's conversation, from the captured file", async (t) => {
  const lines = deriveCopilotConversation(fs.readFileSync(FIXTURE, 'utf8').split('\n'))
  const short = lines.map((l) => `${l.who}: ${l.text.split('\n')[0]!.slice(0, 60)}`)
  t.same(short.slice(0, 9), [
    'you: PLAIN hello there',
    'agent: plain answer',
    'you: TOOL write the marker',
    'tool: bash {"command":"echo probe > probe-out.txt","description":"',
    'result: <shellId: 0 completed with exit code 0>',
    'agent: Ran it, all good.',
    'you: TOOL again please',
    'tool: bash {"command":"echo probe > probe-out.txt","description":"',
    'result: error: The user rejected this tool call. User feedback: do n',
  ])
  t.match(lines[3], { tool: { name: 'bash', input: { command: 'echo probe > probe-out.txt' } } })
  t.ok(short.includes('agent: Operation cancelled by user'), 'an Esc')
  t.ok(short.includes('agent: error: 400 mock: the server broke (400)'), 'a failed call')
  // Through the adapter: the session's file by its id under COPILOT_HOME, the last lines only.
  const home = tempDir(t)
  const dir = join(home, 'session-state', '50484cbd-bd73-442b-a0d9-1b949c0d6b89')
  fs.mkdirSync(dir, { recursive: true })
  fs.copyFileSync(FIXTURE, join(dir, 'events.jsonl'))
  const rec = { sessionId: '50484cbd-bd73-442b-a0d9-1b949c0d6b89', transcriptPath: null } as unknown as SessionRecord
  t.same(agentFor('copilot')!.readConversation(rec, { COPILOT_HOME: home }, 2), lines.slice(-2))
})
