import * as fs from 'node:fs'
import * as os from 'node:os'
import t from 'tap'
import { execTmux } from '../lib/tmux/exec.js'
import { formatCommand } from '../lib/text/command-line.js'
import { attachTmux, runPlan } from '../lib/tmux/attach.js'
import { byActivity, type Client, CLIENT_FORMAT, listClients, parseClients, readPane } from '../lib/tmux/clients.js'
import { formatStep, type GoContext, planGo } from '../lib/tmux/go-plan.js'
import { attachControlClient, newPane, startServer, waitFor } from './helpers/navigate-tmux.js'

const US = '|~|'
const client = (name: string, paneId: string, activity: number, pid = 100): Client => ({
  name,
  tty: name.startsWith('/dev/') ? name : '',
  pid,
  activity,
  session: 's',
  controlMode: !name.startsWith('/dev/'),
  paneId,
})

t.test('parseClients reads captured list-clients output', async (t) => {
  const text = [
    ['/dev/pts/5', '/dev/pts/5', '5664', '1796047042', '0', '%1', 'alpha'].join(US),
    ['client-5181', '', '5181', '1796046994', '1', '%3', 'beta|~|odd name'].join(US),
    '',
  ].join('\n')
  t.same(parseClients(text), [
    { name: '/dev/pts/5', tty: '/dev/pts/5', pid: 5664, activity: 1796047042, session: 'alpha', controlMode: false, paneId: '%1' },
    { name: 'client-5181', tty: '', pid: 5181, activity: 1796046994, session: 'beta|~|odd name', controlMode: true, paneId: '%3' },
  ])
  t.same(parseClients(''), [])
  t.equal(CLIENT_FORMAT.split(US).length, 7)
})

t.test('planGo chooses the client (docs/design.md §5)', async (t) => {
  const sock = '/tmp/tmux-1000/default'
  const other = '/tmp/tmux-1000/work'
  const target = { pane: '%12', socket: sock }
  const a = client('/dev/pts/1', '%3', 50, 1)
  const b = client('/dev/pts/2', '%7', 90, 2)
  const c = client('client-9', '%3', 70, 9)
  const base: GoContext = { callerSocket: sock, callerPane: '%3', terminal: true, targetClients: [a, b, c] }
  const moved = (ctx: GoContext): string | null => {
    const p = planGo(target, ctx)
    return p.ok && p.how === 'switch' ? p.client.name : p.ok ? p.how : p.why
  }
  t.equal(moved(base), 'client-9', 'the client showing the caller pane, most recently active of those')
  t.equal(moved({ ...base, callerPane: '%99' }), '/dev/pts/2', 'no client shows the caller pane: the most recently active')
  t.equal(moved({ ...base, callerPane: null }), '/dev/pts/2', 'run-shell and popups have no TMUX_PANE')
  t.equal(moved({ ...base, client: '/dev/pts/1' }), '/dev/pts/1', '--client wins')
  t.equal(moved({ ...base, client: 'client-9', callerPane: null }), 'client-9', 'a control-mode client by name')
  t.equal(moved({ ...base, client: '/dev/pts/8' }), 'unknown-client')
  t.equal(moved({ ...base, targetClients: [] }), 'no-client')
  t.equal(moved({ ...base, callerSocket: other }), 'other-server', 'clients cannot cross servers')
  t.equal(moved({ ...base, callerSocket: other, client: '/dev/pts/2' }), '/dev/pts/2', 'a --client found on the target server moves')
  t.equal(moved({ ...base, callerSocket: other, client: '/dev/pts/4', callerClients: [client('/dev/pts/4', '%1', 1)] }), 'other-server')
  t.equal(moved({ ...base, callerSocket: null, callerPane: null }), 'attach', 'a plain terminal becomes the client')
  t.equal(moved({ ...base, callerSocket: null, callerPane: null, terminal: false }), '/dev/pts/2', 'no terminal: the latest client')
  t.equal(moved({ ...base, callerSocket: null, callerPane: null, terminal: false, targetClients: [] }), 'no-terminal')

  const sw = planGo(target, base)
  t.same(sw.ok && sw.steps, [{ socket: sock, mode: 'tmux', args: ['switch-client', '-c', 'client-9', '-t', '%12'] }])
  const at = planGo(target, { ...base, callerSocket: null })
  t.same(at.ok && at.steps, [{ socket: sock, mode: 'attach', args: ['attach-session', '-t', '%12'] }])
  const x = planGo(target, { ...base, callerSocket: other })
  t.same(!x.ok && x.command, ['tmux', '-S', sock, 'attach-session', '-t', '%12'])
  t.match(!x.ok && x.hint, `tmux -S ${sock} attach-session -t %12`)
})

t.test('byActivity breaks ties by the newer client', async (t) => {
  t.same(
    [client('a', '%1', 5, 1), client('b', '%1', 5, 2), client('c', '%1', 6, 0)].sort(byActivity).map((c) => c.name),
    ['c', 'b', 'a'],
  )
})

t.test('formatCommand quotes for a POSIX shell', async (t) => {
  t.equal(formatCommand(['tmux', '-S', '/tmp/a b/s', 'attach-session', '-t', '%1']), "tmux -S '/tmp/a b/s' attach-session -t %1")
  t.equal(formatCommand(["it's"]), `'it'\\''s'`)
  t.equal(
    formatStep({ socket: '/s', mode: 'tmux', args: ['switch-client', '-c', 'client-1', '-t', '%2'] }),
    'tmux -S /s switch-client -c client-1 -t %2',
  )
})

t.test('against a real tmux server', async (t) => {
  const server = startServer(t, 'alpha')
  const p1 = newPane(server, ['split-window', '-t', 'alpha'])
  server.tmux('new-session', '-d', '-s', 'beta', 'sleep', '1000')
  const p3 = newPane(server, ['new-window', '-t', 'beta'])
  newPane(server, ['new-window', '-t', 'beta'])

  t.same(await listClients(server.socket, execTmux), [], 'no client yet')
  await attachControlClient(t, server, 'alpha')
  const clients = await listClients(server.socket, execTmux)
  t.equal(clients.length, 1)
  t.equal(clients[0]?.controlMode, true)
  t.equal(clients[0]?.session, 'alpha')
  t.match(clients[0]?.name, /^client-\d+$/)

  t.same(await readPane(server.socket, p3, execTmux), { state: 'live', serverPid: server.pid })
  t.same(await readPane(server.socket, '%999', execTmux), { state: 'missing' })
  t.same(await readPane(`${server.dir}/nothing`, p3, execTmux), { state: 'no-server' })

  // switch-client with a pane target: another session, a window that is not current, a pane that is not active
  const plan = planGo(
    { pane: p3, socket: server.socket },
    { callerSocket: server.socket, callerPane: p1, terminal: false, targetClients: clients },
  )
  t.ok(plan.ok)
  if (!plan.ok) return
  t.equal(await runPlan(plan.steps), 0)
  t.same(server.clientViews(), [`beta ${p3}`])
  const back = planGo(
    { pane: p1, socket: server.socket },
    { callerSocket: server.socket, callerPane: null, terminal: false, targetClients: clients },
  )
  t.equal(back.ok && (await runPlan(back.steps)), 0)
  t.same(server.clientViews(), [`alpha ${p1}`])

  await t.rejects(
    runPlan([{ socket: server.socket, mode: 'tmux', args: ['switch-client', '-c', 'client-1', '-t', '%999'] }]),
    /tmux switch-client failed: can't find/,
  )

  server.tmux('set-option', '-t', 'alpha', 'remain-on-exit', 'on')
  const dying = newPane(server, ['split-window', '-t', 'alpha'], ['true'])
  const deadline = Date.now() + 5000
  while ((await readPane(server.socket, dying, execTmux)).state !== 'dead' && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50))
  t.same(await readPane(server.socket, dying, execTmux), { state: 'dead' }, 'remain-on-exit keeps a dead pane')
})

/** Whether our child `tmux … wait-for never` has a handler for `signal` (Linux: /proc). */
const tmuxClientCatches = (signal: 'SIGTERM'): boolean => {
  const kids = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
  const client = kids.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('wait-for'))
  if (!client) return false
  const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(fs.readFileSync(`/proc/${client}/status`, 'utf8'))?.[1] ?? '0'
  return (BigInt(`0x${caught}`) & (1n << BigInt(os.constants.signals[signal] - 1))) !== 0n
}

t.test('attachTmux passes the exit code and forwards signals', async (t) => {
  const server = startServer(t, 'alpha')
  // No terminal here: tmux refuses to attach and its exit code comes back as ours.
  t.equal(await attachTmux(['-S', server.socket, 'attach-session', '-t', 'alpha'], process.env), 1)
  // A signal sent to us reaches the tmux client (here a `wait-for` that would block forever).
  const running = attachTmux(['-S', server.socket, 'wait-for', 'never'], process.env)
  // Until tmux has its SIGTERM handler in place, the signal would kill it outright.
  await waitFor(() => tmuxClientCatches('SIGTERM'), 'the tmux client handles SIGTERM')
  process.kill(process.pid, 'SIGTERM')
  // Without the forward it would never end; tmux's client handles SIGTERM and exits 0.
  t.equal(await running, 0, 'ended by the forwarded SIGTERM')
  t.equal(process.listenerCount('SIGTERM') < 5, true, 'handlers are removed again')
  await t.rejects(attachTmux(['-V'], { PATH: server.dir }), { name: 'TmuxUnavailable' })
})
