// `go`, `next` and `back` to another host's wait, end to end: two real sshd hosts (each its own
// HOME, Trail Boss home and tmux server, a waiting agent stand-in there), a local tmux server
// with a terminal client, and the built CLI run as the person runs it inside tmux. ssh reads only
// the test's config (TRAILBOSS_SSH_CONFIG), with no agent. Run `npm run build` first.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { runCli } from './helpers/cli.js'
import { startSshHost, trailbossBinDir, writeSshConfig, type SshHost } from './helpers/ssh-host.js'
import { attachTerminalClient, startServer, waitFor } from './helpers/navigate-tmux.js'
import { captureIo } from './helpers/io.js'
import { queueItem } from './helpers/queue-item.js'
import { goToRemote, type RemoteGoDeps } from '../lib/navigate/go-remote.js'
import { onHosts } from '../lib/navigate/go-item.js'
import type { GoDeps } from '../lib/navigate/go-to.js'
import type { TmuxExec } from '../lib/tmux/exec.js'
import { CLIENT_FORMAT } from '../lib/tmux/clients.js'

t.setTimeout(180_000)

const STAND_IN = fileURLToPath(new URL('./helpers/agent-stand-in.cjs', import.meta.url))
const EMITTER = fileURLToPath(new URL('../dist/hooks/emit.cjs', import.meta.url))
const SCREEN = fileURLToPath(new URL('./fixtures/screens/03-permission-dialog.txt', import.meta.url))
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`
const { SSH_AUTH_SOCK: _agent, TMUX: _tmux, TMUX_PANE: _pane, ...base } = process.env

interface Host {
  ssh: SshHost
  home: string
  /** The host's default tmux server, where its waits and its ssh clients are. */
  socket: string
  tmux: (...args: string[]) => string
  clientViews: () => string[]
}

const startHost = async (root: string, name: string, shims: string): Promise<Host> => {
  const dir = join(root, name)
  const home = join(dir, 'tb')
  mkdirSync(home, { recursive: true, mode: 0o700 })
  const ssh = await startSshHost(dir, name, {
    path: `${shims}:${dirname(process.execPath)}:/usr/bin:/bin`,
    env: { TRAILBOSS_HOME: home },
  })
  t.teardown(() => ssh.stop())
  const socket = join(ssh.tmuxTmpdir, `tmux-${process.getuid?.() ?? 0}`, 'default')
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' })
  const clientViews = (): string[] => tmux('list-clients', '-F', '#{client_session} #{pane_id}').split('\n').filter(Boolean).sort()
  return { ssh, home, socket, tmux, clientViews }
}

t.test('go, next and back reach a wait on another host', async (t) => {
  const root = t.testdir({ proj: {} })
  const cwd = join(root, 'proj')
  const shims = trailbossBinDir(join(root, 'shims'))
  const devbox = await startHost(root, 'devbox', shims)
  const gpu = await startHost(root, 'gpu', shims)
  const config = join(root, 'ssh_config')
  writeSshConfig(config, [devbox.ssh, gpu.ssh])

  // A wait on each host, started there over ssh as a person's agent would run: gpu's first (older).
  const startWait = (host: Host, sessionId: string): void => {
    const event = {
      session_id: sessionId,
      transcript_path: `${cwd}/none.jsonl`,
      cwd,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'make deploy', description: 'Deploy' },
      prompt_id: 'p1',
    }
    const script = join(host.ssh.dir, 'start-wait.sh')
    const agent = [process.execPath, STAND_IN, EMITTER, host.home, SCREEN, JSON.stringify(event), cwd]
    writeFileSync(script, `exec tmux -f /dev/null new-session -d -s work -x 160 -y 40 ${agent.map(q).join(' ')}\n`)
    execFileSync('ssh', ['-F', config, '-o', 'BatchMode=yes', host.ssh.name, 'sh', script])
  }
  startWait(gpu, 'a1111111-0000-4000-8000-000000000001')
  startWait(devbox, 'b2222222-0000-4000-8000-000000000002')
  const waitPane = devbox.tmux('display-message', '-p', '-t', 'work', '#{pane_id}').trim()
  // A second session there, where the host's ssh client sits before it is moved.
  devbox.tmux('new-session', '-d', '-s', 'scratch', 'sleep', '1000')

  const home = join(root, 'home')
  mkdirSync(home, { mode: 0o700 })
  const env = { ...base, TRAILBOSS_HOME: home, TRAILBOSS_SSH_CONFIG: config, TRAILBOSS_SSH_PERSIST: '0' }
  for (const h of ['gpu', 'devbox']) t.equal((await runCli(['hosts', 'add', h], env)).code, 0, `hosts add ${h}`)
  type Listed = { queue: { key: string; destination: string | null }[] }
  let listed: Listed = { queue: [] }
  await waitFor(
    async () => {
      listed = JSON.parse((await runCli(['ls', '--json'], env)).stdout) as Listed
      return listed.queue.length === 2
    },
    'a wait on each host',
    30_000,
    300,
  )
  const keyOf = (dest: string): string => listed.queue.find((i) => i.destination === dest)?.key ?? ''
  const devKey = keyOf('devbox')
  const gpuKey = keyOf('gpu')
  const theirs = devKey.slice('devbox:'.length)
  t.match(devKey, /^devbox:b2222222/)
  t.match(gpuKey, /^gpu:a1111111/)

  // Here: a local tmux server, a person's terminal client on it, and go run from its first pane.
  const local = startServer(t, 'main')
  await attachTerminalClient(t, local, 'main')
  const inTmux = { ...env, TMUX: local.tmuxVar(), TMUX_PANE: local.firstPane }
  const windows = (): string[] => local.tmux('list-windows', '-a', '-F', '#{window_id}').split('\n').filter(Boolean)
  const go = (...args: string[]) => runCli(args, inTmux)

  await t.test('--print prints the new window it would open, and runs nothing', async (t) => {
    const r = await go('go', devKey, '--print')
    t.equal(r.code, 0, r.stderr)
    const lines = r.stdout.trim().split('\n')
    t.equal(lines.length, 1)
    t.match(
      lines[0],
      new RegExp(
        `^tmux -S ${local.socket} new-window -a -t @0 -n devbox -- ssh .*-t -- devbox trailboss go ${theirs} --attach ';' set-option -p remain-on-exit failed$`,
      ),
    )
    t.match(lines[0], `-F ${config}`)
    t.equal(windows().length, 1, 'no window opened')
    t.same(devbox.clientViews(), [], 'nothing attached there')
  })

  await t.test('go opens a window here running ssh, attached to the waiting pane there', async (t) => {
    const r = await go('go', devKey)
    t.equal(r.code, 0, r.stderr)
    await waitFor(() => devbox.clientViews().includes(`work ${waitPane}`), 'a client on the wait, over ssh', 20_000)
    t.equal(windows().length, 2, 'one new window')
    const [view] = local.clientViews()
    const shown = view?.split(' ')[1] ?? ''
    t.not(shown, local.firstPane, 'the local client shows the new window')
    t.equal(local.tmux('display-message', '-p', '-t', shown, '#{window_name}').trim(), 'devbox')
    const back = await go('back')
    t.equal(back.code, 0, back.stderr)
    t.same(local.clientViews(), [`main ${local.firstPane}`], 'back returns the local client to where it was')
    local.tmux('kill-window', '-t', local.tmux('display-message', '-p', '-t', shown, '#{window_id}').trim())
    await waitFor(() => devbox.clientViews().length === 0, 'the ssh client there gone with its window', 10_000)
  })

  await t.test("with a pane here already in ssh to the host's tmux, both clients move", async (t) => {
    // The person's own ssh, attached to another session there.
    const sshPane = local.newPane(
      ['new-window', '-d', '-t', 'main'],
      ['ssh', '-F', config, '-t', 'devbox', 'tmux', 'attach', '-t', 'scratch'],
    )
    await waitFor(() => devbox.clientViews().some((v) => v.startsWith('scratch ')), 'the person attached there', 20_000)
    const before = windows().length
    const printed = await go('go', devKey, '--print')
    t.match(
      printed.stdout,
      new RegExp(
        `-- devbox trailboss go ${theirs} --move-clients --client-port \\d+\ntmux -S \\S+ switch-client -c \\S+ -t \\${sshPane}\n$`,
      ),
    )
    t.same(
      devbox.clientViews().map((v) => v.split(' ')[0]),
      ['scratch'],
      '--print moved nothing there',
    )
    const r = await go('go', devKey)
    t.equal(r.code, 0, r.stderr)
    t.same(local.clientViews(), [`main ${sshPane}`], 'the local client shows the ssh pane')
    t.same(devbox.clientViews(), [`work ${waitPane}`], 'the client there shows the waiting pane')
    t.equal(windows().length, before, 'no window opened')
    const back = await go('back')
    t.equal(back.code, 0, back.stderr)
    t.same(local.clientViews(), [`main ${local.firstPane}`])
    local.tmux('kill-window', '-t', sshPane)
    await waitFor(() => devbox.clientViews().length === 0, 'the ssh client there gone with its window', 10_000)
  })

  await t.test("with two panes here in ssh to the host's tmux, the client of the pane gone to moves, not the latest", async (t) => {
    // Each its own ssh, no ControlMaster: its own TCP connection, its own SSH_CONNECTION there.
    const clientsThere = (): Map<string, { activity: number; view: string }> =>
      new Map(
        devbox
          .tmux('list-clients', '-F', '#{client_name} #{client_activity} #{session_name} #{pane_id}')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' '))
          .map(([name = '', activity = '', session = '', pane = '']) => [name, { activity: Number(activity), view: `${session} ${pane}` }]),
      )
    const attach = async (): Promise<{ pane: string; client: string }> => {
      const before = clientsThere()
      const pane = local.newPane(
        ['new-window', '-d', '-t', 'main'],
        ['ssh', '-F', config, '-t', 'devbox', 'tmux', 'attach', '-t', 'scratch'],
      )
      let client = ''
      await waitFor(
        () => {
          client = [...clientsThere().keys()].find((c) => !before.has(c)) ?? ''
          return client !== ''
        },
        'a client there from the new pane',
        20_000,
      )
      return { pane, client }
    }
    const b = await attach()
    // A attaches in a later second: it is the latest client there, which the rule without a port moves.
    const bAt = clientsThere().get(b.client)?.activity ?? 0
    await waitFor(() => Date.now() / 1000 >= bAt + 1, 'the next second', 3_000, 50)
    const a = await attach()
    t.ok((clientsThere().get(a.client)?.activity ?? 0) > bAt, "A's client is the more recently active")
    const localClient = local.tmux('list-clients', '-F', '#{client_name}').trim()
    local.tmux('switch-client', '-c', localClient, '-t', b.pane)

    const printed = await go('go', devKey, '--print')
    t.match(printed.stdout, new RegExp(`-- devbox trailboss go ${theirs} --move-clients --client-port \\d+\n`))
    const r = await go('go', devKey)
    t.equal(r.code, 0, r.stderr)
    const there = clientsThere()
    t.equal(there.get(b.client)?.view, `work ${waitPane}`, "pane B's client there shows the wait")
    t.equal(there.get(a.client)?.view.split(' ')[0], 'scratch', "pane A's client there stays")
    t.same(local.clientViews(), [`main ${b.pane}`], 'the local client shows pane B')
    for (const p of [a.pane, b.pane]) local.tmux('kill-window', '-t', p)
  })

  await t.test('a host that does not answer: its wait is not reachable, go says so and tries no ssh', async (t) => {
    await gpu.ssh.stop()
    const r = await go('go', gpuKey)
    t.equal(r.code, 1)
    t.match(r.stderr, 'trailboss: gpu did not answer; its wait may be over')
    // The oldest wait is gpu's, now stale: go and next pick devbox's.
    const oldest = await go('go', '--print')
    t.equal(oldest.code, 0, oldest.stderr)
    t.match(oldest.stdout, `devbox trailboss go ${theirs} --`)
    const next = await go('next', '--print')
    t.equal(next.code, 0, next.stderr)
    t.match(next.stdout, `devbox trailboss go ${theirs} --`)
    const local1 = await go('go', devKey, '--local', '--print')
    t.equal(local1.code, 1)
    t.match(local1.stderr, 'no session matches')
  })
})

// The checks before ssh, with seams that record every call: nothing reaches ssh or tmux.
t.test('a stale wait or a bad key never reaches ssh', async (t) => {
  const calls: string[] = []
  const exec: TmuxExec = async (args) => {
    calls.push(`tmux ${args.join(' ')}`)
    return { code: 0, stdout: '', stderr: '' }
  }
  const deps: GoDeps = { exec, attach: async () => 0, host: 'here' }
  const remote: RemoteGoDeps = {
    runSsh: async (_env, dest, words) => {
      calls.push(`ssh ${dest} ${words.join(' ')}`)
      return { ok: true, stdout: '', stderr: '', ms: 0 }
    },
    inTerminal: async (file, argv) => {
      calls.push(`${file} ${argv.join(' ')}`)
      return 0
    },
    sshPanes: async () => [{ paneId: '%1', windowId: '@1', pid: 1, argv: ['ssh', 'devbox'] }],
    connectionPort: () => null,
  }
  const io = captureIo({ TMUX: '/tmp/s,1,0', TMUX_PANE: '%0', TRAILBOSS_HOME: t.testdir() })
  const remoteItem = (key: string, stale = false) =>
    queueItem({ key: `devbox:${key}`, sessionId: `devbox:${key}`, remote: { destination: 'devbox', key, sessionId: key, stale } })
  await t.rejects(goToRemote(remoteItem('ab12', true), { queue: [] }, { print: false }, io, deps, remote), {
    message: 'devbox did not answer; its wait may be over',
  })
  for (const bad of ['ab;touch x', '-oProxyCommand=x', '$(id)', 'a b'])
    await t.rejects(goToRemote(remoteItem(bad), { queue: [] }, { print: false }, io, deps, remote), /refused to send the key/, bad)
  t.same(calls, [], 'no ssh, no tmux')
})

// The port of the pane's ssh goes to the host; a host from before --client-port refuses the
// option (a usage error, exit 2), and go says to update it there and opens a window instead.
t.test('go sends the port of the ssh pane; an older host is told apart and a window opens', async (t) => {
  const calls: string[] = []
  // One client, as tmux prints it in CLIENT_FORMAT.
  const fields: Record<string, string> = {
    client_name: '/dev/pts/1',
    client_tty: '/dev/pts/1',
    client_pid: '10',
    client_activity: '100',
    client_control_mode: '0',
    pane_id: '%0',
    client_session: 'main',
  }
  const client = CLIENT_FORMAT.replace(/#\{(\w+)\}/g, (_, f: string) => fields[f] ?? '')
  const exec: TmuxExec = async (args) => {
    calls.push(`tmux ${args.join(' ')}`)
    if (args[0] === 'list-clients') return { code: 0, stdout: `${client}\n`, stderr: '' }
    if (args[0] === 'display-message') return { code: 0, stdout: '@0\n', stderr: '' }
    return { code: 0, stdout: '', stderr: '' }
  }
  const deps: GoDeps = { exec, attach: async () => 0, host: 'here' }
  const remote: RemoteGoDeps = {
    runSsh: async (_env, dest, words) => {
      calls.push(`ssh ${dest} ${words.join(' ')}`)
      return {
        ok: false,
        reason: 'exit',
        message: 'the remote command exited with 2',
        code: 2,
        stderr: 'Unknown argument: client-port\n',
        ms: 1,
      }
    },
    inTerminal: async () => 0,
    sshPanes: async () => [{ paneId: '%1', windowId: '@1', pid: 4242, argv: ['ssh', '-t', 'devbox', 'tmux', 'attach'] }],
    connectionPort: (pid) => (pid === 4242 ? 50312 : null),
  }
  const io = captureIo({ TMUX: '/tmp/s,1,0', TMUX_PANE: '%0', TRAILBOSS_HOME: t.testdir() })
  const item = queueItem({
    key: 'devbox:ab12',
    sessionId: 'devbox:ab12',
    remote: { destination: 'devbox', key: 'ab12', sessionId: 'ab12', stale: false },
  })
  t.equal(await goToRemote(item, { queue: [] }, { print: false }, io, deps, remote), 0)
  t.ok(calls.includes('ssh devbox trailboss go ab12 --move-clients --client-port 50312'), 'the port of the pane’s ssh is sent')
  t.match(io.err(), 'devbox moved no client there (its trailboss does not know --client-port: update it there); opening a window')
  t.ok(
    calls.some((c) => c.startsWith('tmux new-window -a -t @0 -n devbox -- ssh ')),
    'a window opens',
  )
  t.notOk(
    calls.some((c) => c.startsWith('tmux switch-client')),
    'no switch to the ssh pane',
  )
})

t.test("--host narrows the waits go and next choose from; 'local' is this machine", async (t) => {
  const here = queueItem({ key: 'aa' })
  const dev = queueItem({ key: 'devbox:bb', remote: { destination: 'devbox', key: 'bb', sessionId: 'bb', stale: false } })
  const gpu = queueItem({ key: 'gpu:cc', remote: { destination: 'gpu', key: 'cc', sessionId: 'cc', stale: false } })
  const keys = (hosts?: string[]) => onHosts([here, dev, gpu], hosts).map((i) => i.key)
  t.same(keys(), ['aa', 'devbox:bb', 'gpu:cc'])
  t.same(keys(['devbox']), ['devbox:bb'])
  t.same(keys(['local', 'gpu']), ['aa', 'gpu:cc'])
})
