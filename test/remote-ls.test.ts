// ls over real hosts (docs/design.md §10.0): two OpenSSH servers on loopback, each with its own
// home, tmux and Trail Boss, and this machine's own wait, form one queue numbered here; a host
// that refuses or goes silent becomes stale rows and one line, within the bound, while local rows
// keep working; a hostile host's answer is refused or shown as visible text.
import t from 'tap'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startRemoteLab } from './helpers/remote-lab.js'
import { startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

const STAND_IN = fileURLToPath(new URL('./helpers/agent-stand-in.cjs', import.meta.url))
const EMITTER = fileURLToPath(new URL('../dist/hooks/emit.cjs', import.meta.url))
const DIALOG = fileURLToPath(new URL('./fixtures/screens/03-permission-dialog.txt', import.meta.url))

interface JsonDoc {
  queue: { n: number | null; key: string; sessionId: string; destination: string | null; stale: boolean; project: string | null }[]
  hosts: { destination: string; answered: boolean; why: string | null; queueAge: number | null }[]
}

// A host whose `trailboss` prints what the test puts in its home, after a delay the test sets.
const root = t.testdir()
const hostileBin = join(root, 'hostile-bin')
mkdirSync(hostileBin)
writeFileSync(join(hostileBin, 'trailboss'), '#!/bin/sh\n[ -f "$HOME/delay" ] && sleep "$(cat "$HOME/delay")"\nexec cat "$HOME/answer"\n')
chmodSync(join(hostileBin, 'trailboss'), 0o755)

const lab = await startRemoteLab(t, ['hosta', 'hostb', 'hostile'], { pathFirst: { hostile: hostileBin } })
const hostileHome = lab.hosts.hostile!.home
writeFileSync(join(hostileHome, 'answer'), '')

// This machine's own wait, in a tmux server of the test's.
const localHome = lab.env.TRAILBOSS_HOME!
const localEvent = {
  session_id: 'c3333333-0000-4000-8000-000000000003',
  transcript_path: join(root, 'none.jsonl'),
  cwd: root,
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch y', description: 'Create y' },
  prompt_id: 'p1',
}
startTmuxServer(t, { session: 'here', command: [process.execPath, STAND_IN, EMITTER, localHome, DIALOG, JSON.stringify(localEvent), root] })
await waitFor(
  () => {
    try {
      readFileSync(join(localHome, 'sessions', `${localEvent.session_id}.json`))
      return true
    } catch {
      return false
    }
  },
  'the local record',
  15_000,
)
await lab.makeWait('hosta', { sessionId: 'a1111111-0000-4000-8000-000000000001' })
await lab.makeWait('hostb', { sessionId: 'b2222222-0000-4000-8000-000000000002' })

const lsJson = async (...args: string[]): Promise<JsonDoc> => {
  const r = await lab.run(['ls', '--json', ...args])
  t.equal(r.code, 0, `ls --json ${args.join(' ')} exits 0: ${r.stderr}`)
  return JSON.parse(r.stdout) as JsonDoc
}

t.test('a wait on each host and one here form one queue, numbered here', async (t) => {
  const doc = await lsJson('--host', 'local', '--host', 'hosta', '--host', 'hostb')
  t.same(doc.queue.map((i) => i.destination).sort(), [null, 'hosta', 'hostb'].sort(), 'both hosts and this machine')
  t.same(doc.queue.map((i) => i.n).sort(), [1, 2, 3], 'one numbering across hosts')
  const a = doc.queue.find((i) => i.destination === 'hosta')
  t.equal(a?.key, 'hosta:a1111111', 'a remote key names its host')
  t.equal(a?.sessionId, 'a1111111-0000-4000-8000-000000000001', 'its session id is the one the host knows')
  t.same(
    doc.hosts.map((h) => [h.destination, h.answered]),
    [
      ['hosta', true],
      ['hostb', true],
    ],
  )
  const again = await lsJson('--host', 'local', '--host', 'hosta', '--host', 'hostb')
  t.same(
    again.queue.map((i) => [i.key, i.n]),
    doc.queue.map((i) => [i.key, i.n]),
    'numbers stay put from one look to the next',
  )
  const table = await lab.run(['ls', '--host', 'local', '--host', 'hosta', '--host', 'hostb'], { COLUMNS: '160' })
  t.match(table.stdout.split('\n')[0], /AGENT +HOST +PROJECT/, 'a HOST column')
  t.match(table.stdout, /hosta/)
  t.match(table.stdout, /local/)
  const onlyA = await lsJson('--host', 'hosta')
  t.same(
    onlyA.queue.map((i) => i.key),
    ['hosta:a1111111'],
    '--host keeps its numbers and shows that host only',
  )
  t.equal(onlyA.queue[0]?.n, a?.n)
  for (const only of [['--local'], ['--host', 'local']]) {
    const local = await lsJson(...only)
    t.same(
      local.queue.map((i) => i.destination),
      [null],
      `${only.join(' ')} shows this machine's waits`,
    )
    t.same(local.hosts, [], 'and reads no host')
    const book = JSON.parse(readFileSync(join(localHome, 'numbers.json'), 'utf8')) as {
      waits: { sessionId: string; freedAt: number | null }[]
    }
    t.equal(
      book.waits.find((w) => w.sessionId.startsWith('hosta:'))?.freedAt,
      null,
      "a host's wait keeps its number while a run reads no host",
    )
  }
  const plain = await lab.run(['ls', '--plain', '--host', 'hosta'])
  t.equal(plain.stdout.split('\t')[0], 'hosta:a1111111', '--plain gives the key that names the host first')
})

t.test('a host that refuses connections: stale rows and one line, local rows as always, exit 0', async (t) => {
  const before = await lsJson('--host', 'hostb')
  const shown = before.queue.find((i) => i.destination === 'hostb')
  lab.hosts.hostb!.pause()
  t.teardown(() => lab.hosts.hostb!.resume())
  const started = Date.now()
  const r = await lab.run(['ls', '--host', 'hostb', '--all'], { COLUMNS: '160' })
  t.ok(Date.now() - started < 10_000, 'ls returned within its bound (3 s a host), with room for a slow machine')
  t.equal(r.code, 0)
  t.match(r.stdout, /hostb \(stale\)/, 'its last known wait, marked stale')
  t.match(r.stdout, /hostb: no answer, last queue \d+s old \(/, 'and why, under the table')
  const doc = await lsJson('--host', 'hostb')
  const item = doc.queue.find((i) => i.destination === 'hostb')
  t.equal(item?.stale, true)
  t.equal(item?.n, shown?.n, 'it keeps its number while its host is silent')
  t.equal(doc.hosts[0]?.answered, false)
  t.match(doc.hosts[0]?.why ?? '', /./)
})

t.test('a host that is gone: connection refused, said as such', async (t) => {
  const lab2 = await startRemoteLab(t, ['gone'])
  await lab2.makeWait('gone', { sessionId: 'd4444444-0000-4000-8000-000000000004' })
  const first = JSON.parse((await lab2.run(['ls', '--json'])).stdout) as JsonDoc
  t.equal(first.queue[0]?.key, 'gone:d4444444')
  await lab2.hosts.gone!.stop()
  // A shared connection would outlive the server's listener; a fresh one is refused.
  const r = await lab2.run(['ls', '--json'], { TRAILBOSS_SSH_PERSIST: '0' })
  const doc = JSON.parse(r.stdout) as JsonDoc
  t.equal(r.code, 0)
  t.equal(doc.queue[0]?.stale, true)
  t.match(doc.hosts[0]?.why ?? '', /could not connect|no answer/)
})

t.test('hostile answers are refused, or shown as visible text', async (t) => {
  const hostile = async (): Promise<JsonDoc> => lsJson('--host', 'hostile')
  writeFileSync(join(hostileHome, 'answer'), 'not a document')
  t.match((await hostile()).hosts[0]?.why, /not JSON/)
  writeFileSync(join(hostileHome, 'answer'), JSON.stringify({ version: 2, queue: [{ key: '../x' }] }))
  t.match((await hostile()).hosts[0]?.why, /not an ls --json document/)
  writeFileSync(join(hostileHome, 'answer'), 'x'.repeat(5 * 1024 * 1024))
  t.match((await hostile()).hosts[0]?.why, /too large/)
  // A document from a real host, with escapes put into its texts.
  const real = JSON.parse((await lab.run(['ls', '--json', '--local'], { TRAILBOSS_HOME: lab.homeOf('hosta') })).stdout) as {
    queue: Record<string, unknown>[]
  }
  const evil = '\u001b]52;c;cHduZWQ=\u0007\u001b[2J'
  real.queue = real.queue.map((i) => ({ ...i, project: `p${evil}`, ask: { tool: 'Bash', input: { command: `rm${evil}` }, message: evil } }))
  writeFileSync(join(hostileHome, 'answer'), JSON.stringify(real))
  const table = await lab.run(['ls', '--host', 'hostile'], { COLUMNS: '200' })
  t.equal(table.code, 0)
  t.notOk(table.stdout.includes('\u001b'), 'no escape reaches the terminal')
  t.match(table.stdout, /p\^\[\]52/, 'the escape is shown')
  writeFileSync(join(hostileHome, 'delay'), '30')
  const started = Date.now()
  const slow = await hostile()
  t.ok(Date.now() - started < 10_000, 'a slow host is given up on within its bound')
  t.match(slow.hosts[0]?.why, /no answer within the time allowed/)
  t.equal(slow.queue[0]?.stale, true, 'its last good answer shows, stale')
})
