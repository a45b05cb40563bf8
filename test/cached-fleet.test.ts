// The cached fleet read (lib/remote/cached-fleet.ts) and the pure parts of the surfaces over every
// host: when a host is due for a refresh, how its cache reads, what a refresh held by another
// process leaves, the status placeholders, notify's memory of a silent host, the words sent for
// `show`, watch's follow lines and retries.
import t from 'tap'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { CACHE_STALE_AFTER_MS, deriveCachedHost, deriveRefreshDue, readFleetCached, REFRESH_GAP_MS } from '../lib/remote/cached-fleet.js'
import type { RemoteListing } from '../lib/remote/answer.js'
import { lastAnswerFile, readHostCache, remoteDir, writeFailedRead, writeLastAnswer, type HostCache } from '../lib/remote/last-answer.js'
import { lockNow } from '../lib/fs/lock-now.js'
import { ensurePrivateDir } from '../lib/fs/private-dir.js'
import { deriveSummary, formatOthers, formatSegment } from '../lib/render/status-segment.js'
import { deriveNew, waitHost, waitId, NOTIFY_STATE_VERSION } from '../lib/notify/state.js'
import { formatRemoteShow, remoteShowWords } from '../lib/remote/remote-show.js'
import { deriveRetryMs, FOLLOW_RETRY_MAX_MS, remoteFollowWords } from '../lib/remote/fleet-follow.js'
import { splitLines } from '../lib/remote/ssh-follow.js'
import { formatHostChanges } from '../lib/commands/watch.js'
import { payload, runEmitter, tempDir } from './helpers/emitter.js'
import { markWaitSeen, readRemoteSeen } from '../lib/remote/remote-seen.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { runInProcess } from './helpers/cli.js'

const NOW = Date.parse('2026-03-01T12:00:00Z')
/** A real `ls --json` of an empty home: what a host with nothing waiting answers. */
const LISTING = JSON.parse(
  (await runInProcess(['ls', '--json', '--local'], { TRAILBOSS_HOME: join(tempDir(t), 'empty'), PATH: process.env.PATH })).stdout,
) as RemoteListing
const answered = (at: number): HostCache => ({ answer: { at, listing: LISTING }, failed: null })

t.test('a host is due for a read once its last read, good or failed, is the gap old', async (t) => {
  const cases: [string, HostCache, boolean][] = [
    ['never read', { answer: null, failed: null }, true],
    ['answered just now', answered(NOW - 1000), false],
    ['answered a gap ago', answered(NOW - REFRESH_GAP_MS), true],
    [
      'failed just now, answered long ago',
      { answer: { at: NOW - 600_000, listing: LISTING }, failed: { at: NOW - 2000, why: 'x' } },
      false,
    ],
    ['failed a gap ago, never answered', { answer: null, failed: { at: NOW - REFRESH_GAP_MS - 1, why: 'x' } }, true],
    ['a stamp far in the future (a clock set back)', answered(NOW + 10 * REFRESH_GAP_MS), true],
    ['a stamp a little in the future', answered(NOW + 500), false],
  ]
  for (const [what, cache, due] of cases) t.equal(deriveRefreshDue(cache, NOW), due, what)
})

t.test('a cached host answers while its last read worked and its queue is recent', async (t) => {
  t.same(deriveCachedHost('devbox', answered(NOW - 5000), NOW), { destination: 'devbox', answered: true, why: null, queueAt: NOW - 5000 })
  t.same(
    deriveCachedHost(
      'devbox',
      { answer: { at: NOW - 60_000, listing: LISTING }, failed: { at: NOW - 1000, why: 'could not connect' } },
      NOW,
    ),
    { destination: 'devbox', answered: false, why: 'could not connect', queueAt: NOW - 60_000 },
    'a failed read after its answer: stale, with why',
  )
  t.same(deriveCachedHost('devbox', answered(NOW - CACHE_STALE_AFTER_MS), NOW).answered, false, 'an old queue is stale')
  t.same(deriveCachedHost('devbox', { answer: null, failed: null }, NOW), {
    destination: 'devbox',
    answered: false,
    why: 'not read yet',
    queueAt: null,
  })
  t.same(
    deriveCachedHost('devbox', { answer: { at: NOW - 1000, listing: LISTING }, failed: { at: NOW - 9000, why: 'x' } }, NOW).answered,
    true,
    'an answer after a failure: answered',
  )
})

t.test('the cache file keeps the last answer and the last failure, each or neither', async (t) => {
  const env = { TRAILBOSS_HOME: join(tempDir(t), 'tb') }
  t.same(await readHostCache(env, 'devbox'), { answer: null, failed: null })
  writeFailedRead(env, 'devbox', { at: NOW, why: 'no answer within the time allowed' }, null)
  t.same(await readHostCache(env, 'devbox'), { answer: null, failed: { at: NOW, why: 'no answer within the time allowed' } })
  writeLastAnswer(env, 'devbox', { at: NOW + 1, listing: LISTING })
  const after = await readHostCache(env, 'devbox')
  t.equal(after.failed, null, 'an answer forgets the failure')
  writeFailedRead(env, 'devbox', { at: NOW + 2, why: 'x' }, after.answer)
  t.equal((await readHostCache(env, 'devbox')).answer?.at, NOW + 1, 'a failure keeps the answer to show meanwhile')
})

t.test('the same answer again is not rewritten: the file is kept and its time moves on', async (t) => {
  const env = { TRAILBOSS_HOME: join(tempDir(t), 'tb') }
  const file = lastAnswerFile(env, 'devbox')
  // An atomic rewrite is a new file (a new inode); a kept one is the same.
  const inode = (): number => statSync(file).ino
  t.ok(writeLastAnswer(env, 'devbox', { at: NOW, listing: LISTING }))
  const first = inode()
  t.equal((await readHostCache(env, 'devbox')).answer?.at, NOW)
  t.ok(writeLastAnswer(env, 'devbox', { at: NOW + 5000, listing: LISTING }))
  t.equal(inode(), first, 'the same answer: the file is not written again')
  t.equal((await readHostCache(env, 'devbox')).answer?.at, NOW + 5000, 'its age counts from the answer just given')
  writeLastAnswer(env, 'devbox', { at: NOW - 1000, listing: LISTING })
  t.equal((await readHostCache(env, 'devbox')).answer?.at, NOW - 1000, 'even an earlier time (a clock set back)')

  const other = { ...LISTING, tmux: LISTING.tmux === 'ok' ? 'unavailable' : 'ok' } as RemoteListing
  t.ok(writeLastAnswer(env, 'devbox', { at: NOW + 6000, listing: other }))
  const second = inode()
  t.not(second, first, 'another answer is written')
  t.equal((await readHostCache(env, 'devbox')).answer?.listing.tmux, other.tmux)

  const kept = await readHostCache(env, 'devbox')
  writeFailedRead(env, 'devbox', { at: NOW + 7000, why: 'x' }, kept.answer)
  t.equal((await readHostCache(env, 'devbox')).answer?.at, NOW + 6000, "a failure noted keeps the answer's time")
  const third = inode()
  t.ok(writeLastAnswer(env, 'devbox', { at: NOW + 8000, listing: other }))
  t.not(inode(), third, 'the same answer after a failure is written: the failure is forgotten')
  t.same(await readHostCache(env, 'devbox'), { answer: { at: NOW + 8000, listing: other }, failed: null })
})

t.test('the caches are read as they stand; the hosts due are read after, each unless another process is reading it', async (t) => {
  // No ssh config and a host no resolver knows: a read that tried it would fail and note it.
  const env = { TRAILBOSS_HOME: join(tempDir(t), 'tb'), PATH: '/nonexistent' }
  const listing = LISTING
  const now = (): number => Date.now()
  writeLastAnswer(env, 'fresh', { at: now() - 1000, listing })
  writeLastAnswer(env, 'busy', { at: now() - REFRESH_GAP_MS - 1000, listing })
  writeLastAnswer(env, 'due', { at: now() - REFRESH_GAP_MS - 1000, listing })
  const fleet = await readFleetCached(env, ['fresh', 'busy', 'due', 'new'], false, now, 'refresh-after')
  t.same(
    fleet.hosts.map((h) => [h.destination, h.answered, h.why]),
    [
      ['fresh', true, null],
      ['busy', true, null],
      ['due', true, null],
      ['new', false, 'not read yet'],
    ],
    'every host as its cache stands, without a read',
  )
  t.same((await readHostCache(env, 'due')).failed, null, 'no host tried yet')
  t.ok(fleet.refreshDue, 'three hosts are due, left to the caller')

  ensurePrivateDir(remoteDir(env))
  const release = await lockNow(lastAnswerFile(env, 'busy'), { realpath: false, stale: 10_000, retries: 0 })
  try {
    await fleet.refreshDue?.()
  } finally {
    await release()
  }
  t.same((await readHostCache(env, 'fresh')).failed, null, 'fresh: not tried')
  t.same((await readHostCache(env, 'busy')).failed, null, 'another process holds its refresh: left as it is')
  t.match(
    (await readHostCache(env, 'due')).failed?.why,
    /ssh could not be run here/,
    'due and free: read (no ssh on this PATH), the failure noted',
  )
  t.match((await readHostCache(env, 'new')).failed?.why, /ssh could not be run here/, 'never read: read too')

  const next = await readFleetCached(env, ['fresh', 'due', 'new'], false, now, 'refresh-after')
  t.same(
    next.hosts.map((h) => [h.destination, h.answered]),
    [
      ['fresh', true],
      ['due', false],
      ['new', false],
    ],
    'the next read has what the refresh found',
  )
  t.equal(next.refreshDue, null, 'and nothing is due: the failed reads are recent')

  const first = await readFleetCached(env, ['busy'], false, now, 'refresh-first')
  t.match(
    first.hosts,
    [{ destination: 'busy', answered: false, why: /ssh could not be run here/ }],
    'refresh-first: read before the caches are taken',
  )
  t.equal(first.refreshDue, null, 'nothing left to the caller')
})

t.test("a remote wait marked seen here (watch's a) reads as seen, until its session waits again", async (t) => {
  const dir = tempDir(t)
  const host = { TRAILBOSS_HOME: join(dir, 'host'), PATH: process.env.PATH }
  const e = await runEmitter(
    JSON.stringify(payload('remote-q', 'Stop', { prompt_id: 'p1', last_assistant_message: 'Which branch?' })),
    host,
  )
  t.equal(e.code, 0, e.stderr)
  const listing = JSON.parse((await runInProcess(['ls', '--json', '--local'], host)).stdout) as RemoteListing
  t.equal(listing.queue.length, 1, 'the host has one wait')
  // A fresh answer: read from the cache, no ssh.
  const env = { TRAILBOSS_HOME: join(dir, 'tb'), PATH: '/nonexistent' }
  const now = (): number => Date.now()
  const items = async (): Promise<QueueItem[]> => (await readFleetCached(env, ['devbox'], false, now, 'refresh-after')).items
  writeLastAnswer(env, 'devbox', { at: now(), listing })
  const [before] = await items()
  if (!before) throw new Error('no remote item')
  t.equal(before.seen, false)
  t.ok(markWaitSeen(env, before, now()), 'marked')
  t.match(await items(), [{ key: before.key, seen: true }], 'seen here, its key as before')
  t.same([...readRemoteSeen(env, 'devbox')], [[before.remote?.sessionId, before.since]], "kept by the host's own session id")
  const later = { ...listing, queue: listing.queue.map((i) => ({ ...i, since: new Date(Date.parse(i.since) + 60_000).toISOString() })) }
  writeLastAnswer(env, 'devbox', { at: now(), listing: later })
  t.match(await items(), [{ key: before.key, seen: false }], 'a wait that began since is not seen')
})

t.test('status placeholders {hosts} and {stale}, and the stale hosts after a default segment', async (t) => {
  const hosts = [
    { destination: 'devbox', answered: true, queueAt: NOW - 4000 },
    { destination: 'gpu', answered: false, queueAt: NOW - 180_000 },
    { destination: 'new', answered: false, queueAt: null },
  ]
  const item = { since: NOW - 60_000, sessionId: 'a', needsYou: true, state: 'waiting', kind: 'question', seen: false, n: 1 }
  const s = deriveSummary([item] as never, NOW, { hosts })
  t.equal(formatSegment(s, '{count} [{hosts}] [{stale}]'), '1 [devbox 4s, gpu 3m, new ?] [gpu 3m, new ?]')
  t.equal(formatSegment(s), '1 waiting · 1m · gpu 3m, new ? old')
  t.equal(formatOthers(s), '1 other waits · oldest 1m · gpu 3m, new ? old')
  const fresh = deriveSummary([item] as never, NOW, { hosts: hosts.slice(0, 1) })
  t.equal(formatSegment(fresh), '1 waiting · 1m', 'no stale host: the default as ever')
  t.equal(formatSegment(fresh, '{stale}'), '')
})

t.test('notify: a wait id names its host; a silent host keeps what was told of it', async (t) => {
  t.equal(waitHost(waitId({ sessionId: 'devbox:3f2a9c1e-aa', since: 5 })), 'devbox')
  t.equal(waitHost(waitId({ sessionId: 'me@[fe80::1%eth0]:abc', since: 5 })), 'me@[fe80::1%eth0]', 'a destination with colons')
  t.equal(waitHost(waitId({ sessionId: 'abc-def', since: 5 })), null, 'a local session')
  const state = { v: NOTIFY_STATE_VERSION as typeof NOTIFY_STATE_VERSION, told: { '': ['devbox:s1@1', 'local@2'] } }
  const held = (id: string): boolean => waitHost(id) === 'devbox'
  const got = deriveNew(state, '', ['local@2'], [], held)
  t.same(got.fresh, [])
  t.same(got.next.told[''], ['devbox:s1@1', 'local@2'], 'the silent host’s told wait is kept')
  t.same(deriveNew(state, '', ['local@2'], []).next.told[''], ['local@2'], 'without a silent host: a wait gone is forgotten')
})

t.test('show on another host: fixed words, the key checked; the page visible under a line naming the host', async (t) => {
  t.same(remoteShowWords('3f2a9c1e', { screen: false, full: false }), ['trailboss', 'show', '3f2a9c1e', '--local'])
  t.same(remoteShowWords('3f2a9c1e', { screen: true, full: true }), ['trailboss', 'show', '3f2a9c1e', '--local', '--screen', '--full'])
  for (const bad of ['-rf', 'a b', 'a;b', '', 'x'.repeat(129), 'a:b'])
    t.throws(() => remoteShowWords(bad, { screen: false, full: false }), /refused/, JSON.stringify(bad))
  t.equal(
    formatRemoteShow('devbox', 'k1', 'line 1\n\u001b[31mred\u001b[0m\tx\n\n'),
    'on devbox: trailboss show k1\nline 1\n^[[31mred^[[0m  x\n',
  )
})

t.test('watch: follow words, retries, lines, and host changes in the log', async (t) => {
  t.same(remoteFollowWords(false), ['trailboss', 'ls', '--json', '--local', '--follow'])
  t.same(remoteFollowWords(true), ['trailboss', 'ls', '--json', '--local', '--follow', '--all'])
  t.same([1, 2, 3, 4, 6, 50].map(deriveRetryMs), [1000, 2000, 4000, 8000, 30_000, FOLLOW_RETRY_MAX_MS])
  t.same(splitLines('', '{"a":1}\n{"b"'), { lines: ['{"a":1}'], rest: '{"b"' })
  t.same(splitLines('{"b"', ':2}\n\n'), { lines: ['{"b":2}'], rest: '' })
  const up = { destination: 'devbox', answered: true, why: null, queueAt: NOW }
  const down = { ...up, answered: false, why: 'could not connect', queueAt: NOW - 120_000 }
  t.same(formatHostChanges([], [up], NOW), [], 'answering from the start: no line')
  t.same(formatHostChanges([up], [down], NOW), [`${new Date(NOW).toISOString()}  devbox: no answer, last queue 2m old (could not connect)`])
  t.same(formatHostChanges([down], [up], NOW), [`${new Date(NOW).toISOString()}  devbox: answers again`])
})
