// One key through the queue: `next`, `back`, `ack` and seen waits, end to end. Records from the
// real emitter, a real tmux server on a private socket, a real terminal client (`script`
// running `tmux attach`) pressing the documented key bindings, which run the built CLI as child
// processes; the test's own reads of the queue run in-process. Run `npm run build` first.
import t from 'tap'
import { pickClient, pickNext } from '../lib/commands/next.js'
import type { QueueItem } from '../lib/queue/derive.js'
import type { Client } from '../lib/tmux/clients.js'
import { copyBuilt, emit } from './helpers/navigate-records.js'
import { attachTerminalClient, cleanEnv, newPane, startKeyBindingLab, waitFor } from './helpers/navigate-tmux.js'
import { runInProcess } from './helpers/cli.js'

t.setTimeout(150_000)

const wait = (id: string, n: number, pane: string, over: Partial<QueueItem> = {}): QueueItem =>
  ({
    n,
    sessionId: id,
    key: id,
    state: 'waiting',
    kind: 'question',
    headless: false,
    needsYou: true,
    seen: false,
    tmux: { pane, socket: '/s', serverPid: 1, alive: true },
    ...over,
  }) as QueueItem

t.test('pickNext: the default queue as a ring, unseen waits first, never the one you are in', async (t) => {
  const a = wait('a', 1, '%1')
  const b = wait('b', 2, '%2', { seen: true })
  const c = wait('c', 3, '%3')
  const d = wait('d', 4, '%4', { kind: 'done', needsYou: false })
  const busy = { ...wait('w', 0, '%9'), n: null, state: 'working', kind: null, needsYou: false } as QueueItem
  const items = [a, b, c, d, busy]
  const at = (pane: string) => ({ socket: '/s', pane })
  t.equal(pickNext(items, null)?.sessionId, 'a', 'from outside the queue: the first unseen wait')
  t.equal(pickNext(items, at('%9'))?.sessionId, 'a', 'from a busy session: the same')
  t.equal(pickNext(items, at('%1'))?.sessionId, 'c', 'from a: past the seen b to c')
  t.equal(pickNext(items, at('%2'))?.sessionId, 'c', 'from the seen b you are in: the one after it')
  t.equal(pickNext(items, at('%3'))?.sessionId, 'a', 'from c: wraps to a, before the finished d')
  t.equal(pickNext([a, d], at('%1'))?.sessionId, 'd', 'no other wait needs you: the finished turn')
  t.equal(pickNext([a], at('%1')), null, 'only the one you are in: nothing')
  t.equal(pickNext([a, c], { socket: '/other', pane: '%1' })?.sessionId, 'a', 'a pane id on another server is another pane')
  t.equal(pickNext([{ ...a, tmux: null }, c], null)?.sessionId, 'c', 'a wait outside tmux is skipped')
  const seenA = { ...a, seen: true }
  const seenC = { ...c, seen: true }
  t.equal(pickNext([seenA, b, seenC, d], null)?.sessionId, 'd', 'an unseen finished turn before the seen waits')
  t.equal(pickNext([seenA, b, seenC], at('%1'))?.sessionId, 'b', 'every wait seen: the next one that still needs you')
  t.equal(pickNext([seenA, b, seenC, { ...d, seen: true }], at('%3'))?.sessionId, 'a', 'a seen finished turn is out of the ring')
})

t.test('pickClient: --client, else the one showing the pane, else the latest', async (t) => {
  const c = (name: string, paneId: string, activity: number): Client => ({
    name,
    tty: name,
    pid: activity,
    activity,
    session: 's',
    controlMode: false,
    paneId,
  })
  const clients = [c('/dev/pts/1', '%1', 10), c('/dev/pts/2', '%2', 20)]
  t.equal(pickClient(clients, '/dev/pts/1', '%2')?.name, '/dev/pts/1')
  t.equal(pickClient(clients, 'nope', null), null)
  t.equal(pickClient(clients, undefined, '%1')?.name, '/dev/pts/1')
  t.equal(pickClient(clients, undefined, null)?.name, '/dev/pts/2')
})

t.test('next, back and ack in a real tmux with a real terminal client: five waits, one press each', async (t) => {
  const { cli: CLI } = await copyBuilt(t)
  const { home, cwd, server } = startKeyBindingLab(t, CLI, 'home', ['bash', '--norc', '--noprofile'])
  const start = server.tmux('display-message', '-p', '-t', 'home', '#{pane_id}').trim()
  // Five waits in three sessions, oldest first: a finished turn, a question, a permission, an
  // error and an interrupted turn.
  server.tmux('new-session', '-d', '-s', 'api', 'sleep', '1000')
  const q = server.tmux('display-message', '-p', '-t', 'api', '#{pane_id}').trim()
  const e = newPane(server, ['new-window', '-d', '-t', 'api'])
  server.tmux('new-session', '-d', '-s', 'web', 'sleep', '1000')
  const p = server.tmux('display-message', '-p', '-t', 'web', '#{pane_id}').trim()
  const i = newPane(server, ['new-window', '-d', '-t', 'web'])
  server.tmux('new-session', '-d', '-s', 'docs', 'sleep', '1000')
  const d = server.tmux('display-message', '-p', '-t', 'docs', '#{pane_id}').trim()
  const ids = {
    d: 'c0000000-cccc-4000-8000-000000000003',
    q: 'a0000000-cccc-4000-8000-000000000001',
    p: 'b0000000-cccc-4000-8000-000000000002',
    e: 'd0000000-cccc-4000-8000-000000000004',
    i: 'e0000000-cccc-4000-8000-000000000005',
  }
  await emit({ home, cwd, sessionId: ids.d, server, pane: d, event: { last_assistant_message: 'All done.' } })
  await emit({ home, cwd, sessionId: ids.q, server, pane: q })
  await emit({
    home,
    cwd,
    sessionId: ids.p,
    server,
    pane: p,
    event: { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'make' } },
  })
  await emit({ home, cwd, sessionId: ids.e, server, pane: e, event: { hook_event_name: 'StopFailure', error: 'rate_limit' } })
  await emit({
    home,
    cwd,
    sessionId: ids.i,
    server,
    pane: i,
    event: { hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'sleep 60' }, is_interrupt: true },
  })
  const env = cleanEnv({ TRAILBOSS_HOME: home })
  type Row = { sessionId: string; n: number; seen: boolean; needsYou: boolean; kind: string }
  const ls = async (...args: string[]): Promise<Row[]> =>
    (JSON.parse((await runInProcess(['ls', '--json', ...args], env)).stdout) as { queue: Row[] }).queue
  const count = async (): Promise<string> => (await runInProcess(['status', '--format', '{count}'], env)).stdout.trim()
  const first = await ls()
  t.same(
    first.map((w) => [w.sessionId, w.n, w.kind, w.needsYou]),
    [
      [ids.q, 1, 'question', true],
      [ids.p, 2, 'permission', true],
      [ids.e, 3, 'error', true],
      [ids.i, 4, 'interrupted', true],
      [ids.d, 5, 'done', false],
    ],
    'the waits that need you, oldest first, then the finished turn; numbered in that order when first seen',
  )
  t.equal(await count(), '4')

  // The README's recipes, on keys that need no prefix here.
  server.tmux('bind-key', '-n', 'M-n', 'run-shell', "trailboss next --client '#{client_name}' || true")
  server.tmux('bind-key', '-n', 'M-b', 'run-shell', "trailboss back --client '#{client_name}' || true")
  const term = await attachTerminalClient(t, server, 'home')
  t.same(server.clientViews(), [`home ${start}`])
  const press = async (key: string, view: string, what: string): Promise<void> => {
    term.write(`\u001b${key}`)
    await waitFor(() => server.clientViews()[0] === view, what, 15_000)
  }

  await t.test('next visits every wait once, one press each; a glance never hides a blocked agent', async (t) => {
    const route: [string, string, string][] = [
      [ids.q, `api ${q}`, 'the question'],
      [ids.p, `web ${p}`, 'the permission'],
      [ids.e, `api ${e}`, 'the error'],
      [ids.i, `web ${i}`, 'the interrupted turn'],
      [ids.d, `docs ${d}`, 'the finished turn, after every wait that needs you'],
    ]
    for (const [id, view, what] of route) {
      await press('n', view, `next: ${what}`)
      const now = await ls()
      t.ok((await ls('--all')).find((w) => w.sessionId === id)?.seen, `${what}: seen`)
      t.same(
        now.filter((w) => w.needsYou).map((w) => [w.sessionId, w.n]),
        [
          [ids.q, 1],
          [ids.p, 2],
          [ids.e, 3],
          [ids.i, 4],
        ],
        `after ${what}: every blocked agent still listed, with its number`,
      )
      t.equal(await count(), '4', `after ${what}: the count is unchanged`)
    }
    t.same(
      (await ls()).map((w) => w.sessionId),
      [ids.q, ids.p, ids.e, ids.i],
      'the finished turn, once seen, leaves the default queue',
    )
    t.same((await ls('--all')).find((w) => w.sessionId === ids.d)?.n, 5, '--all keeps it, with its number')
    await press('n', `api ${q}`, 'next, every wait seen: back to the oldest one that still needs you')
  })

  await t.test('back returns to where the last next started, and back again', async () => {
    await press('b', `docs ${d}`, 'back: the pane before the last next')
    await press('b', `api ${q}`, 'back again: where back started')
    await press('b', `docs ${d}`, 'and again')
  })

  await t.test('a new wait of a seen session is unseen again, gets a new number, and next finds it first', async (t) => {
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { hook_event_name: 'UserPromptSubmit', prompt: 'go on' } })
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { last_assistant_message: 'Which branch?', prompt_id: 'p2' } })
    const now = await ls()
    t.same(
      now.map((w) => [w.sessionId, w.n, w.seen]),
      [
        [ids.p, 2, true],
        [ids.e, 3, true],
        [ids.i, 4, true],
        [ids.q, 6, false],
      ],
      'a new wait: number 1 is held for 10 minutes, so it is 6',
    )
    await press('n', `api ${q}`, 'next: the new wait, before the seen ones')
  })

  await t.test('ack marks a wait seen by hand: a finished turn leaves, a wait that needs you stays', async (t) => {
    await emit({
      home,
      cwd,
      sessionId: ids.d,
      server,
      pane: d,
      event: { hook_event_name: 'UserPromptSubmit', prompt: 'more', prompt_id: 'p3' },
    })
    await emit({ home, cwd, sessionId: ids.d, server, pane: d, event: { last_assistant_message: 'Deployed.', prompt_id: 'p3' } })
    const done = (await ls()).find((w) => w.sessionId === ids.d)
    t.same([done?.kind, done?.seen], ['done', false])
    const r = await runInProcess(['ack', String(done?.n), '2'], env)
    t.equal(r.code, 0, r.stderr)
    t.match(r.stderr, new RegExp(`trailboss: seen ${done?.n} · proj`))
    const after = await ls()
    t.notOk(
      after.some((w) => w.sessionId === ids.d),
      'the acknowledged finished turn left the default queue',
    )
    t.ok(after.find((w) => w.sessionId === ids.p)?.seen, 'the acknowledged permission stays, seen')
    t.equal(await count(), '4')
    const bad = await runInProcess(['ack', '99'], env)
    t.equal(bad.code, 1)
    t.match(bad.stderr, /no wait holds number 99; the waits are 2, 3, 4, 6 and 7/)
  })

  await t.test('a wait whose pane is in front of you for a few seconds becomes seen, and stays listed', async (t) => {
    // The client stays on api's pane; a new wait there is unseen until it has been in front 4 s.
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { hook_event_name: 'UserPromptSubmit', prompt: 'more' } })
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { last_assistant_message: 'And now?', prompt_id: 'p4' } })
    t.same(server.clientViews(), [`api ${q}`])
    // Before the first reader that can find it in front (this ls), so the 4 s count from after it.
    const began = Date.now()
    t.same((await ls()).find((w) => w.sessionId === ids.q)?.seen, false, 'new: listed, unseen')
    // status, as the status line runs it every few seconds, notes it and later marks it.
    await waitFor(
      async () => {
        await runInProcess(['status'], env)
        return (await ls()).find((w) => w.sessionId === ids.q)?.seen === true
      },
      'the wait to be seen',
      30_000,
      200,
    )
    t.ok(Date.now() - began >= 4000, 'not before it was in front 4 s')
    t.equal(await count(), '4', 'seen, still counted')
  })
})
