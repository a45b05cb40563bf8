// Issue #13, files that are not regular files, for the writers: the emitter on a FIFO record or
// log, install/uninstall/doctor on FIFO settings files and log, notify on FIFO state files.
// Each run is bounded (a hang fails the test); the readers are in hostile-files.test.ts.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { cliBounded, emitBounded } from './helpers/bounded.js'
import { payload, tempDir } from './helpers/emitter.js'
import { finished, homeEnv, labWithWait, mkfifo } from './helpers/hostile.js'

t.test('the emitter on a FIFO record keeps its deadline, leaves no lock, and keeps the event', async (t) => {
  const home = tempDir(t)
  const env = homeEnv(home)
  const dir = join(home, 'tb', 'sessions')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  fs.chmodSync(join(home, 'tb'), 0o700)
  mkfifo(join(dir, 'fifo0000-2.json'))
  const r = await emitBounded(JSON.stringify(payload('fifo0000-2', 'UserPromptSubmit', { prompt_id: 'p1' })), env)
  finished(t, r, 'the emitter')
  t.equal(r.code, 0)
  t.equal(r.stdout + r.stderr, '', 'silent')
  t.notOk(fs.existsSync(join(dir, 'fifo0000-2.json.lock')), 'no lock left behind')
  const ls = await cliBounded(['ls', '--json', '--all'], env)
  finished(t, ls, 'ls')
  t.match(ls.stdout, /"sessionId":"fifo0000-2"|"sessionId": "fifo0000-2"/, 'the event is recorded')
})

t.test('the emitter on a FIFO where the ended mark goes keeps its deadline and records the end', async (t) => {
  const home = tempDir(t)
  const env = homeEnv(home)
  const dir = join(home, 'tb', 'sessions')
  fs.mkdirSync(join(dir, '.ended'), { recursive: true, mode: 0o700 })
  fs.chmodSync(join(home, 'tb'), 0o700)
  const start = await emitBounded(JSON.stringify(payload('fifoend0-1', 'UserPromptSubmit', { prompt_id: 'p1' })), env)
  finished(t, start, 'the emitter on the first event')
  // Planted after the first event, which clears a stale mark of a new session.
  mkfifo(join(dir, '.ended', 'fifoend0-1'))
  const end = await emitBounded(JSON.stringify(payload('fifoend0-1', 'SessionEnd', { reason: 'exit' })), env)
  finished(t, end, 'the emitter marking the end')
  t.equal(end.code, 0)
  t.notOk(fs.existsSync(join(dir, 'fifoend0-1.json.lock')), 'no lock left behind')
  const rec = JSON.parse(fs.readFileSync(join(dir, 'fifoend0-1.json'), 'utf8')) as { state: string }
  t.equal(rec.state, 'ended', 'the end is recorded')
})

t.test('the emitter with a FIFO as its log stays within its deadline', async (t) => {
  const home = tempDir(t)
  const env = homeEnv(home)
  fs.mkdirSync(join(home, 'tb'), { mode: 0o700 })
  mkfifo(join(home, 'tb', 'log'))
  const r = await emitBounded('not json', env)
  finished(t, r, 'the emitter')
  t.equal(r.code, 0)
})

t.test('settings files and the log as FIFOs: install, uninstall and doctor finish', async (t) => {
  const home = tempDir(t)
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(home, 'tb'),
    CLAUDE_CONFIG_DIR: join(home, 'claude'),
    NO_COLOR: '1',
  }
  fs.mkdirSync(join(home, 'claude'), { recursive: true })
  fs.mkdirSync(join(home, 'tb'), { mode: 0o700 })
  mkfifo(join(home, 'claude', 'settings.json'))
  mkfifo(join(home, 'tb', 'log'))
  for (const args of [['install'], ['uninstall'], ['install', '--dry-run'], ['doctor']]) {
    const r = await cliBounded(args, env)
    finished(t, r, args.join(' '))
    if (args[0] === 'install' || args[0] === 'uninstall') {
      t.equal(r.code, 1, `${args.join(' ')} refuses`)
      t.match(r.stderr, /not a regular file/, `${args.join(' ')} says why`)
    }
  }
  t.ok(fs.lstatSync(join(home, 'claude', 'settings.json')).isFIFO(), 'left untouched')
})

t.test('notify state and the screens cache as FIFOs: notify and ls finish', async (t) => {
  const { lab } = await labWithWait(t)
  const tb = String(lab.env.TRAILBOSS_HOME)
  mkfifo(join(tb, 'notify.json'))
  mkfifo(join(tb, 'screens.json'))
  const r = await cliBounded(['notify', '--exec', 'cat'], lab.env)
  finished(t, r, 'notify')
  const ls = await cliBounded(['ls', '--json'], lab.env)
  finished(t, ls, 'ls')
})
