import * as fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { QueueItem } from '../lib/queue/derive.js'
import { DEFAULT_STATUS_FORMAT, deriveSummary, formatKinds, formatSegment } from '../lib/render/status-segment.js'
import { emitWait, makeHome, runCli } from './helpers/surfaces.js'

const NOW = Date.parse('2026-01-01T12:00:00Z')

const wait = (id: string, n: number | null, kind: QueueItem['kind'], ageMs: number, seen = false): QueueItem =>
  ({
    n,
    sessionId: id,
    state: n === null ? 'working' : kind === 'permission' ? 'permission' : 'waiting',
    kind,
    since: NOW - ageMs,
    headless: false,
    needsYou: n !== null && kind !== 'done',
    seen,
  }) as QueueItem

t.test('deriveSummary counts the waits that need you by kind and finds the oldest', async (t) => {
  const q = [
    wait('a', 1, 'done', 600_000),
    wait('b', 2, 'permission', 30_000),
    wait('c', 3, 'question', 5_000),
    wait('d', null, null, 1e9),
    wait('e', 4, 'error', 900_000, true),
  ]
  const s = deriveSummary(q, NOW)
  t.equal(s.count, 3, 'the finished turn does not count; the seen error does (a glance is not an answer)')
  t.equal(s.oldestMs, 900_000)
  t.same(s.byKind, { permission: 1, question: 1, error: 1, interrupted: 0, done: 0 })
  t.equal(s.urgent, 'permission')
  t.equal(formatKinds(s), '1 permission, 1 question, 1 error')
  const all = deriveSummary(q, NOW, { all: true })
  t.equal(all.count, 4, '--all: the finished turn counts too')
  t.equal(all.oldestMs, 900_000)
  t.same(all.byKind, { permission: 1, question: 1, error: 1, interrupted: 0, done: 1 })
  t.equal(formatKinds(all), '1 permission, 1 question, 1 error, 1 done')
  const others = deriveSummary(q, NOW, { excludeSessionId: 'b' })
  t.equal(others.count, 2, 'a statusline inside session b counts the others')
  t.equal(others.oldestMs, 900_000)
  t.same(deriveSummary([], NOW), {
    count: 0,
    oldestMs: 0,
    byKind: { permission: 0, question: 0, error: 0, interrupted: 0, done: 0 },
    urgent: null,
    hosts: [],
  })
  t.same(deriveSummary([wait('a', 1, 'done', 1000)], NOW).count, 0, 'only finished turns: nothing needs you')
})

t.test('formatKinds: words, plural where English has one', async (t) => {
  const many = deriveSummary(
    [
      wait('a', 1, 'permission', 1),
      wait('b', 2, 'permission', 1),
      wait('c', 3, 'question', 1),
      wait('d', 4, 'question', 1),
      wait('e', 5, 'interrupted', 1),
      wait('f', 6, 'interrupted', 1),
      wait('g', 7, 'error', 1),
      wait('h', 8, 'error', 1),
      wait('i', 9, 'done', 1),
      wait('j', 10, 'done', 1),
    ],
    NOW,
    { all: true },
  )
  t.equal(formatKinds(many), '2 permissions, 2 questions, 2 errors, 2 interrupted, 2 done')
})

t.test('formatSegment: empty for none; default, custom and tmux formats', async (t) => {
  const none = deriveSummary([], NOW)
  const one = deriveSummary([wait('a', 1, 'question', 42_000)], NOW)
  const many = deriveSummary([wait('a', 1, 'done', 3_600_000), wait('b', 2, 'error', 60_000), wait('c', 3, 'error', 1_000)], NOW, {
    all: true,
  })
  t.equal(DEFAULT_STATUS_FORMAT, '{count} waiting · {oldest}')
  t.equal(formatSegment(none), '')
  t.equal(formatSegment(none, '{count}', { tmux: true }), '', 'nothing waits: nothing at all, not even colour codes')
  t.equal(formatSegment(one), '1 waiting · 42s')
  t.equal(formatSegment(many), '3 waiting · 1h')
  t.equal(formatSegment(many, '{count} wait{s} ({kinds})'), '3 waits (2 errors, 1 done)')
  t.equal(formatSegment(one, '{count} wait{s}'), '1 wait')
  t.equal(formatSegment(many, 'E{error} D{done} P{permission} {nope}'), 'E2 D1 P0 {nope}', 'an unknown name stays visible')
  t.equal(formatSegment(one, undefined, { tmux: true }), '#[fg=cyan,bold]1 waiting · 42s#[default]')
  t.equal(formatSegment(many, '{count}', { tmux: true }), '#[fg=red,bold]3#[default]', 'the colour of the most urgent kind')
})

t.test('trailboss status, built, for 0, 1 and many waits', async (t) => {
  const home = makeHome(t.testdir())
  const empty = await runCli(['status'], home.env())
  t.same(empty, { code: 0, stdout: '', stderr: '' }, 'nothing waits: empty output, exit 0')

  await emitWait(home, { session: 'aaaa-one', cwd: '/tmp/alpha', message: 'Shall I?' })
  const one = await runCli(['status'], home.env())
  t.equal(one.code, 0)
  t.match(one.stdout, /^1 waiting · \d+s\n$/)
  t.equal(one.stderr, '')

  await emitWait(home, { session: 'bbbb-two', event: 'PermissionRequest' })
  await emitWait(home, { session: 'cccc-three', message: 'Done.' })
  const many = await runCli(['status', '--format', '{count}:{kinds}'], home.env())
  t.equal(many.stdout, '2:1 permission, 1 question\n', 'the finished turn is not counted')
  const all = await runCli(['status', '--all', '--format', '{count}:{kinds}'], home.env())
  t.equal(all.stdout, '3:1 permission, 1 question, 1 done\n', '--all counts it')
  const tmux = await runCli(['status', '--tmux'], home.env())
  t.match(tmux.stdout, /^#\[fg=yellow,bold\]2 waiting · \d+s#\[default\]\n$/)
})

t.test('the built entry, which runs ls and status, holds nothing of yargs, zod, watch or notify', async (t) => {
  const built = (name: string): string => fs.readFileSync(fileURLToPath(new URL(`../dist/bin/${name}`, import.meta.url)), 'utf8')
  const entry = built('main.cjs')
  // Its only imports of our own code go through the loader: the yargs wiring, for the other
  // commands, the zod schema, for a record the compiled validator refuses, fast-glob, for
  // a hook-less session's transcript, the file watcher, for `ls --json --until-change`, the
  // numbers book's locked writer, for a run whose waits changed, the zod schema of `ls --json`,
  // for another host's answer the compiled check refused, the lock of a host's cache refresh,
  // for status and statusline when a host is due to be read again, and the view's sync
  // (with its lock), only when view.json exists.
  t.same([...new Set([...entry.matchAll(/__tbImport\("([^"]+)"\)/g)].map((m) => m[1]))].sort(), [
    './full/chokidar.js',
    './full/cli-full.js',
    './full/contract.js',
    './full/find-recent.js',
    './full/numbers-write.cjs',
    './full/record-schema.js',
    './full/remote-lock.cjs',
    './full/view-sync.cjs',
  ])
  t.notMatch(entry, /\bimport\(/, 'no dynamic import of its own (V8 drops their callback for cached code)')
  t.notMatch(entry, /require\("(?!node:)/, 'requires node built-ins only')
  t.notOk(/_zod|ZodError/.test(entry), 'no zod')
  t.notOk(/notify-send|osascript/.test(entry), 'no notifier code')
  t.notOk(/FSWatcher|readdirp/.test(entry.replaceAll('./full/chokidar.js', '')), 'no watcher code')
  t.notOk(/yargs|cliui/.test(entry), 'no yargs')
  t.notOk(/proper-lockfile|graceful-fs/.test(entry), 'no lock library')
  t.notOk(/TOMLInlineTable|tomlVersion/.test(entry), 'no TOML parser (install and doctor load it)')
  const loader = built('trailboss.cjs')
  t.same(
    [...new Set([...loader.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]))].sort(),
    ['node:fs', 'node:path', 'node:url', 'node:vm'],
    'the loader: node built-ins only',
  )
})
