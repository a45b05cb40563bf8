// A remote host's answer as it enters the queue here (lib/remote/): checked against the contract,
// every text made visible, keys and ids named by the host, merged and numbered with this machine's.
import t from 'tap'
import { checkRemoteAnswer } from '../lib/remote/answer.js'
import { toRemoteItems } from '../lib/remote/items.js'
import { formatHostLines, needsHostColumn } from '../lib/render/host-line.js'
import { deriveListing } from '../lib/navigate/listing.js'
import { hostsForTarget } from '../lib/navigate/fleet-view.js'
import { orderItems } from '../lib/queue/derive.js'
import { deriveNumbering, numberedHost, unreadHosts } from '../lib/queue/numbers.js'
import { checkNumbers } from '../lib/cache/check.generated.js'
import { formatPlain, formatTable, toJsonItem } from '../lib/render/queue-table.js'
import { isVisibleText } from '../lib/text/visible-text.js'
import { lsOutputSchema } from '../lib/schemas/contract.js'
import { queueItem } from './helpers/queue-item.js'
import type { QueueView } from '../lib/queue/load.js'

const T0 = Date.parse('2026-12-02T10:00:00.000Z')

/** A document as a host's `ls --json` prints it. */
const listingOf = (
  items = [
    queueItem({ n: 1, key: 'aaaa1111', sessionId: 'aaaa1111-x', state: 'permission', kind: 'permission', needsYou: true, since: T0 }),
  ],
): string => {
  const view = { queue: items, items, skipped: [], tmuxAvailable: true, hookless: [], now: T0 + 60_000 } as QueueView
  return JSON.stringify(deriveListing(view, { all: false, sort: 'age', olderThanMs: undefined }))
}

t.test('a host’s ls --json is read as it is, and each item is named by its host', async (t) => {
  const got = await checkRemoteAnswer(listingOf())
  if (!got.ok) return t.fail(got.why)
  const [item] = toRemoteItems(got.listing, 'devbox', false)
  t.equal(item?.key, 'devbox:aaaa1111')
  t.equal(item?.sessionId, 'devbox:aaaa1111-x', 'never a file name here: ":" is outside the session-id pattern')
  t.same(item?.remote, { destination: 'devbox', key: 'aaaa1111', sessionId: 'aaaa1111-x', stale: false })
  t.equal(item?.n, null, 'numbers are given here, not by the host')
  const json = toJsonItem(item!)
  t.equal(json.sessionId, 'aaaa1111-x', 'ls --json gives the session id the host knows')
  t.equal(json.destination, 'devbox')
  t.equal(json.stale, false)
})

t.test('a hostile or broken answer is refused, with the reason', async (t) => {
  const doc = JSON.parse(listingOf()) as { version: number; queue: Record<string, unknown>[] }
  const refused = async (text: string): Promise<string> => {
    const got = await checkRemoteAnswer(text)
    return got.ok ? 'accepted' : got.why
  }
  t.match(await refused('not json'), /not JSON/)
  t.match(await refused(''), /not JSON/)
  t.match(await refused(JSON.stringify({ ...doc, version: 3 })), /version 3.*update Trail Boss there/)
  t.match(await refused(JSON.stringify({ ...doc, queue: [{ ...doc.queue[0], state: 'pwned' }] })), /not an ls --json document/)
  t.match(await refused(JSON.stringify({ ...doc, queue: [{ ...doc.queue[0], key: '../../x' }] })), /key that is not one/)
  t.match(await refused(JSON.stringify({ ...doc, queue: [{ ...doc.queue[0], key: 'a:b' }] })), /key that is not one/)
  t.match(await refused(JSON.stringify({ ...doc, queue: [{ ...doc.queue[0], sessionId: 'x y' }] })), /key that is not one/)
  t.match(await refused(JSON.stringify([doc])), /not an ls --json document/)
  const newer = await checkRemoteAnswer(JSON.stringify({ ...doc, added: 1, queue: [{ ...doc.queue[0], addedToo: 'x' }] }))
  t.ok(newer.ok, "a newer host's added fields do not refuse its answer (zod has the last word)")
  if (newer.ok) t.notOk('addedToo' in (newer.listing.queue[0] ?? {}), 'they are dropped')
})

t.test('every text of an answer is made visible: a host cannot send escapes to the terminal', async (t) => {
  const doc = JSON.parse(listingOf()) as { queue: Record<string, unknown>[] }
  const evil = '\u001b]52;c;cHduZWQ=\u0007\u001b[2J'
  const item = {
    ...doc.queue[0],
    project: `p${evil}`,
    agent: `claude${evil}`,
    ask: { tool: `Bash${evil}`, input: { command: `rm -rf /${evil}`, deep: [{ x: evil }] }, message: evil },
    tmux: { pane: '%0', socket: '/s', alive: true, place: { session: evil, window: 0, windowName: evil } },
  }
  const got = await checkRemoteAnswer(JSON.stringify({ ...doc, queue: [item] }))
  if (!got.ok) return t.fail(got.why)
  const text = JSON.stringify(got.listing)
  t.notOk(text.includes('\\u001b'), 'no escape is left in any field')
  const [remote] = toRemoteItems(got.listing, 'devbox', false)
  const table = formatTable([remote!], { now: T0, colour: false, width: 200, hosts: true })
  t.ok(isVisibleText(table, { newlines: true }), 'the table holds nothing a terminal acts on')
  t.match(String((remote!.ask.input as { command: string }).command), /\^\[/, 'shown in caret notation')
})

t.test('the hosts merge into one order, and numbers are given across all of them by one book', async (t) => {
  const local = queueItem({
    key: 'cccc3333',
    sessionId: 'cccc3333-l',
    state: 'permission',
    kind: 'permission',
    needsYou: true,
    since: T0 + 2000,
  })
  const got = await checkRemoteAnswer(
    listingOf([
      queueItem({ key: 'aaaa1111', sessionId: 'aaaa1111-r', state: 'waiting', kind: 'question', needsYou: true, since: T0 + 1000 }),
      queueItem({ key: 'bbbb2222', sessionId: 'bbbb2222-r', state: 'waiting', kind: 'done', needsYou: false, since: T0 }),
    ]),
  )
  if (!got.ok) return t.fail(got.why)
  const merged = orderItems([local, ...toRemoteItems(got.listing, 'devbox', false)])
  t.same(
    merged.map((i) => i.key),
    ['devbox:aaaa1111', 'cccc3333', 'devbox:bbbb2222'],
    'waits that need the person first, oldest first, whatever their host; then finished turns',
  )
  const numbering = deriveNumbering([], merged, T0)
  t.same(
    merged.map((i) => numbering.numbers.get(`${i.sessionId}\n${i.since}`)),
    [1, 2, 3],
  )
  t.ok(checkNumbers(JSON.parse(JSON.stringify({ v: 1, waits: numbering.entries }))), 'the book keeps remote waits by host and id')
  t.notOk(checkNumbers({ v: 1, waits: [{ n: 1, sessionId: '../x', since: 0, freedAt: null }] }), 'and nothing else')
})

t.test('HOST: a column when more than one host has rows; a stale host is marked, and said under the table', async (t) => {
  const local = queueItem({ key: 'cccc3333' })
  const got = await checkRemoteAnswer(listingOf())
  if (!got.ok) return t.fail(got.why)
  const [fresh] = toRemoteItems(got.listing, 'devbox', false)
  const [stale] = toRemoteItems(got.listing, 'gpu', true)
  t.notOk(needsHostColumn([local]), 'this machine alone: no column')
  t.ok(needsHostColumn([local, fresh!]))
  t.ok(needsHostColumn([fresh!]), 'rows of another host only: it is named')
  const table = formatTable([local, fresh!, stale!], { now: T0, colour: false, width: 160, hosts: true })
  t.match(table.split('\n')[0], /AGENT +HOST +PROJECT/)
  t.match(table, /local/)
  t.match(table, /gpu \(stale\)/)
  t.notMatch(formatTable([local], { now: T0, colour: false, width: 160 }), /HOST/)
  const plain = formatPlain([local, fresh!], T0).split('\n')
  t.equal(plain[0]?.split('\t').length, 9, "a local row's fields are as before")
  t.equal(plain[1]?.split('\t')[9], 'devbox', 'a remote row ends with its host')
  t.equal(plain[1]?.split('\t')[0], 'devbox:aaaa1111', 'its key names the host, for go and show')
  t.equal(
    formatHostLines(
      [
        { destination: 'devbox', answered: true, why: null, queueAt: T0 },
        { destination: 'gpu', answered: false, why: 'could not connect', queueAt: T0 - 180_000 },
        { destination: 'new', answered: false, why: null, queueAt: null },
      ],
      T0,
    ),
    'gpu: no answer, last queue 3m old (could not connect)\nnew: no answer, no queue from it yet\n',
  )
})

t.test('ls --json lists the hosts outside the digest: their ages move, the queue does not', async (t) => {
  const view = { queue: [], items: [], skipped: [], tmuxAvailable: true, hookless: [], now: T0 } as QueueView
  const args = { all: false, sort: 'age' as const, olderThanMs: undefined }
  const a = deriveListing(view, args, [{ destination: 'devbox', answered: true, why: null, queueAt: T0 - 1000 }])
  const b = deriveListing({ ...view, now: T0 + 5000 }, args, [{ destination: 'devbox', answered: false, why: 'x', queueAt: T0 - 1000 }])
  t.equal(a.digest, b.digest)
  t.same(a.hosts, [{ destination: 'devbox', answered: true, why: null, queueAt: new Date(T0 - 1000).toISOString(), queueAge: 1 }])
  t.equal(b.hosts[0]?.queueAge, 6)
  t.ok(lsOutputSchema.safeParse(JSON.parse(JSON.stringify(b))).success, 'the document passes its schema')
})

t.test('a run that reads no host, or some, leaves the numbers of the others as they are', async (t) => {
  const book = [
    { n: 1, sessionId: 'local-1', since: T0, freedAt: null },
    { n: 2, sessionId: 'devbox:r-1', since: T0, freedAt: null },
    { n: 3, sessionId: 'gpu:r-2', since: T0, freedAt: null },
  ]
  const localOnly = deriveNumbering(book, [{ sessionId: 'local-1', since: T0 }], T0 + 1000, undefined, unreadHosts([]))
  t.same(localOnly.entries, book, 'ls --local: no remote wait is freed')
  t.notOk(localOnly.changed)
  const devboxRead = deriveNumbering(book, [{ sessionId: 'local-1', since: T0 }], T0 + 1000, undefined, unreadHosts(['devbox']))
  t.same(
    devboxRead.entries.map((e) => [e.sessionId, e.freedAt]),
    [
      ['local-1', null],
      ['devbox:r-1', T0 + 1000],
      ['gpu:r-2', null],
    ],
    'a host that was read and lacks the wait: its number is freed; a host not read: kept',
  )
  t.equal(numberedHost('me@[fe80::1]:abc'), 'me@[fe80::1]', 'a destination may hold ":" itself')
  t.equal(numberedHost('abc'), null)
})

t.test('a command that names one wait reads only the hosts it may be on', async (t) => {
  t.same(hostsForTarget(undefined), {}, 'the oldest wait: every host')
  t.same(hostsForTarget('3'), {}, 'a number: every host (numbers are given across all)')
  t.same(hostsForTarget('devbox:3f2a'), { host: ['devbox'] })
  t.same(hostsForTarget('me@[fe80::1]:3f2a'), { host: ['me@[fe80::1]'] }, 'a destination with ":" in it')
  t.same(hostsForTarget('3f2a9c1e'), { local: true }, 'a local key: no host')
  t.same(hostsForTarget('%12'), { local: true }, 'a pane id: no host')
})
