// A throwaway OpenSSH "remote host" for tests: a real sshd on 127.0.0.1 and a free port, with its
// own host and client keys and its own $HOME, so one machine plays several hosts. Nothing here
// reads or writes the person's ~/.ssh: the client side is one `Host` block a test writes into its
// own config file and names with TRAILBOSS_SSH_CONFIG (ssh -F).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface SshHostOptions {
  /** The remote PATH (default this process's): a non-interactive ssh session gets sshd's own otherwise. */
  path?: string
  /** More variables every session on the host starts with (e.g. TRAILBOSS_HOME). */
  env?: Record<string, string>
}

export interface SshHost {
  /** The `Host` name the client block declares, and the host key's alias in known_hosts. */
  name: string
  port: number
  /** The listening sshd's pid. */
  pid: number
  dir: string
  /** The remote $HOME, where every session starts. */
  home: string
  /** The remote TMUX_TMPDIR (0700): a remote tmux's default server lives here. */
  tmuxTmpdir: string
  /** The client `Host` block; Trail Boss sets the connection-sharing and batch options itself. */
  configText: string
  knownHosts: string
  identity: string
  /** The host goes silent: sshd and every session under it stop (SIGSTOP); connections hang. */
  pause: () => void
  resume: () => void
  /** Sessions, then sshd, end; afterwards connections are refused. Safe to call twice. */
  stop: () => Promise<void>
}

const SSHD = '/usr/sbin/sshd'
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/
/** tmux's socket is `<TMUX_TMPDIR>/tmux-<uid>/default`, and a Unix socket path stays under 108 bytes. */
const MAX_TMUX_TMPDIR = 80
const START_TRIES = 20
const LISTEN_WAIT_MS = 5000

/** sshd processes started here, ended when this process exits (a crashed test leaves no sshd). */
const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** sshd_config takes `SetEnv "NAME=value"`: a value with a quote or a line break cannot be written. */
const setEnvWord = (name: string, value: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || /["\\\n\r]/.test(value)) throw new Error(`cannot pass ${name}=${value} through sshd_config`)
  return `"${name}=${value}"`
}

/** The pids of every process under `pid` (children first found, then theirs), from /proc. */
const descendants = (pid: number): number[] => {
  const parentOf = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The command name may hold spaces and parentheses: the fields after its last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parentOf.set(ppid, [...(parentOf.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    for (const child of parentOf.get(queue.shift()!) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

/** Whether `pid` still runs. A zombie does not: PID 1 here reaps orphans late, and kill -0 counts them. */
const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

const signal = (pids: readonly number[], sig: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig)
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const keygen = (file: string, comment: string): void => {
  if (!existsSync(file)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file], { stdio: 'ignore' })
}

/** Starts sshd on `port`: the process once it listens, or null when it did not (the port was taken). */
const listen = async (configFile: string, logFile: string, port: number): Promise<ChildProcess | null> => {
  writeFileSync(logFile, '')
  const log = openSync(logFile, 'a')
  const child = spawn(SSHD, ['-D', '-e', '-f', configFile], { stdio: ['ignore', log, log] })
  closeSync(log)
  running.add(child)
  let exited = false
  child.on('exit', () => {
    exited = true
    running.delete(child)
  })
  const ready = `Server listening on 127.0.0.1 port ${port}`
  const deadline = Date.now() + LISTEN_WAIT_MS
  while (!exited && Date.now() < deadline) {
    if (readFileSync(logFile, 'utf8').includes(ready)) return child
    await sleep(20)
  }
  if (!exited) {
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
  }
  return null
}

/**
 * Starts one host in `dir` (created if missing). Why the sshd_config looks as it does:
 * `StrictModes no` because keys under /tmp (mode 1777) are refused otherwise; `UsePAM no` works
 * for root whose password field is `*`; `SetEnv` gives each host its own HOME and a PATH (sshd's
 * default PATH has none of ours); ForceCommand starts every command in that HOME, where sshd
 * would `cd` to the password database's; MaxSessions 64 because past the default 10 sessions
 * over one master are refused and ssh falls back to a fresh connection.
 */
export async function startSshHost(dir: string, name: string, opts: SshHostOptions = {}): Promise<SshHost> {
  if (!NAME_PATTERN.test(name)) throw new Error(`bad host name ${name}`)
  dir = resolve(dir)
  const home = join(dir, 'home')
  mkdirSync(home, { recursive: true })
  // sshd's privilege separation directory is compiled in; the service would create it.
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  let tmuxTmpdir = join(dir, 'tmux')
  let ownTmuxDir = false
  if (Buffer.byteLength(tmuxTmpdir) > MAX_TMUX_TMPDIR) {
    tmuxTmpdir = mkdtempSync(join(tmpdir(), 'tb-rtmux-'))
    ownTmuxDir = true
  }
  mkdirSync(tmuxTmpdir, { recursive: true, mode: 0o700 })
  chmodSync(tmuxTmpdir, 0o700)

  const hostKey = join(dir, 'host_ed25519')
  const identity = join(dir, 'client_ed25519')
  const authorizedKeys = join(dir, 'authorized_keys')
  const knownHosts = join(dir, 'known_hosts')
  keygen(hostKey, `${name}-host`)
  keygen(identity, `${name}-client`)
  writeFileSync(authorizedKeys, readFileSync(`${identity}.pub`))
  // Matched through HostKeyAlias, whatever address and port the host has today.
  const [keyType, keyData] = readFileSync(`${hostKey}.pub`, 'utf8').split(' ')
  writeFileSync(knownHosts, `${name} ${keyType} ${keyData}\n`)

  const user = userInfo().username
  const env: Record<string, string> = {
    HOME: home,
    PATH: opts.path ?? process.env.PATH ?? '/usr/bin:/bin',
    TMUX_TMPDIR: tmuxTmpdir,
    ...opts.env,
  }
  const setEnv = Object.entries(env)
    .map(([k, v]) => setEnvWord(k, v))
    .join(' ')
  const sshdConfig = join(dir, 'sshd_config')
  const logFile = join(dir, 'sshd.log')
  const writeSshdConfig = (port: number): void =>
    writeFileSync(
      sshdConfig,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${authorizedKeys}`,
        'AuthenticationMethods publickey',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        `AllowUsers ${user}`,
        'UsePAM no',
        'StrictModes no',
        `SetEnv ${setEnv}`,
        'ForceCommand cd && exec "$SHELL" -c "${SSH_ORIGINAL_COMMAND:-exec $SHELL -l}"',
        'Subsystem sftp /usr/lib/openssh/sftp-server',
        'MaxSessions 64',
        'PrintMotd no',
        '',
      ].join('\n'),
    )

  let sshd: ChildProcess | null = null
  let port = 0
  for (let i = 0; i < START_TRIES && !sshd; i++) {
    port = 20000 + Math.floor(Math.random() * 40000)
    writeSshdConfig(port)
    sshd = await listen(sshdConfig, logFile, port)
  }
  if (!sshd?.pid) throw new Error(`sshd did not start; its log:\n${readFileSync(logFile, 'utf8')}`)
  const pid = sshd.pid
  const listener = sshd

  const configText = [
    `Host ${name}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${user}`,
    `  HostKeyAlias ${name}`,
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile /dev/null',
    '  StrictHostKeyChecking yes',
    '  UpdateHostKeys no',
    `  IdentityFile ${identity}`,
    '  IdentitiesOnly yes',
    '  IdentityAgent none',
    '  LogLevel ERROR',
    '',
  ].join('\n')

  // The whole tree, sessions included: a master's session is a child of the listener and
  // keeps serving it while only the listener is stopped.
  const tree = (): number[] => [pid, ...descendants(pid)]
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    const sessions = descendants(pid)
    // SIGCONT after SIGTERM: a paused process only sees its SIGTERM once it runs again.
    signal(sessions, 'SIGTERM')
    signal(sessions, 'SIGCONT')
    const exited =
      listener.exitCode !== null || listener.signalCode !== null ? Promise.resolve() : new Promise((r) => listener.once('exit', r))
    signal([pid], 'SIGTERM')
    signal([pid], 'SIGCONT')
    await Promise.race([exited, sleep(5000)])
    if (listener.exitCode === null && listener.signalCode === null) signal([pid], 'SIGKILL')
    const deadline = Date.now() + 5000
    while (sessions.some(isRunning) && Date.now() < deadline) await sleep(50)
    signal(sessions.filter(isRunning), 'SIGKILL')
    // A remote tmux server a test started there daemonised out of the tree: end it by its socket.
    const socket = join(tmuxTmpdir, `tmux-${process.getuid?.() ?? 0}`, 'default')
    if (existsSync(socket)) {
      try {
        execFileSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore', timeout: 2000 })
      } catch {
        // no server there any more
      }
    }
    if (ownTmuxDir) rmSync(tmuxTmpdir, { recursive: true, force: true })
  }

  return {
    name,
    port,
    pid,
    dir,
    home,
    tmuxTmpdir,
    configText,
    knownHosts,
    identity,
    pause: () => signal(tree(), 'SIGSTOP'),
    resume: () => signal(tree(), 'SIGCONT'),
    stop,
  }
}

/** One client config holding every host's block, 0600 as ssh expects of a config file. */
export function writeSshConfig(file: string, hosts: readonly SshHost[]): void {
  writeFileSync(file, hosts.map((h) => h.configText).join('\n'), { mode: 0o600 })
  chmodSync(file, 0o600)
}

const REPO = fileURLToPath(new URL('../..', import.meta.url))

/** A word for sh, single-quoted. */
const shQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`

/**
 * A folder holding `trailboss` and `trailboss-emit` that run this checkout's build (package.json
 * "bin"), to put first on a host's PATH: `npm run build` first.
 */
export function trailbossBinDir(root: string): string {
  const bin = join(resolve(root), 'bin')
  mkdirSync(bin, { recursive: true })
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  for (const [command, target] of Object.entries(pkg.bin)) {
    const file = join(bin, command)
    writeFileSync(file, `#!/bin/sh\nexec ${shQuote(process.execPath)} ${shQuote(join(REPO, target))} "$@"\n`)
    chmodSync(file, 0o755)
  }
  return bin
}
