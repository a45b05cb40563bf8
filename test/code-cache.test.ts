// The `trailboss` executable loads main.cjs from the V8 code cache the build made beside it
// (dist/bin/main.v8). A cache V8 refuses, or none, must change nothing but the speed; the
// imports main.cjs makes through the loader must work from cached code.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { applyEvent } from '../lib/record/fold.js'
import type { HookEvent } from '../lib/record/types.js'
import { tempDir } from './helpers/emitter.js'
import { copyBuilt } from './helpers/navigate-records.js'
import { hookEvent } from './helpers/hook-event.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

const event = (sessionId: string, name: string): HookEvent =>
  hookEvent({ stamp: 1_700_000_000_000, name, sessionId, promptId: 'p', message: 'Done. Anything else?' })

t.test('the code cache is used; refused or missing, the output is the same', async (t) => {
  const built = await copyBuilt(t)
  const cache = join(dirname(built.cli), 'main.v8')
  const home = tempDir(t)
  const sessions = join(home, 'tb', 'sessions')
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(join(sessions, 'cached00-1.json'), JSON.stringify(applyEvent(null, event('cached00-1', 'Stop'), hooksFor)))
  // A record from a newer version: the compiled validator refuses it, zod (imported through
  // the loader) reads it.
  fs.writeFileSync(
    join(sessions, 'newer000-1.json'),
    JSON.stringify({ ...applyEvent(null, event('newer000-1', 'Stop'), hooksFor), fieldFromANewerVersion: 1 }),
  )
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(home, 'tb'),
    TRAILBOSS_DEBUG_CODE_CACHE: '1',
  }
  const run = (...args: string[]): Run => {
    const r = spawnSync(process.execPath, [built.cli, ...args], { env, encoding: 'utf8', timeout: 30_000 })
    return { code: r.status, stdout: r.stdout, stderr: r.stderr }
  }

  const used = run('ls', '--json')
  t.equal(used.code, 0)
  t.equal(used.stderr, 'trailboss: code cache used\n')
  t.same((JSON.parse(used.stdout) as { queue: { sessionId: string }[] }).queue.map((i) => i.sessionId).sort(), ['cached00-1', 'newer000-1'])
  const version = run('--version')
  t.same(
    [version.code, version.stdout.trim(), version.stderr],
    [0, JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version, 'trailboss: code cache used\n'],
    'the full CLI, imported from cached code',
  )

  const doctorCheck = (): unknown =>
    (JSON.parse(run('doctor', '--json').stdout) as { checks: { id: string; status: string }[] }).checks.find((c) => c.id === 'code-cache')
      ?.status
  t.equal(doctorCheck(), 'ok', 'doctor says the cache is used')

  fs.writeFileSync(cache, Buffer.alloc(4096, 7))
  const refused = run('ls', '--json')
  t.same(
    [refused.code, refused.stdout, refused.stderr],
    [0, used.stdout, 'trailboss: code cache refused\n'],
    'a damaged cache is refused by V8',
  )
  t.equal(doctorCheck(), 'info', 'doctor says so, and how to make a new one')

  fs.rmSync(cache)
  const none = run('ls', '--json')
  t.same([none.code, none.stdout, none.stderr], [0, used.stdout, 'trailboss: code cache none\n'])
  t.equal(run('--version').code, 0)
})

t.test('the emitter starts from its code cache; refused or missing, it records the same', async (t) => {
  const built = await copyBuilt(t)
  const cache = join(dirname(built.emitter), 'emit.v8')
  const home = tempDir(t)
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(home, 'tb'),
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    TRAILBOSS_DEBUG_CODE_CACHE: '1',
  }
  const emit = (sessionId: string): Run => {
    const input = JSON.stringify({
      session_id: sessionId,
      transcript_path: join(home, `${sessionId}.jsonl`),
      cwd: home,
      hook_event_name: 'Stop',
      prompt_id: 'p',
      last_assistant_message: 'Done.',
    })
    const r = spawnSync(process.execPath, [built.emitter], { env, input, encoding: 'utf8', timeout: 30_000 })
    return { code: r.status, stdout: r.stdout, stderr: r.stderr }
  }
  const recorded = (sessionId: string): unknown => {
    const {
      sessionId: id,
      state,
      kind,
      message,
    } = JSON.parse(fs.readFileSync(join(home, 'tb', 'sessions', `${sessionId}.json`), 'utf8')) as Record<string, unknown>
    return { id, state, kind, message }
  }
  const expect = (sessionId: string): unknown => ({ id: sessionId, state: 'waiting', kind: 'done', message: 'Done.' })

  t.same(emit('cached01-1'), { code: 0, stdout: '', stderr: 'trailboss-emit: code cache used\n' })
  t.same(recorded('cached01-1'), expect('cached01-1'))
  fs.writeFileSync(cache, Buffer.alloc(4096, 7))
  t.same(emit('refused1-1'), { code: 0, stdout: '', stderr: 'trailboss-emit: code cache refused\n' }, 'a damaged cache is refused by V8')
  t.same(recorded('refused1-1'), expect('refused1-1'))
  fs.rmSync(cache)
  t.same(emit('nocache1-1'), { code: 0, stdout: '', stderr: 'trailboss-emit: code cache none\n' })
  t.same(recorded('nocache1-1'), expect('nocache1-1'))
})
