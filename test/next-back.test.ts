// One key through the queue: `next`, `back`, `ack` and seen waits, end to end. Records from the
// real emitter, a real tmux server on a private socket, a real terminal client (`script`
// running `tmux attach`) pressing the documented key bindings, and the built CLI as child
// processes. Run `npm run build` first.
import t from 'tap'
import { pickClient, pickNext } from '../lib/commands/next.js'
import type { QueueItem } from '../lib/queue/derive.js'
import type { Client } from '../lib/tmux/clients.js'
import { copyBuilt, emit } from './helpers/navigate-records.js'
import { attachTerminalClient, cleanEnv, newPane, startKeyBindingLab, waitFor } from './helpers/navigate-tmux.js'
import { runCli } from './helpers/cli.js'

t.setTimeout(150_000)

const wait = (id: string, n: number, pane: string, over: Partial<QueueItem> = {}): QueueItem =>
  ({ n, sessionId: id, key: id, state: 'waiting', kind: 'question', headless: false, needsYou: true, seen: false, tmux: { pane, socket: '/s', serverPid: 1, alive: true }, ...over }) as QueueItem

t.test('pickNext: the ring of waits, those that need you first, never the one you are in', async (t) => {
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
})

t.test('pickClient: --client, else the one showing the pane, else the latest', async (t) => {
  const c = (name: string, paneId: string, activity: number): Client => ({ name, tty: name, pid: activity, activity, session: 's', controlMode: false, paneId })
  const clients = [c('/dev/pts/1', '%1', 10), c('/dev/pts/2', '%2', 20)]
  t.equal(pickClient(clients, '/dev/pts/1', '%2')?.name, '/dev/pts/1')
  t.equal(pickClient(clients, 'nope', null), null)
  t.equal(pickClient(clients, undefined, '%1')?.name, '/dev/pts/1')
  t.equal(pickClient(clients, undefined, null)?.name, '/dev/pts/2')
})

t.test('next, back and ack in a real tmux with a real terminal client', async (t) => {
  const { cli: CLI } = await copyBuilt(t)
  const { home, cwd, server } = startKeyBindingLab(t, CLI, 'home', ['bash', '--norc', '--noprofile'])
  const start = server.tmux('display-message', '-p', '-t', 'home', '#{pane_id}').trim()
  // Three agents in three sessions: a question, a permission, a finished turn (oldest first).
  server.tmux('new-session', '-d', '-s', 'api', 'sleep', '1000')
  const q = server.tmux('display-message', '-p', '-t', 'api', '#{pane_id}').trim()
  server.tmux('new-session', '-d', '-s', 'web', 'sleep', '1000')
  const p = server.tmux('display-message', '-p', '-t', 'web', '#{pane_id}').trim()
  const d = newPane(server, ['new-window', '-d', '-t', 'web'])
  const ids = { q: 'a0000000-cccc-4000-8000-000000000001', p: 'b0000000-cccc-4000-8000-000000000002', d: 'c0000000-cccc-4000-8000-000000000003' }
  await emit({ home, cwd, sessionId: ids.d, server, pane: d, event: { last_assistant_message: 'All done.' } })
  await emit({ home, cwd, sessionId: ids.q, server, pane: q })
  await emit({ home, cwd, sessionId: ids.p, server, pane: p, event: { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'make' } } })
  const env = cleanEnv({ TRAILBOSS_HOME: home })
  const ls = async (...args: string[]): Promise<{ sessionId: string; n: number; seen: boolean; needsYou: boolean }[]> =>
    (JSON.parse((await runCli(['ls', '--json', ...args], env)).stdout) as { queue: { sessionId: string; n: number; seen: boolean; needsYou: boolean }[] }).queue
  t.same((await ls()).map((i) => [i.sessionId, i.n, i.needsYou]), [
    [ids.q, 1, true],
    [ids.p, 2, true],
    [ids.d, 3, false],
  ], 'the waits that need you, then the finished turn')
  t.same((await runCli(['status', '--format', '{count}:{kinds}'], env)).stdout, '2:1 permission, 1 question\n')

  // The README's recipes, on keys that need no prefix here.
  server.tmux('bind-key', '-n', 'M-n', 'run-shell', "trailboss next --client '#{client_name}' || true")
  server.tmux('bind-key', '-n', 'M-b', 'run-shell', "trailboss back --client '#{client_name}' || true")
  const term = await attachTerminalClient(t, server, 'home')
  t.same(server.clientViews(), [`home ${start}`])
  const press = async (key: string, view: string, what: string): Promise<void> => {
    term.write(`\u001b${key}`)
    await waitFor(() => server.clientViews()[0] === view, what, 15_000)
  }

  await t.test('next goes through the waits that need you, then the finished turn', async (t) => {
    await press('n', `api ${q}`, 'next: the oldest wait that needs you')
    await press('n', `web ${p}`, 'next: the permission')
    t.same((await ls()).map((i) => i.sessionId), [ids.d], 'the two waits visited are seen: out of the default queue')
    t.same((await ls('--all')).filter((i) => i.seen).map((i) => [i.sessionId, i.n]), [
      [ids.q, 1],
      [ids.p, 2],
    ], '--all keeps them, seen, with their numbers')
    t.equal((await runCli(['status'], env)).stdout, '', 'nothing needs you now')
    await press('n', `web ${d}`, 'next: the finished turn, when nothing else needs you')
    term.clear()
    term.write('\u001bn')
    await waitFor(() => term.screen.includes('nothing else'), 'the message line says nothing else waits', 15_000)
    t.same(server.clientViews(), [`web ${d}`], 'no move')
  })

  await t.test('back returns to where the last next started, and back again', async (t) => {
    await press('b', `web ${p}`, 'back: the pane before the last next')
    await press('b', `web ${d}`, 'back again: where back started')
  })

  await t.test('a new wait of a seen session is unseen again, and next finds it', async (t) => {
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { hook_event_name: 'UserPromptSubmit', prompt: 'go on' } })
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { last_assistant_message: 'Which branch?', prompt_id: 'p2' } })
    t.same((await ls()).map((i) => [i.sessionId, i.seen]), [[ids.q, false]], 'waits again: back in the queue')
    await press('n', `api ${q}`, 'next: the new wait')
  })

  await t.test('ack marks a wait seen by hand', async (t) => {
    await emit({ home, cwd, sessionId: ids.p, server, pane: p, event: { hook_event_name: 'UserPromptSubmit', prompt: 'go on' } })
    await emit({ home, cwd, sessionId: ids.p, server, pane: p, event: { last_assistant_message: 'Deploy now?', prompt_id: 'p3' } })
    const before = await ls()
    t.same(before.map((i) => i.sessionId), [ids.p])
    const r = await runCli(['ack', String(before[0]?.n)], env)
    t.equal(r.code, 0, r.stderr)
    t.match(r.stderr, /trailboss: seen \d · proj/)
    t.same(await ls(), [], 'acknowledged: out of the queue')
    const bad = await runCli(['ack', '99'], env)
    t.equal(bad.code, 1)
  })

  await t.test('a wait whose pane is in front of you for a few seconds becomes seen', async (t) => {
    // The client stays on api's pane; a new wait there is unseen until it has been in front 4 s.
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { hook_event_name: 'UserPromptSubmit', prompt: 'more' } })
    await emit({ home, cwd, sessionId: ids.q, server, pane: q, event: { last_assistant_message: 'And now?', prompt_id: 'p4' } })
    t.same(server.clientViews(), [`api ${q}`])
    // Before the first reader that can find it in front (this ls), so the 4 s count from after it.
    const began = Date.now()
    t.same((await ls()).map((i) => i.sessionId), [ids.q], 'new: listed')
    // status, as the status line runs it every few seconds, notes it and later marks it.
    await waitFor(
      async () => {
        await runCli(['status'], env)
        return (await ls()).length === 0
      },
      'the wait to leave the queue',
      30_000,
      200,
    )
    t.ok(Date.now() - began >= 4000, 'not before it was in front 4 s')
  })
})
