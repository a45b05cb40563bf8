// A clock step (NTP, suspend/resume, VM migration) must never freeze a session: an emitter
// that ran while the wall clock was an hour ahead stamps its event in the future, and every
// later event of that session must still move it. Real emitters, real files, the built CLI.
// Run `npm run build` first.
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { runCli } from './helpers/cli.js'
import { baseEnv, runEmitter, tempDir, type ChildEnv } from './helpers/emitter.js'

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
  t.equal((await runEmitter(payload('PermissionRequest', { prompt_id: 'p3', tool_name: 'Bash', tool_input: { command: 'make' } }), ahead)).code, 0)
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
    new Promise((r) => setTimeout(r, 30)).then(() => runEmitter(payload('Stop', { prompt_id: 'p1', last_assistant_message: 'Done?' }), env)),
  ])
  t.same([first.code, second.code], [0, 0])
  t.equal(await stateOf(env), 'waiting/question', 'the newer stamp decides among pending events')
  fs.rmdirSync(lock)
})
