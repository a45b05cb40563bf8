import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { applyEvent } from '../lib/record/fold.js'
import { readStore } from '../lib/record/read.js'
import { deriveFileStamp, isSettled, parseSnapshot, SETTLED_MS, SNAPSHOT_VERSION, snapshotFile } from '../lib/record/snapshot.js'
import type { SessionRecord } from '../lib/record/types.js'
import { hookEvent } from './helpers/hook-event.js'
import { waitFor } from './helpers/wait-for.js'
import { hooksFor } from '../lib/agents/hook-registry.js'
import { sessionsDir } from '../lib/paths.js'

const recordOf = (id: string, message: string): SessionRecord =>
  applyEvent(null, hookEvent({ stamp: 1000, name: 'Stop', sessionId: id, promptId: 'p', message }), hooksFor)

/** A home holding these records; `home` given, one of several in the test's folder. */
const homeWith = (
  t: Test,
  ids: Record<string, string>,
  home = t.testdir(),
): { home: string; dir: string; env: { TRAILBOSS_HOME: string }; file: (id: string) => string } => {
  const dir = join(home, 'sessions')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = (id: string): string => join(dir, `${id}.json`)
  for (const [id, message] of Object.entries(ids)) fs.writeFileSync(file(id), JSON.stringify(recordOf(id, message)), { mode: 0o600 })
  return { home, dir, env: { TRAILBOSS_HOME: home }, file }
}

/** The file's ctime is SETTLED_MS in the past: a run now may remember it. */
const settled = (path: string): Promise<void> =>
  waitFor(() => isSettled(fs.statSync(path, { bigint: true }).ctimeNs, Date.now()), `${path} settled`, SETTLED_MS + 5000)

const entriesOf = (home: string): Record<string, { k: string; r: SessionRecord }> =>
  (JSON.parse(fs.readFileSync(join(home, 'records.json'), 'utf8')) as { entries: Record<string, { k: string; r: SessionRecord }> }).entries

/** Changes what the snapshot remembers of `id` (not its file): a run that shows it took the snapshot. */
const plantInSnapshot = (home: string, id: string, message: string): void => {
  const text = fs.readFileSync(join(home, 'records.json'), 'utf8')
  const v = JSON.parse(text) as { entries: Record<string, { r: SessionRecord }> }
  const entry = v.entries[id]
  if (!entry) throw new Error(`no entry for ${id}`)
  entry.r = { ...entry.r, message }
  fs.writeFileSync(join(home, 'records.json'), JSON.stringify(v), { mode: 0o600 })
}

const messages = async (env: { TRAILBOSS_HOME: string }): Promise<Record<string, string | null>> =>
  Object.fromEntries((await readStore(env, sessionsDir(env), { agents: hooksFor })).records.map((r) => [r.sessionId, r.message]))

t.test('pure parts: the stamp, the settled guard, what a snapshot file may hold', async (t) => {
  const st = { dev: 1n, ino: 2n, size: 3n, mtimeNs: 4n, ctimeNs: 5n }
  t.equal(deriveFileStamp(st), '1:2:3:4:5')
  t.not(deriveFileStamp({ ...st, ctimeNs: 6n }), deriveFileStamp(st), 'a new ctime is a new stamp')
  const now = 1_000_000
  t.ok(isSettled(BigInt(now - SETTLED_MS) * 1_000_000n, now))
  t.notOk(isSettled(BigInt(now - SETTLED_MS + 1) * 1_000_000n, now), 'changed within the guard: read every run')
  const rec = recordOf('a', 'hi')
  const good = JSON.stringify({ v: SNAPSHOT_VERSION, dir: '/d', entries: { a: { k: 'x', r: rec } } })
  t.equal(parseSnapshot(good, '/d')?.entries.get('a')?.r.message, 'hi')
  t.equal(parseSnapshot(good, '/other'), null, 'a snapshot of another folder is none')
  t.equal(parseSnapshot(JSON.stringify({ v: SNAPSHOT_VERSION + 1, dir: '/d', entries: {} }), '/d'), null, 'another version is none')
  t.equal(parseSnapshot('{"v":1,"dir":"/d","entr', '/d'), null, 'a torn file is none')
  t.equal(parseSnapshot('[1]', '/d'), null)
  const foreign = JSON.stringify({
    v: SNAPSHOT_VERSION,
    dir: '/d',
    entries: { a: { k: 'x', r: recordOf('b', 'hi') }, c: { k: 1, r: rec }, d: null },
  })
  t.equal(parseSnapshot(foreign, '/d'), null, 'a snapshot with entries of the wrong shape is none')
  const misfiled = JSON.stringify({
    v: SNAPSHOT_VERSION,
    dir: '/d',
    entries: { a: { k: 'x', r: recordOf('b', 'hi') }, b: { k: 'y', r: recordOf('b', 'hi') } },
  })
  t.same([...(parseSnapshot(misfiled, '/d')?.entries.keys() ?? [])], ['b'], 'an entry under another id is dropped')
})

t.test('a settled record is remembered, then taken from the snapshot while its file is unchanged', async (t) => {
  const { home, env, file } = homeWith(t, { 'sess-a': 'from the file', 'sess-b': 'b' })
  await settled(file('sess-a'))
  t.same(await messages(env), { 'sess-a': 'from the file', 'sess-b': 'b' })
  const entries = entriesOf(home)
  t.same(Object.keys(entries).sort(), ['sess-a', 'sess-b'])
  t.equal(entries['sess-a']?.k, deriveFileStamp(fs.lstatSync(file('sess-a'), { bigint: true })))
  t.equal(fs.statSync(snapshotFile(env)).mode & 0o777, 0o600, 'the snapshot is private')
  plantInSnapshot(home, 'sess-a', 'from the snapshot')
  t.equal((await messages(env))['sess-a'], 'from the snapshot', 'an unchanged file is not read again')
  const before = fs.statSync(snapshotFile(env), { bigint: true })
  await readStore(env, sessionsDir(env), { agents: hooksFor })
  t.equal(fs.statSync(snapshotFile(env), { bigint: true }).ino, before.ino, 'an unchanged snapshot is not written again')
  fs.rmSync(file('sess-b'))
  t.same(await messages(env), { 'sess-a': 'from the snapshot' })
  t.same(Object.keys(entriesOf(home)), ['sess-a'], 'the entry of a file gone is dropped')
})

t.test('a young record is read every run; one rewritten in place at the same size is seen', async (t) => {
  const { home, env, file } = homeWith(t, { 'sess-a': 'one' })
  t.equal((await messages(env))['sess-a'], 'one')
  t.notOk(fs.existsSync(join(home, 'records.json')), 'a record changed within the guard is not remembered')
  // Same size, same mtime (a coarse clock's tick): only a fresh read can see it.
  const mtime = fs.statSync(file('sess-a')).mtime
  fs.writeFileSync(file('sess-a'), JSON.stringify(recordOf('sess-a', 'two')))
  fs.utimesSync(file('sess-a'), mtime, mtime)
  t.equal((await messages(env))['sess-a'], 'two')
  // Once remembered, a rewrite in place moves the ctime, whatever mtime it is given.
  await settled(file('sess-a'))
  await readStore(env, sessionsDir(env), { agents: hooksFor })
  t.ok(entriesOf(home)['sess-a'])
  fs.writeFileSync(file('sess-a'), JSON.stringify(recordOf('sess-a', 'six')))
  fs.utimesSync(file('sess-a'), mtime, mtime)
  t.equal((await messages(env))['sess-a'], 'six')
  t.notOk(entriesOf(home)['sess-a'], 'the changed file is not remembered until it settles again')
})

t.test('a remembered record replaced by rename, by a link, by a FIFO, by a corrupt file', async (t) => {
  const { home, dir, env, file } = homeWith(t, { 'sess-r': 'r', 'sess-l': 'l', 'sess-f': 'f', 'sess-c': 'c' })
  await settled(file('sess-c'))
  await readStore(env, sessionsDir(env), { agents: hooksFor })
  t.same(Object.keys(entriesOf(home)).sort(), ['sess-c', 'sess-f', 'sess-l', 'sess-r'])
  fs.writeFileSync(join(dir, 'tmp'), JSON.stringify(recordOf('sess-r', 'renamed')))
  fs.renameSync(join(dir, 'tmp'), file('sess-r'))
  // The link points at a good record of the same session: still refused, as without a snapshot.
  fs.writeFileSync(join(home, 'target.json'), JSON.stringify(recordOf('sess-l', 'l')))
  fs.rmSync(file('sess-l'))
  fs.symlinkSync(join(home, 'target.json'), file('sess-l'))
  fs.rmSync(file('sess-f'))
  execFileSync('mkfifo', [file('sess-f')])
  fs.writeFileSync(file('sess-c'), '{"v":1,"sessionId":"sess-c"}')
  // Both runs read by the clock of the rename: on a loaded machine the second may start more
  // than the settling time after it, and the renamed record would then rightly be remembered.
  const renamedAt = Date.now()
  for (let run = 0; run < 2; run++) {
    const store = await readStore(env, sessionsDir(env), { agents: hooksFor, now: renamedAt })
    t.same(
      store.records.map((r) => [r.sessionId, r.message]),
      [['sess-r', 'renamed']],
      `run ${run}`,
    )
    const why = new Map(store.skipped.map((s) => [s.file, s.why]))
    t.same([...why.keys()].sort(), [file('sess-c'), file('sess-f'), file('sess-l')], `run ${run}: each refused file reported`)
    t.equal(why.get(file('sess-f')), 'a FIFO, not a regular file')
    t.equal(why.get(file('sess-l')), 'a symlink, not followed')
  }
  t.same(Object.keys(entriesOf(home)), [], 'only the young renamed record is left, and it is not remembered yet')
})

t.test("a corrupt, unreadable or other home's snapshot is none", async (t) => {
  const root = t.testdir()
  const a = homeWith(t, { 'sess-a': 'home a' }, join(root, 'a'))
  await settled(a.file('sess-a'))
  await readStore(a.env, sessionsDir(a.env), { agents: hooksFor })
  plantInSnapshot(a.home, 'sess-a', 'planted')
  const b = homeWith(t, { 'sess-a': 'home b' }, join(root, 'b'))
  fs.copyFileSync(join(a.home, 'records.json'), join(b.home, 'records.json'))
  t.equal((await messages(b.env))['sess-a'], 'home b', 'a snapshot copied from another home is not used')
  fs.writeFileSync(join(a.home, 'records.json'), '{"v":1,"dir":', { mode: 0o600 })
  t.equal((await messages(a.env))['sess-a'], 'home a', 'a corrupt snapshot: the files are read')
  t.equal(entriesOf(a.home)['sess-a']?.r.message, 'home a', 'and a good one is written')
  fs.rmSync(join(a.home, 'records.json'))
  execFileSync('mkfifo', [join(a.home, 'records.json')])
  t.equal((await messages(a.env))['sess-a'], 'home a', 'a FIFO in its place: never blocks, never an error')
  fs.rmSync(join(a.home, 'records.json'))
  fs.mkdirSync(join(a.home, 'records.json'))
  t.equal((await messages(a.env))['sess-a'], 'home a', 'a folder in its place, which cannot be replaced either')
})
