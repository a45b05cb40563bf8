import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { CLI, runInProcess } from './helpers/cli.js'
import { startLab } from './helpers/session-lab.js'

t.test('gc retires ended and gone sessions, and only those', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const live = lab.newPane()
  await lab.emit('ended000-1', 'SessionEnd', { reason: 'other' }, { pane: live })
  await lab.emit('gone0000-1', 'Stop', { prompt_id: 'p' }, { pane: '%999' })
  await lab.emit('waiting0-1', 'Stop', { prompt_id: 'p' }, { pane: live })
  await lab.emit('headless-1', 'UserPromptSubmit', { prompt_id: 'p' }, { headless: true })
  const dir = join(String(lab.env.TRAILBOSS_HOME), 'sessions')
  // A stale lock and a leftover temp file, as a killed writer leaves them.
  fs.mkdirSync(join(dir, 'waiting0-1.json.lock'))
  fs.writeFileSync(join(dir, '.tmp', 'waiting0-1.1.aa.tmp'), '{')
  // A mark whose record was removed by hand: gc clears it, never a mark with its record.
  fs.writeFileSync(join(dir, '.ended', 'orphan00-1'), '')
  t.same([...fs.readdirSync(join(dir, '.ended'))].sort(), ['ended000-1', 'orphan00-1'])
  const old = new Date(Date.now() - 60_000)
  fs.utimesSync(join(dir, 'waiting0-1.json.lock'), old, old)
  fs.utimesSync(join(dir, '.tmp', 'waiting0-1.1.aa.tmp'), old, old)

  const dry = await runInProcess(['gc', '--older-than', '0s', '--dry-run'], lab.env)
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, /would remove ended000 \(ended/)
  t.match(dry.stdout, /would remove gone0000 \(gone/)
  t.match(dry.stdout, /would remove headless \(working/, 'a quiet headless run, whose last hooks never came')
  t.notMatch(dry.stdout, /waiting0 \(/)
  t.ok(fs.existsSync(join(dir, 'ended000-1.json')), 'dry run removes nothing')

  const defaults = await runInProcess(['gc'], lab.env)
  t.notMatch(defaults.stdout, /removed \w+ \(/, 'the default threshold (7d) keeps fresh sessions')
  t.match(defaults.stdout, /removed leftover .*waiting0-1\.json\.lock/, 'but clears stale leftovers')
  t.match(defaults.stdout, /removed leftover .*waiting0-1\.1\.aa\.tmp/)
  t.match(defaults.stdout, /removed leftover .*\.ended\/orphan00-1/)
  t.same(fs.readdirSync(join(dir, '.ended')), ['ended000-1'], 'the mark of a record that is there stays')
  const r = await runInProcess(['gc', '--older-than', '0s'], lab.env)
  t.match(r.stdout, /removed ended000/)
  t.same(
    fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort(),
    ['waiting0-1.json'],
  )
  t.same(fs.readdirSync(join(dir, '.tmp')), [])
  t.same(fs.readdirSync(join(dir, '.ended')), [], 'a retired session loses its mark')
  t.match(fs.readFileSync(join(String(lab.env.TRAILBOSS_HOME), 'log'), 'utf8'), /gc\[\d+\] removed session ended000-1/)
  const ls = JSON.parse((await runInProcess(['ls', '--json'], lab.env)).stdout) as { queue: { sessionId: string }[] }
  t.same(
    ls.queue.map((i) => i.sessionId),
    ['waiting0-1'],
    'the wait is untouched',
  )
})

t.test('gc runs under umask 077, so the lock folders it makes are private', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  await lab.emit('ended000-2', 'SessionEnd', { reason: 'other' }, { pane: lab.newPane() })
  const seen = join(lab.root, 'umask-at-exit')
  // A permissive umask, as a shell may have; the lock folder exists only while gc retires.
  const script = `process.umask(0); process.argv = [process.argv[0], ${JSON.stringify(CLI)}, 'gc', '--older-than', '0s']; process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(seen)}, process.umask().toString(8))); require(${JSON.stringify(CLI)})`
  const out = execFileSync(process.execPath, ['-e', script], { env: lab.env as NodeJS.ProcessEnv, encoding: 'utf8' })
  t.match(out, /removed ended000/)
  t.equal(fs.readFileSync(seen, 'utf8'), '77')
})
