// Which host an ssh command line in a pane connects to, read as OpenSSH reads its argv, and which
// panes of a server run one (lib/remote/ssh-command.ts, lib/navigate/ssh-panes.ts).
import t from 'tap'
import { parseSshCommand, reachesDestination } from '../lib/remote/ssh-command.js'
import { deriveSshPanes, pickSshPane, type SshPane } from '../lib/navigate/ssh-panes.js'
import { hasSshConnection, parseSshClientPort, pickSshClient } from '../lib/navigate/go-to.js'
import type { Client } from '../lib/tmux/clients.js'
import { newWindowStep, remoteGoWords } from '../lib/navigate/go-remote.js'
import type { ProcStat } from '../lib/proc/agent-process.js'
import type { Pane } from '../lib/tmux/panes.js'

const reaches = (argv: string[], destination: string): boolean => {
  const cmd = parseSshCommand(argv)
  return cmd !== null && reachesDestination(cmd, destination)
}

t.test('an ssh command line reaches the destination its destination word names', async (t) => {
  const cases: [string[], string, boolean][] = [
    [['ssh', 'devbox'], 'devbox', true],
    [['ssh', '-p', '22', 'devbox'], 'devbox', true],
    [['ssh', '-p22', 'devbox'], 'devbox', true],
    [['ssh', '-t', 'devbox', 'tmux', 'attach'], 'devbox', true],
    [['/usr/bin/ssh', '-tt', 'devbox', 'tmux', 'attach', '-t', 'work'], 'devbox', true],
    [['ssh', 'user@devbox'], 'user@devbox', true],
    [['ssh', '-l', 'user', 'devbox'], 'user@devbox', true],
    [['ssh', 'user@devbox'], 'devbox', false],
    [['ssh', '-o', 'ServerAliveInterval=5', 'devbox'], 'devbox', true],
    [['ssh', '-oServerAliveInterval=5', 'devbox'], 'devbox', true],
    [['ssh', '-F', '/home/me/.ssh/other', 'devbox'], 'devbox', true],
    [['ssh', '-F', 'devbox', 'otherhost'], 'devbox', false],
    [['ssh', '-i', 'devbox', '-o', 'devbox', 'otherhost'], 'devbox', false],
    [['ssh', 'otherhost'], 'devbox', false],
    [['ssh', 'otherhost', 'ssh', 'devbox'], 'devbox', false],
    [['ssh', 'devbox', '-p', '2222', 'tmux', 'attach'], 'devbox', true],
    [['ssh', '-At', '-J', 'jump', '--', 'devbox', 'trailboss', 'go', 'ab12', '--attach'], 'devbox', true],
    [['ssh', '-O', 'check', 'devbox'], 'devbox', false],
    [['ssh', '-N', '-L', '8080:localhost:80', 'devbox'], 'devbox', false],
    [['ssh', '-G', 'devbox'], 'devbox', false],
    [['sshd', 'devbox'], 'devbox', false],
    [['mosh', 'devbox'], 'devbox', false],
    [['ssh'], 'devbox', false],
    [['ssh', '-p'], 'devbox', false],
  ]
  for (const [argv, dest, want] of cases) t.equal(reaches(argv, dest), want, `${argv.join(' ')} → ${dest}`)
})

t.test('the command after the destination is what runs on the host', async (t) => {
  t.same(parseSshCommand(['ssh', '-t', 'devbox', 'tmux', 'attach', '-t', 'x']), {
    destination: 'devbox',
    login: null,
    command: ['tmux', 'attach', '-t', 'x'],
  })
  t.same(parseSshCommand(['ssh', '-l', 'me', 'devbox', '--', '-x']), { destination: 'devbox', login: 'me', command: ['-x'] })
})

const stat = (pid: number, ppid: number, comm: string): ProcStat => ({ pid, ppid, comm, startTicks: 0 })
const pane = (paneId: string, panePid: number, dead = false): Pane => ({
  paneId,
  sessionId: '$0',
  sessionName: 'main',
  windowId: `@${paneId.slice(1)}`,
  windowIndex: 0,
  windowName: 'w',
  paneIndex: 0,
  panePid,
  currentCommand: 'bash',
  dead,
  active: true,
  width: 80,
  height: 24,
  serverPid: 1,
  inFront: true,
  sessionAttached: true,
  sessionActivity: 0,
})

t.test("the panes whose process tree runs ssh to the host, the pane's own process or a child of its shell", async (t) => {
  const table = new Map(
    [
      stat(100, 1, 'bash'),
      stat(101, 100, 'ssh'), // %1: a shell running ssh devbox
      stat(200, 1, 'ssh'), // %2: the pane runs ssh itself (a window opened by go)
      stat(300, 1, 'bash'),
      stat(301, 300, 'ssh'), // %3: ssh to another host
      stat(400, 1, 'bash'),
      stat(401, 400, 'vim'), // %4: says ssh devbox in its argv but is not ssh
      stat(500, 1, 'ssh'), // %5: dead pane
    ].map((s) => [s.pid, s]),
  )
  const argv: Record<number, string[]> = {
    101: ['ssh', '-t', 'devbox', 'tmux', 'attach'],
    200: ['ssh', '-F', '/x/config', '-t', '--', 'devbox', 'trailboss', 'go', 'ab12', '--attach'],
    301: ['ssh', 'otherhost'],
    401: ['ssh', 'devbox'],
    500: ['ssh', 'devbox'],
  }
  const panes = [pane('%1', 100), pane('%2', 200), pane('%3', 300), pane('%4', 400), pane('%5', 500, true)]
  const found = deriveSshPanes(panes, table, (pid) => argv[pid] ?? [], 'devbox')
  t.same(
    found.map((p) => p.paneId),
    ['%1', '%2'],
  )
  t.same(
    deriveSshPanes(panes, table, (pid) => argv[pid] ?? [], 'nowhere'),
    [],
  )
})

t.test('the pane to switch to: the one shown, else one whose ssh runs tmux there, else the first', async (t) => {
  const shell: SshPane = { paneId: '%1', windowId: '@1', pid: 101, argv: ['ssh', 'devbox'] }
  const attached: SshPane = { paneId: '%2', windowId: '@2', pid: 102, argv: ['ssh', '-t', 'devbox', 'tmux', 'attach'] }
  const ours: SshPane = {
    paneId: '%3',
    windowId: '@3',
    pid: 103,
    argv: ['ssh', '-t', '--', 'devbox', 'trailboss', 'go', 'ab12', '--attach'],
  }
  t.equal(pickSshPane([shell, attached], '%1')?.paneId, '%1')
  t.equal(pickSshPane([shell, attached], '%0')?.paneId, '%2')
  t.equal(pickSshPane([shell, ours], '%0')?.paneId, '%3')
  t.equal(pickSshPane([shell], '%0')?.paneId, '%1')
  t.equal(pickSshPane([], '%0'), undefined)
})

t.test('a client came over ssh when its environment has SSH_CONNECTION', async (t) => {
  t.equal(hasSshConnection('HOME=/h\0SSH_CONNECTION=127.0.0.1 5000 127.0.0.1 22\0'), true)
  t.equal(hasSshConnection('HOME=/h\0X_SSH_CONNECTION=1\0SSH_TTY=/dev/pts/1\0'), false)
})

t.test("SSH_CONNECTION's second field is the port the client's connection came from", async (t) => {
  t.equal(parseSshClientPort('HOME=/h\0SSH_CONNECTION=127.0.0.1 50312 127.0.0.1 22\0'), 50312)
  t.equal(parseSshClientPort('SSH_CONNECTION=fe80::1%eth0 40000 fe80::2 22'), 40000)
  t.equal(parseSshClientPort('X_SSH_CONNECTION=127.0.0.1 50312 127.0.0.1 22\0'), null)
  for (const bad of ['SSH_CONNECTION=', 'SSH_CONNECTION=1.2.3.4', 'SSH_CONNECTION=1.2.3.4 0 5.6.7.8 22', 'SSH_CONNECTION=a 70000 b 22'])
    t.equal(parseSshClientPort(bad), null, bad)
})

t.test('the client moved: the one from the given port, else the latest that came over ssh', async (t) => {
  const client = (name: string, pid: number, activity: number, controlMode = false): Client => ({
    name,
    tty: name,
    pid,
    activity,
    session: 's',
    controlMode,
    paneId: '%0',
  })
  const environ: Record<number, string | null> = {
    1: 'SSH_CONNECTION=10.0.0.1 41000 10.0.0.2 22', // a: the latest over ssh
    2: 'SSH_CONNECTION=10.0.0.1 42000 10.0.0.2 22', // b
    3: 'HOME=/h', // local: no ssh
    4: null, // unreadable
    5: 'SSH_CONNECTION=10.0.0.1 42000 10.0.0.2 22', // control mode, from b's port
    6: 'SSH_CONNECTION=10.0.0.1 42000 10.0.0.2 22', // b's multiplexed session, older
  }
  const clients = [client('b', 2, 100), client('a', 1, 200), client('local', 3, 300), client('ctl', 5, 400, true), client('b2', 6, 90)]
  const of = (pid: number): string | null => environ[pid] ?? null
  t.equal(pickSshClient(clients, of, 42000)?.name, 'b', "the port's client, though another is more recent")
  t.equal(pickSshClient(clients, of, 41000)?.name, 'a')
  t.equal(pickSshClient(clients, of, 43000), undefined, 'a port no client came from moves none')
  t.equal(pickSshClient(clients, of, undefined)?.name, 'a', 'no port: the latest over ssh')
  t.equal(pickSshClient([...clients, client('unknown', 4, 250)], of, undefined)?.name, 'unknown', 'an unreadable one may be ssh')
  t.equal(pickSshClient([...clients, client('unknown', 4, 250)], of, 41000)?.name, 'a', 'but never names a port')
})

t.test('the words sent to a host are a fixed list whose one variable is a checked key', async (t) => {
  t.same(remoteGoWords('3f2a9c1e', 'attach'), ['trailboss', 'go', '3f2a9c1e', '--attach'])
  t.same(remoteGoWords('ab-12_c', 'move-clients'), ['trailboss', 'go', 'ab-12_c', '--move-clients'])
  t.same(remoteGoWords('ab12', 'move-clients', 50312), ['trailboss', 'go', 'ab12', '--move-clients', '--client-port', '50312'])
  for (const bad of [0, 65536, -1, 1.5, Number.NaN])
    t.throws(() => remoteGoWords('ab12', 'move-clients', bad), /refused to send the port/, String(bad))
  t.throws(() => remoteGoWords('ab12', 'attach', 22), /refused to send the port/, 'a port only moves a client')
  for (const bad of ['', '3f2a;touch x', '$(id)', '-rf', 'a b', 'a\nb', 'x'.repeat(129), '../x', 'a:b'])
    t.throws(() => remoteGoWords(bad, 'attach'), /refused to send the key/, JSON.stringify(bad))
})

t.test('a new window runs ssh as separate words, and stays open when ssh fails', async (t) => {
  t.same(newWindowStep('/tmp/s', '@3', 'devbox', ['ssh', '-t', '--', 'devbox', 'trailboss']).args, [
    'new-window',
    '-a',
    '-t',
    '@3',
    '-n',
    'devbox',
    '--',
    'ssh',
    '-t',
    '--',
    'devbox',
    'trailboss',
    ';',
    'set-option',
    '-p',
    'remain-on-exit',
    'failed',
  ])
})
