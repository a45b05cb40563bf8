// Throwaway OpenSSH hosts on loopback for the remote benchmark: each a real sshd on 127.0.0.1
// with its own keys, $HOME and TMUX_TMPDIR, and this checkout's built `trailboss` first on its
// PATH. The same recipe as the tests' harness (test/helpers/ssh-host.ts), cut to what a bench
// needs, in plain JS so `node bench/run.mjs` runs it without a TypeScript loader.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sleep } from './lib.mjs'

const SSHD = '/usr/sbin/sshd'
const REPO = fileURLToPath(new URL('..', import.meta.url))
const START_TRIES = 20
const LISTEN_WAIT_MS = 5000

/** sshd processes started here end with this process, whatever happened to the bench. */
const running = new Set()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Every pid under `pid`, from /proc (a master's session is a child of the listener). */
const descendants = (pid) => {
  const children = new Map()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const found = []
  for (const queue = [pid]; queue.length > 0;) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

const signal = (pids, sig) => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig)
    } catch {
      // already gone
    }
  }
}

const keygen = (file, comment) => {
  if (!existsSync(file)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file], { stdio: 'ignore' })
}

/** sshd on `port` once it listens, or null when it could not (the port was taken). */
const listen = async (configFile, logFile, port) => {
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
  const deadline = Date.now() + LISTEN_WAIT_MS
  while (!exited && Date.now() < deadline) {
    if (readFileSync(logFile, 'utf8').includes(`Server listening on 127.0.0.1 port ${port}`)) return child
    await sleep(20)
  }
  if (!exited) child.kill('SIGKILL')
  return null
}

/** A folder with `trailboss` and `trailboss-emit` running this checkout's build, for a host's PATH. */
export const trailbossBinDir = (root) => {
  const bin = join(resolve(root), 'bin')
  mkdirSync(bin, { recursive: true })
  const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
  for (const [command, target] of Object.entries(pkg.bin)) {
    writeFileSync(join(bin, command), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(join(REPO, target))} "$@"\n`, { mode: 0o755 })
  }
  return bin
}

/**
 * One host in `dir` named `name`. `StrictModes no`: keys under /tmp would be refused; `UsePAM no`
 * lets root in without a password entry; `SetEnv` gives the host its own HOME, PATH and tmux
 * folder; ForceCommand starts every command in that HOME; MaxSessions past the default 10, or
 * sessions over one master are refused. `dir` must be short: tmux's socket path stays under 108
 * bytes.
 */
export const startSshHost = async (dir, name, { path }) => {
  dir = resolve(dir)
  const home = join(dir, 'home')
  const tmuxTmpdir = join(dir, 'tmux')
  mkdirSync(home, { recursive: true })
  mkdirSync(tmuxTmpdir, { recursive: true, mode: 0o700 })
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  const hostKey = join(dir, 'host_ed25519')
  const identity = join(dir, 'client_ed25519')
  const authorizedKeys = join(dir, 'authorized_keys')
  const knownHosts = join(dir, 'known_hosts')
  keygen(hostKey, `${name}-host`)
  keygen(identity, `${name}-client`)
  writeFileSync(authorizedKeys, readFileSync(`${identity}.pub`))
  const [keyType, keyData] = readFileSync(`${hostKey}.pub`, 'utf8').split(' ')
  writeFileSync(knownHosts, `${name} ${keyType} ${keyData}\n`)
  const env = { HOME: home, PATH: path, TMUX_TMPDIR: tmuxTmpdir }
  for (const [k, v] of Object.entries(env)) if (/["\\\n\r]/.test(v)) throw new Error(`cannot pass ${k}=${v} through sshd_config`)
  const user = userInfo().username
  const sshdConfig = join(dir, 'sshd_config')
  const logFile = join(dir, 'sshd.log')
  let sshd = null
  let port = 0
  for (let i = 0; i < START_TRIES && !sshd; i++) {
    port = 20000 + Math.floor(Math.random() * 40000)
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
        `SetEnv ${Object.entries(env)
          .map(([k, v]) => `"${k}=${v}"`)
          .join(' ')}`,
        'ForceCommand cd && exec "$SHELL" -c "${SSH_ORIGINAL_COMMAND:-exec $SHELL -l}"',
        'MaxSessions 64',
        'PrintMotd no',
        '',
      ].join('\n'),
    )
    sshd = await listen(sshdConfig, logFile, port)
  }
  if (!sshd) throw new Error(`sshd did not start for ${name}; its log:\n${readFileSync(logFile, 'utf8')}`)
  const pid = sshd.pid
  const configText = [
    `Host ${name}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${user}`,
    `  HostKeyAlias ${name}`,
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile /dev/null',
    '  StrictHostKeyChecking yes',
    `  IdentityFile ${identity}`,
    '  IdentitiesOnly yes',
    '  IdentityAgent none',
    '  LogLevel ERROR',
    '',
  ].join('\n')
  let stopped = false
  /** Sessions, then the listener; its tmux server (daemonised out of the tree) by its socket. */
  const stop = async () => {
    if (stopped) return
    stopped = true
    const sessions = descendants(pid)
    // SIGCONT after SIGTERM: a paused process sees its SIGTERM only once it runs again.
    signal([...sessions, pid], 'SIGTERM')
    signal([...sessions, pid], 'SIGCONT')
    const deadline = Date.now() + 5000
    while (sshd.exitCode === null && sshd.signalCode === null && Date.now() < deadline) await sleep(20)
    signal([pid, ...sessions], 'SIGKILL')
    const socket = join(tmuxTmpdir, `tmux-${process.getuid()}`, 'default')
    if (existsSync(socket)) {
      try {
        execFileSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore', timeout: 2000 })
      } catch {
        // no server there any more
      }
    }
  }
  return {
    name,
    port,
    home,
    tmuxTmpdir,
    configText,
    /** Silent: the listener and every session under it stopped; connections hang. */
    pause: () => signal([pid, ...descendants(pid)], 'SIGSTOP'),
    resume: () => signal([pid, ...descendants(pid)], 'SIGCONT'),
    stop,
  }
}

/** One client config with every host's block, 0600 as ssh wants it. */
export const writeSshConfig = (file, hosts) => {
  writeFileSync(file, hosts.map((h) => h.configText).join('\n'), { mode: 0o600 })
  chmodSync(file, 0o600)
}
