// The caches under $TRAILBOSS_HOME (docs/queue.md, "Caches") only save work: a bad or foreign one
// (torn, of another version or shape, a link, a FIFO) is ignored, said once in the log and set
// right, and never fails a command. The commands run in-process, real files; TMUX_TMPDIR is
// private, so no other tmux server on the machine takes part.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { readCache } from '../lib/fs/cache-file.js'
import { withNotifyState } from '../lib/notify/state.js'
import { readOrigin } from '../lib/queue/origin.js'
import { readScreenCache, writeScreenCache } from '../lib/queue/screen-cache.js'
import { emitWait, makeHome, runInProcess, type Home } from './helpers/surfaces.js'

const SID = 'cache000-0000-4000-8000-000000000001'

const logLines = (home: Home): string[] => {
  try {
    return fs
      .readFileSync(join(home.tb, 'log'), 'utf8')
      .split('\n')
      .filter((l) => / ignored /.test(l))
  } catch {
    return []
  }
}

const setUp = async (root: string): Promise<{ home: Home; env: Record<string, string | undefined> }> => {
  const home = makeHome(root)
  fs.mkdirSync(join(root, 'tmux'), { recursive: true })
  const env = home.env({ TMUX_TMPDIR: join(root, 'tmux'), NO_COLOR: '1' })
  await emitWait(home, { session: SID, message: 'Done?' })
  return { home, env }
}

const queueOf = (stdout: string): string[] =>
  (JSON.parse(stdout) as { queue: { sessionId: string; state: string }[] }).queue.map((i) => `${i.sessionId} ${i.state}`)

t.test('one mis-shaped entry in discovery.json breaks no ls and no status, and is said once', async (t) => {
  const { home, env } = await setUp(t.testdir())
  // A Claude Code registry file to remember, and a memo of it that is not an object.
  fs.mkdirSync(join(home.claude, 'sessions'), { recursive: true })
  fs.writeFileSync(join(home.claude, 'sessions', '4194000.json'), '{}')
  const file = join(home.tb, 'discovery.json')
  fs.writeFileSync(file, JSON.stringify({ registry: { 'claude-code': 5 }, panes: {}, screens: {}, asks: {}, waits: {} }), { mode: 0o600 })
  const ls = await runInProcess(['ls', '--json'], env)
  t.equal(ls.stderr, '', 'nothing on the terminal')
  t.equal(ls.code, 0)
  t.same(queueOf(ls.stdout), [`${SID} waiting`])
  const status = await runInProcess(['status'], env)
  t.equal(status.code, 0, status.stderr)
  t.match(status.stdout, /1/, 'status counts the wait')
  t.equal(logLines(home).length, 1, 'said once in the log')
  t.match(logLines(home)[0], `ignored ${file} (not a cache of this version and shape)`)
  t.match(JSON.parse(fs.readFileSync(file, 'utf8')), { v: 1, registry: { 'claude-code': {} } }, 'rewritten')
  t.equal((await runInProcess(['ls', '--json'], env)).code, 0)
  t.equal(logLines(home).length, 1, 'not said again')
})

interface Bad {
  name: string
  plant: (file: string) => void
}
const BAD: Bad[] = [
  { name: 'torn', plant: (f) => fs.writeFileSync(f, '{"v":1,"entr', { mode: 0o600 }) },
  { name: 'of another version', plant: (f) => fs.writeFileSync(f, '{"v":99}', { mode: 0o600 }) },
  { name: 'of another shape', plant: (f) => fs.writeFileSync(f, '[1,2,3]', { mode: 0o600 }) },
  { name: 'a FIFO', plant: (f) => execFileSync('mkfifo', [f]) },
  {
    name: 'a link',
    plant: (f) => {
      fs.writeFileSync(`${f}.elsewhere`, '{}')
      fs.symlinkSync(`${f}.elsewhere`, f)
    },
  },
]

// Every cache ls and status read here, where a bad one lies (screens.json only with a pane to capture: below).
const CACHES = ['discovery.json', 'transcripts.json', 'records.json', 'numbers.json', `seen/${SID}.json`]

t.test('a bad cache of any kind: ls and status as without one, said once, set right', async (t) => {
  for (const cache of CACHES) {
    for (const bad of BAD) {
      const { home, env } = await setUp(t.testdir())
      const file = join(home.tb, cache)
      fs.mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 })
      bad.plant(file)
      const ls = await runInProcess(['ls', '--json'], env)
      t.equal(ls.code, 0, `${cache}, ${bad.name}: ls runs`)
      t.equal(ls.stderr, '', `${cache}, ${bad.name}: nothing on the terminal`)
      t.same(queueOf(ls.stdout), [`${SID} waiting`], `${cache}, ${bad.name}: the same queue`)
      t.equal((await runInProcess(['status'], env)).code, 0, `${cache}, ${bad.name}: status runs`)
      t.same(
        logLines(home).map((l) => l.includes(`ignored ${file} `)),
        [true],
        `${cache}, ${bad.name}: said once in the log`,
      )
      const after = fs.lstatSync(file, { throwIfNoEntry: false })
      t.ok(after === undefined || after.isFile(), `${cache}, ${bad.name}: removed or rewritten`)
      if (bad.name === 'a link') t.equal(fs.readFileSync(`${file}.elsewhere`, 'utf8'), '{}', 'the link was not followed')
    }
  }
})

t.test("screens, back's origin and notify's memory: a bad file is none, said once, set right", async (t) => {
  const home = makeHome(t.testdir())
  const env = home.env()
  fs.mkdirSync(home.tb, { mode: 0o700 })
  fs.writeFileSync(join(home.tb, 'screens.json'), JSON.stringify({ [SID]: { at: 1, lastEventAt: 1, verdict: 'working' } }))
  t.same(readScreenCache(env), {}, 'screens of no version are none')
  t.equal(fs.existsSync(join(home.tb, 'screens.json')), false, 'and removed')
  writeScreenCache(env, { [SID]: { at: 1, lastEventAt: 1, verdict: 'working' } })
  t.same(readScreenCache(env), { [SID]: { at: 1, lastEventAt: 1, verdict: 'working' } }, 'read back as written')
  t.equal(logLines(home).length, 1)
  fs.mkdirSync(join(home.tb, 'back'), { recursive: true, mode: 0o700 })
  const origin = { socket: '/s', client: '/dev/pts/1', pane: '%3', at: 5 }
  const { writeOrigin } = await import('../lib/queue/origin.js')
  t.ok(writeOrigin(env, origin))
  t.same(readOrigin(env, '/s', '/dev/pts/1'), origin, 'read back as written')
  const [name] = fs.readdirSync(join(home.tb, 'back'))
  const file = join(home.tb, 'back', name ?? '')
  fs.writeFileSync(file, JSON.stringify(origin))
  t.equal(readOrigin(env, '/s', '/dev/pts/1'), null, 'an origin of no version is none')
  t.equal(fs.existsSync(file), false, 'and is removed')
  t.equal(logLines(home).length, 2)

  const notify = join(home.tb, 'notify.json')
  fs.writeFileSync(notify, '{"v":1,"told":{"":["a@1",3]}}', { mode: 0o600 })
  const seen = await withNotifyState(env, async (state) => ({ next: null, result: state.told }))
  t.same(seen, {}, 'a damaged memory starts afresh')
  t.same(JSON.parse(fs.readFileSync(notify, 'utf8')), { v: 1, told: {} }, 'and is rewritten under its lock')
  t.equal(logLines(home).length, 3, 'said once')
  await withNotifyState(env, async () => ({ next: null, result: null }))
  t.equal(logLines(home).length, 3, 'not again')
})

t.test('readCache: missing is none and quiet; a foreign home is never repaired', async (t) => {
  const home = makeHome(t.testdir())
  const env = home.env()
  const c = { file: join(home.tb, 'x.json'), dir: home.tb, check: (v: unknown) => v === 1, tmpPrefix: '.x' }
  t.same(readCache(env, c), { value: null, text: '', bad: null })
  fs.mkdirSync(home.tb, { mode: 0o700 })
  fs.writeFileSync(c.file, '1')
  t.same(readCache(env, c), { value: 1, text: '1', bad: null })
  fs.writeFileSync(c.file, '2')
  t.same(readCache(env, c, { repair: false, log: false }), { value: null, text: '', bad: 'not a cache of this version and shape' })
  t.equal(fs.readFileSync(c.file, 'utf8'), '2', 'left for its writer')
  t.same(logLines(home), [], 'and not said')
})
