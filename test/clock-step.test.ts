// A clock step (NTP, suspend/resume, VM migration) must never freeze a session: an emitter
// that ran while the wall clock was an hour ahead stamps its event in the future, and every
// later event of that session must still move it. Real emitters, real files, the built CLI.
// Run `npm run build` first.
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { isFresh } from '../lib/clock.js'
import { deriveLookupDue } from '../lib/queue/discover.js'
import { deriveSeenUpdate, SEEN_AFTER_ACTIVE_MS } from '../lib/queue/seen.js'
import { runCli } from './helpers/cli.js'
import { baseEnv, EMITTER, runEmitter, tempDir, type ChildEnv } from './helpers/emitter.js'
import { startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

t.setTimeout(120_000)
const CLOCK_AHEAD = fileURLToPath(new URL('./helpers/clock-ahead.cjs', import.meta.url))
const HOUR = 3_600_000
const SID = 'c10c0000-0000-4000-8000-000000000001'

const payload = (name: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ session_id: SID, cwd: '/tmp', hook_event_name: name, prompt_id: 'p1', ...extra })

interface JsonView {
  queue: { sessionId: string; state: string; kind: string | null; ask: { message: string | null } }[]
}
const stateOf = async (env: ChildEnv): Promise<string> => {
  const r = await runCli(['ls', '--all', '--json'], env)
  const item = (JSON.parse(r.stdout) as JsonView).queue.find((i) => i.sessionId === SID)
  return item ? `${item.state}/${item.kind ?? '-'}` : 'none'
}

t.test('an event stamped an hour ahead does not freeze its session', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { NO_COLOR: '1' })
  const ahead = { ...env, NODE_OPTIONS: `--require=${CLOCK_AHEAD}`, TRAILBOSS_TEST_CLOCK_SHIFT_MS: String(HOUR) }
  t.equal((await runEmitter(payload('PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make' } }), ahead)).code, 0)
  const rec = JSON.parse(fs.readFileSync(join(root, 'tb', 'sessions', `${SID}.json`), 'utf8')) as { stateStamp: number }
  t.ok(rec.stateStamp > Date.now() + HOUR / 2, 'the emitter stamped its event an hour ahead')
  t.equal(await stateOf(env), 'permission/permission')

  // The clock is right again: the person answers, prompts anew, the turn ends.
  t.equal((await runEmitter(payload('UserPromptSubmit', { prompt_id: 'p2' }), env)).code, 0)
  t.equal(await stateOf(env), 'working/-', 'a new prompt moves the session on')
  t.equal((await runEmitter(payload('Stop', { prompt_id: 'p2', last_assistant_message: 'Built.' }), env)).code, 0)
  t.equal(await stateOf(env), 'waiting/done', 'and its Stop makes it wait')

  // Events that find the lock held are saved as pending events; readers fold them at once.
  const lock = join(root, 'tb', 'sessions', `${SID}.json.lock`)
  t.equal(
    (await runEmitter(payload('PermissionRequest', { prompt_id: 'p3', tool_name: 'Bash', tool_input: { command: 'make' } }), ahead)).code,
    0,
  )
  fs.mkdirSync(lock)
  const later = new Date(Date.now() + HOUR)
  fs.utimesSync(lock, later, later)
  t.equal((await runEmitter(payload('UserPromptSubmit', { prompt_id: 'p4' }), env)).code, 0)
  t.equal(fs.readdirSync(join(root, 'tb', 'sessions', `${SID}.pending`)).length, 1, 'the event is pending')
  t.equal(await stateOf(env), 'working/-', 'a pending event after a future one is seen at once')
  fs.rmdirSync(lock)
  t.equal((await runEmitter(payload('Stop', { prompt_id: 'p4', last_assistant_message: 'Done.' }), env)).code, 0)
  t.equal(await stateOf(env), 'waiting/done', 'and the next holder folds it in order')
})

t.test('pending events of one holder-less stretch still tie-break by stamp', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { NO_COLOR: '1' })
  t.equal((await runEmitter(payload('SessionStart', { source: 'startup' }), env)).code, 0)
  const lock = join(root, 'tb', 'sessions', `${SID}.json.lock`)
  fs.mkdirSync(lock)
  const later = new Date(Date.now() + HOUR)
  fs.utimesSync(lock, later, later)
  // Started in this order; the second one's stamp is the newer, whichever lands first.
  const [first, second] = await Promise.all([
    runEmitter(payload('UserPromptSubmit', { prompt_id: 'p1' }), env),
    new Promise((r) => setTimeout(r, 30)).then(() =>
      runEmitter(payload('Stop', { prompt_id: 'p1', last_assistant_message: 'Done?' }), env),
    ),
  ])
  t.same([first.code, second.code], [0, 0])
  t.equal(await stateOf(env), 'waiting/question', 'the newer stamp decides among pending events')
  fs.rmdirSync(lock)
})

const SPOOL_SH = fileURLToPath(new URL('../dist/hooks/spool.sh', import.meta.url))

/** The emitter with arguments (`--agent codex`), as an agent's hook command runs it. */
const runEmitterWith = (emitter: string, args: string[], input: string, env: ChildEnv): Promise<{ code: number | null }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [emitter, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'ignore', 'ignore'] })
    child.on('close', (code) => resolve({ code }))
    child.stdin.end(input)
  })

const SCREENS = fileURLToPath(new URL('./fixtures/screens/', import.meta.url))

t.test('a screen verdict remembered before the clock stepped back is stale, not fresh for an hour', async (t) => {
  const root = tempDir(t)
  const server = startTmuxServer(t, { size: [160, 50] })
  const env = baseEnv(root, { NO_COLOR: '1', TMUX_TMPDIR: server.dir })
  // An agent stand-in in the pane runs its hook (the emitter, its clock an hour behind: the
  // hook ran past the screen-check delay), shows Claude Code working, then, on Enter, its
  // permission dialog. A process of its own, so the record's agent process runs in the pane.
  const agent = join(root, 'agent.cjs')
  fs.writeFileSync(
    agent,
    `const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const [emitter, home, shift, payload, working, dialog] = process.argv.slice(2)
spawnSync(process.execPath, [emitter], { input: payload, env: { ...process.env, TRAILBOSS_HOME: home, NODE_OPTIONS: '--require=${CLOCK_AHEAD}', TRAILBOSS_TEST_CLOCK_SHIFT_MS: shift } })
process.stdout.write(fs.readFileSync(working, 'utf8'))
process.stdin.once('data', () => process.stdout.write('\\x1b[2J\\x1b[H' + fs.readFileSync(dialog, 'utf8')))
setInterval(() => {}, 1e6)
`,
  )
  const hook = payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: 'tu1' })
  const pane = server.newPane(
    ['new-window', '-d'],
    [
      process.execPath,
      agent,
      EMITTER,
      env.TRAILBOSS_HOME!,
      String(-HOUR),
      hook,
      `${SCREENS}05-working-spinner.txt`,
      `${SCREENS}03-permission-dialog.txt`,
    ],
  )
  await waitFor(() => /Channelling/.test(server.capture(pane)), 'the working screen')
  await waitFor(() => fs.existsSync(join(root, 'tb', 'sessions', `${SID}.json`)), 'the record')
  // A run while the clock was an hour ahead captures "working" and remembers it, stamped then.
  const ahead = { ...env, NODE_OPTIONS: `--require=${CLOCK_AHEAD}`, TRAILBOSS_TEST_CLOCK_SHIFT_MS: String(HOUR) }
  const r = await runCli(['ls', '--all', '--json'], ahead)
  t.match(
    (JSON.parse(r.stdout) as JsonView).queue.find((i) => i.sessionId === SID),
    { state: 'working' },
  )
  // The clock is right again, and the dialog is on screen now.
  server.tmux('send-keys', '-t', pane, 'Enter')
  await waitFor(() => /Do you want to proceed/.test(server.capture(pane)), 'the dialog')
  t.equal(await stateOf(env), 'permission/permission', 'the screen is looked at again')
})

t.test('spooled events are folded on read with the reader’s clock: a record stamped ahead still moves', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root, { NO_COLOR: '1' })
  const sid = 'c10c0000-0000-4000-8000-000000000002'
  const codex = (name: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      session_id: sid,
      transcript_path: '/nowhere/r.jsonl',
      cwd: '/tmp',
      hook_event_name: name,
      turn_id: 't1',
      model: 'm',
      permission_mode: 'default',
      ...extra,
    })
  const ahead = { ...env, NODE_OPTIONS: `--require=${CLOCK_AHEAD}`, TRAILBOSS_TEST_CLOCK_SHIFT_MS: String(HOUR) }
  t.equal(
    (
      await runEmitterWith(
        EMITTER,
        ['--agent', 'codex'],
        codex('PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make' } }),
        ahead,
      )
    ).code,
    0,
  )
  const rec = JSON.parse(fs.readFileSync(join(root, 'tb', 'sessions', `${sid}.json`), 'utf8')) as { stateStamp: number; state: string }
  t.ok(rec.stateStamp > Date.now() + HOUR / 2 && rec.state === 'permission', 'stamped an hour ahead')
  // The clock is right again: the person answers and the turn ends; spool.sh stores the events,
  // and no fold runs (it is given no node), so only readers fold them.
  for (const event of [
    codex('UserPromptSubmit', { prompt: 'go on', turn_id: 't2' }),
    codex('Stop', { turn_id: 't2', last_assistant_message: 'Built.' }),
  ]) {
    t.equal(spawnSync('/bin/sh', [SPOOL_SH, 'codex'], { input: event, env: env as NodeJS.ProcessEnv }).status, 0)
  }
  const r = await runCli(['ls', '--all', '--json'], env)
  t.match(
    (JSON.parse(r.stdout) as JsonView).queue.find((i) => i.sessionId === sid),
    { state: 'waiting', kind: 'done' },
    'the spooled Stop counts',
  )
})

t.test('a seen mark noted before the clock stepped back starts its stretch again', async (t) => {
  const now = 1_000_000
  const wait = { sessionId: 's', since: 10, inFront: true }
  const ahead = new Map([['s', { since: 10, seenAt: null, activeAt: now + HOUR }]])
  t.same(deriveSeenUpdate([wait], ahead, now).get('s'), { since: 10, seenAt: null, activeAt: now }, 'noted again at now')
  const later = new Map([['s', { since: 10, seenAt: null, activeAt: now }]])
  t.same(
    deriveSeenUpdate([wait], later, now + SEEN_AFTER_ACTIVE_MS).get('s')?.seenAt,
    now + SEEN_AFTER_ACTIVE_MS,
    'and seen once in front long enough',
  )
})

t.test('discovery memos stamped ahead of the clock are looked at again', async (t) => {
  const now = 1_000_000
  const memo = { sessionId: 's', lookedAt: now + HOUR, folders: 'f' }
  t.equal(deriveLookupDue(memo, undefined, now), true, 'a pane without folders')
  t.equal(deriveLookupDue(memo, 'f', now), true, 'a pane whose folders did not change')
  t.equal(deriveLookupDue({ ...memo, lookedAt: now - 1 }, 'f', now), false, 'a memo of a moment ago stands')
  t.equal(isFresh(now + 1, now, 10), false)
  t.equal(isFresh(now, now, 10), true)
  t.equal(isFresh(now - 10, now, 10), false)
})
