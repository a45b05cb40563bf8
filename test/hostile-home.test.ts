// Issue #13, a foreign TRAILBOSS_HOME: a folder of another user (who may plant links and
// records) is refused for every write, the log included; nothing is written through a link;
// records another user planted in our own folder are skipped; the CLI says so once, and
// doctor explains. Needs root to make files of another user (CI runs as root).
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { cliBounded, emitBounded } from './helpers/bounded.js'
import { payload, tempDir } from './helpers/emitter.js'
import { homeEnv } from './helpers/hostile.js'

const OTHER_UID = 4242
const isRoot = process.getuid?.() === 0

t.test(
  'a home of another user: no record, no log line through a planted link',
  { skip: isRoot ? false : 'making a folder of another user needs root' },
  async (t) => {
    const home = tempDir(t)
    const env = homeEnv(home)
    const tb = join(home, 'tb')
    fs.mkdirSync(join(tb, 'sessions'), { recursive: true, mode: 0o755 })
    const victim = join(home, 'victim.txt')
    fs.writeFileSync(victim, 'original\n')
    fs.symlinkSync(victim, join(tb, 'log'))
    execFileSync('chown', ['-R', `${OTHER_UID}:${OTHER_UID}`, tb])
    fs.chmodSync(tb, 0o755)
    for (const input of ['not json', JSON.stringify(payload('foreign0-1', 'UserPromptSubmit', { prompt_id: 'p' }))]) {
      const r = await emitBounded(input, env)
      t.notOk(r.hung, 'the emitter finishes')
      t.equal(r.code, 0)
      t.equal(r.stdout + r.stderr, '', 'silent')
    }
    t.equal(fs.readFileSync(victim, 'utf8'), 'original\n', 'the log link was not followed')
    t.notOk(fs.existsSync(join(tb, 'sessions', 'foreign0-1.json')), 'no record written')
    t.equal((fs.statSync(tb).mode & 0o777).toString(8), '755', 'the folder of another user is not changed')
    t.equal(fs.statSync(tb).uid, OTHER_UID)

    // A record the other user planted is not shown; the CLI says why, once.
    const elsewhere = tempDir(t)
    await emitBounded(JSON.stringify(payload('planted0-1', 'UserPromptSubmit', { prompt_id: 'p' })), homeEnv(elsewhere))
    fs.copyFileSync(join(elsewhere, 'tb', 'sessions', 'planted0-1.json'), join(tb, 'sessions', 'planted0-1.json'))
    fs.chownSync(join(tb, 'sessions', 'planted0-1.json'), OTHER_UID, OTHER_UID)
    const ls = await cliBounded(['ls', '--json', '--all'], env)
    t.notOk(ls.hung)
    t.notMatch(ls.stdout, /planted0-1"/, 'records in a foreign home are not listed')
    const lines = ls.stderr.split('\n').filter((l) => /another user/.test(l))
    t.equal(lines.length, 1, `said once: ${ls.stderr}`)
    const gc = await cliBounded(['gc', '--older-than', '0s'], env)
    t.notOk(gc.hung)
    t.notOk(
      fs.readdirSync(tb).some((n) => n !== 'log' && n !== 'sessions'),
      'gc writes nothing there either',
    )
    t.equal(fs.readFileSync(victim, 'utf8'), 'original\n', 'gc did not log through the link')
    const doctor = await cliBounded(['doctor'], env)
    t.notOk(doctor.hung)
    t.match(doctor.stdout, /another user/, 'doctor explains')
  },
)

t.test(
  'a record another user planted in our own folder is skipped with why',
  { skip: isRoot ? false : 'making a file of another user needs root' },
  async (t) => {
    const home = tempDir(t)
    const env = homeEnv(home)
    const dir = join(home, 'tb', 'sessions')
    const r = await emitBounded(JSON.stringify(payload('mine0000-1', 'UserPromptSubmit', { prompt_id: 'p' })), env)
    t.equal(r.code, 0)
    const mine = fs.readFileSync(join(dir, 'mine0000-1.json'), 'utf8')
    fs.writeFileSync(join(dir, 'planted0-2.json'), mine.replaceAll('mine0000-1', 'planted0-2'), { mode: 0o600 })
    fs.chownSync(join(dir, 'planted0-2.json'), OTHER_UID, OTHER_UID)
    const ls = await cliBounded(['ls', '--json', '--all'], env)
    t.equal(ls.code, 0, ls.stderr)
    const out = JSON.parse(ls.stdout) as { queue: unknown[]; skipped: { file: string; why: string }[] }
    t.notMatch(JSON.stringify(out.queue), /planted0-2/)
    t.match(out.skipped, [{ file: /planted0-2\.json$/, why: /another user/ }])
    t.match(ls.stdout, /mine0000-1/)
  },
)

t.test('a log that is a symlink in our own home is not followed', async (t) => {
  const home = tempDir(t)
  const env = homeEnv(home)
  const tb = join(home, 'tb')
  fs.mkdirSync(tb, { mode: 0o700 })
  const victim = join(home, 'victim.txt')
  fs.writeFileSync(victim, 'original\n')
  fs.symlinkSync(victim, join(tb, 'log'))
  const r = await emitBounded('not json', env)
  t.equal(r.code, 0)
  t.equal(fs.readFileSync(victim, 'utf8'), 'original\n')
})
