// The seen store ($TRAILBOSS_HOME/seen/): private files, one per session, and the pure rule that
// marks a wait seen once its pane has been in front of the person for a while.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import {
  deriveSeenUpdate,
  parseSeenMark,
  readSeenMarks,
  removeSeenMark,
  SEEN_AFTER_ACTIVE_MS,
  seenDir,
  writeSeenMark,
  type SeenMark,
} from '../lib/queue/seen.js'
import { tempDir } from './helpers/emitter.js'
import { emitWait, makeHome, runInProcess } from './helpers/surfaces.js'

t.test('parseSeenMark takes ours and skips anything else', async (t) => {
  t.same(parseSeenMark('{"v":1,"since":5,"seenAt":9,"activeAt":null}'), { since: 5, seenAt: 9, activeAt: null })
  const bad = [
    '',
    'null',
    '[]',
    '{"v":1,"since":"5","seenAt":null,"activeAt":null}',
    '{"v":1,"since":5}',
    '{"since":5,"seenAt":9,"activeAt":null}',
    '{"v":2,"since":5,"seenAt":9,"activeAt":null}',
    'not json',
    '{"v":1,"since":1e999,"seenAt":null,"activeAt":null}',
  ]
  for (const text of bad) t.equal(parseSeenMark(text), null, text)
})

t.test('marks: written 0600 in a 0700 folder, read back, foreign files skipped, ids checked', async (t) => {
  const root = tempDir(t)
  const env = { TRAILBOSS_HOME: join(root, 'tb'), HOME: root }
  fs.mkdirSync(join(root, 'tb', 'sessions'), { recursive: true, mode: 0o700 })
  t.same([...readSeenMarks(env, ['a'])], [], 'no folder yet: no marks')
  t.ok(writeSeenMark(env, 'sess-1', { since: 10, seenAt: 20, activeAt: null }))
  t.equal(fs.statSync(seenDir(env)).mode & 0o777, 0o700)
  t.equal(fs.statSync(join(seenDir(env), 'sess-1.json')).mode & 0o777, 0o600)
  fs.writeFileSync(join(seenDir(env), 'sess-2.json'), 'garbage')
  fs.symlinkSync('/etc/passwd', join(seenDir(env), 'sess-3.json'))
  const marks = readSeenMarks(env, ['sess-1', 'sess-2', 'sess-3', 'sess-4'])
  t.same([...marks], [['sess-1', { since: 10, seenAt: 20, activeAt: null }]], 'a corrupt file and a link are skipped')
  t.equal(writeSeenMark(env, '../evil', { since: 1, seenAt: 1, activeAt: null }), false, 'a bad id never names a file')
  t.notOk(fs.existsSync(join(root, 'tb', 'evil.json')))
  removeSeenMark(env, 'sess-1')
  t.notOk(fs.existsSync(join(seenDir(env), 'sess-1.json')))
})

t.test('many writers of one mark: every read finds a whole mark', async (t) => {
  const root = tempDir(t)
  const env = { TRAILBOSS_HOME: join(root, 'tb'), HOME: root }
  fs.mkdirSync(join(root, 'tb', 'sessions'), { recursive: true, mode: 0o700 })
  for (let i = 0; i < 200; i++) {
    writeSeenMark(env, 'same', { since: i, seenAt: i, activeAt: null })
    const m = readSeenMarks(env, ['same']).get('same')
    t.equal(m?.since, i)
  }
  t.same(fs.readdirSync(seenDir(env)), ['same.json'], 'no temp file left behind')
})

t.test('deriveSeenUpdate: in front for a while means seen; a break starts over', async (t) => {
  const A = SEEN_AFTER_ACTIVE_MS
  const none = new Map<string, SeenMark>()
  t.same([...deriveSeenUpdate([{ sessionId: 'a', since: 100, inFront: false }], none, 1000)], [], 'not in front, no mark: nothing to write')
  t.same(
    [...deriveSeenUpdate([{ sessionId: 'a', since: 100, inFront: true }], none, 1000)],
    [['a', { since: 100, seenAt: null, activeAt: 1000 }]],
    'first seen in front: noted',
  )
  const noted = new Map([['a', { since: 100, seenAt: null, activeAt: 1000 }]])
  t.same([...deriveSeenUpdate([{ sessionId: 'a', since: 100, inFront: true }], noted, 1000 + A - 1)], [], 'not long enough yet')
  t.same(
    [...deriveSeenUpdate([{ sessionId: 'a', since: 100, inFront: true }], noted, 1000 + A)],
    [['a', { since: 100, seenAt: 1000 + A, activeAt: 1000 }]],
    'long enough: seen',
  )
  t.same(
    [...deriveSeenUpdate([{ sessionId: 'a', since: 100, inFront: false }], noted, 1000 + A)],
    [['a', { since: 100, seenAt: null, activeAt: null }]],
    'moved away before: the note is dropped',
  )
  const seen = new Map([['a', { since: 100, seenAt: 5000, activeAt: 1000 }]])
  t.same([...deriveSeenUpdate([{ sessionId: 'a', since: 100, inFront: false }], seen, 9000)], [], 'seen stays seen')
  t.same(
    [...deriveSeenUpdate([{ sessionId: 'a', since: 200, inFront: true }], seen, 9000)],
    [['a', { since: 200, seenAt: null, activeAt: 9000 }]],
    'a new wait starts over',
  )
  t.same(
    [...deriveSeenUpdate([{ sessionId: 'a', since: 200, inFront: true }], noted, 9000)],
    [['a', { since: 200, seenAt: null, activeAt: 9000 }]],
    "an old wait's note does not count for a new wait",
  )
})

t.test('gc removes the seen mark of a session it retires', async (t) => {
  const home = makeHome(tempDir(t))
  // A pane on a server whose socket is gone: the session is gone, and gc retires it.
  await emitWait(home, { session: 'gone-1', message: 'Shall I?', tmux: { env: `${join(home.root, 'no-socket')},1,0`, pane: '%1' } })
  const env = home.env()
  t.ok(writeSeenMark(env, 'gone-1', { since: 1, seenAt: 2, activeAt: null }))
  t.ok(writeSeenMark(env, 'other-1', { since: 1, seenAt: 2, activeAt: null }))
  const r = await runInProcess(['gc', '--older-than', '0s'], env)
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /removed gone-1/)
  t.same(fs.readdirSync(seenDir(env)), ['other-1.json'], "only the retired session's mark is removed")
})
