// Going to another host's wait (docs/design.md §10.4). Nothing of the host's own answer reaches
// ssh but the session's key, checked against the key pattern: the host's `trailboss go` finds the
// pane itself (`--attach`, `--move-clients`), so no remote socket path or pane id is ever sent.
// Either a pane here already runs ssh to that host, attached to its tmux server (the host says so
// by moving its client), and this client switches to it; or a new window here runs ssh attached
// to the pane; outside tmux, this terminal does.
import { EXIT_OK, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { type Env, SESSION_ID_PATTERN } from '../paths.js'
import type { QueueItem } from '../queue/derive.js'
import type { QueueView } from '../queue/load.js'
import { writeOrigin } from '../queue/origin.js'
import { sshArgs } from '../remote/ssh-args.js'
import { ensureControlDir, runSsh, type SshResult } from '../remote/ssh-run.js'
import { describeFailure } from '../remote/fleet.js'
import { runInTerminal } from '../tmux/attach.js'
import { listClients } from '../tmux/clients.js'
import { callerSocket } from '../tmux/env.js'
import { formatStep, type Step } from '../tmux/go-plan.js'
import { formatCommand } from '../text/command-line.js'
import { formatVisible } from '../text/visible-text.js'
import { describeItem } from './describe-item.js'
import { type GoDeps, type GoWay, goneError, noTmuxError, pickClient, tellClient, withTmux } from './go-to.js'
import { listSshPanes, pickSshPane, type SshPane } from './ssh-panes.js'
import { readConnectionPort } from '../proc/tcp-port.js'

/** What the host is asked to do: attach the terminal ssh gives it, or move its client. */
export type RemoteMode = 'attach' | 'move-clients'

/** The seams to ssh and the process table, swapped by tests. */
export interface RemoteGoDeps {
  runSsh: (env: Env, destination: string, words: readonly string[]) => Promise<SshResult>
  /** A program with this terminal (inherited stdio); its exit code. */
  inTerminal: (file: string, argv: string[], env: NodeJS.ProcessEnv) => Promise<number>
  sshPanes: (socket: string, destination: string, deps: GoDeps) => Promise<SshPane[]>
  /** The local port of a process's TCP connection (null: none, as over a ControlMaster or a proxy). */
  connectionPort: (pid: number) => number | null
}

export const defaultRemoteGoDeps: RemoteGoDeps = {
  runSsh: (env, destination, words) => runSsh(env, destination, words),
  inTerminal: runInTerminal,
  sshPanes: (socket, destination, deps) => listSshPanes(socket, destination, deps.exec),
  connectionPort: readConnectionPort,
}

/**
 * Pure: the words the host runs, a fixed list whose only variables are the session's key there,
 * refused unless it fits the key pattern (the host's answer was checked, this checks again) and
 * does not start with `-` (the host's own `trailboss` would read it as an option), and, to move
 * a client, the local port of the pane's ssh connection (an integer 1–65535).
 */
export const remoteGoWords = (key: string, mode: RemoteMode, clientPort: number | null = null): string[] => {
  if (!SESSION_ID_PATTERN.test(key) || key.startsWith('-'))
    throw new TrailbossError(
      `refused to send the key ${JSON.stringify(formatVisible(key))} to another host`,
      'a key is letters, digits, _ and -, not first',
    )
  if (clientPort === null) return ['trailboss', 'go', key, `--${mode}`]
  if (mode !== 'move-clients' || !Number.isInteger(clientPort) || clientPort < 1 || clientPort > 65535)
    throw new TrailbossError(`refused to send the port ${String(clientPort)} to another host`, 'a port is 1-65535, with --move-clients')
  return ['trailboss', 'go', key, `--${mode}`, '--client-port', String(clientPort)]
}

/** The argv of the interactive ssh that attaches to the wait's pane, `ssh` first. */
const attachArgv = (env: Env, destination: string, key: string): string[] => [
  'ssh',
  ...sshArgs(env, destination, remoteGoWords(key, 'attach'), { tty: true, master: ensureControlDir(env) }),
]

/**
 * Pure: the tmux step that opens a window beside `windowId` running `argv`. tmux 3.x runs a
 * command given as several words without a shell; a window whose ssh fails stays open, so its
 * error can be read (`remain-on-exit failed`, set in the same command list, before it can exit).
 */
export const newWindowStep = (socket: string, windowId: string, name: string, argv: readonly string[]): Step => ({
  socket,
  mode: 'tmux',
  args: ['new-window', '-a', '-t', windowId, '-n', name, '--', ...argv, ';', 'set-option', '-p', 'remain-on-exit', 'failed'],
})

const runStep = async (step: Step, deps: GoDeps): Promise<void> => {
  const r = await withTmux(() => deps.exec(step.args, { socket: step.socket }))
  if (r.code !== 0) throw new TrailbossError(`tmux ${step.args[0]} failed: ${r.stderr.trim() || `exit ${r.code}`}`, 'nothing moved')
}

/** Takes the person to another host's wait (or prints how); returns the exit code. */
export const goToRemote = async (
  item: QueueItem,
  view: Pick<QueueView, 'queue'>,
  way: GoWay,
  io: Io,
  deps: GoDeps,
  remote: RemoteGoDeps = defaultRemoteGoDeps,
): Promise<number> => {
  const origin = item.remote
  if (!origin) throw new Error('goToRemote takes a remote item')
  const dest = origin.destination
  const shown = formatVisible(dest)
  // Its last known queue only: the wait may be answered, or the host down. No ssh beyond the read.
  if (origin.stale) throw new TrailbossError(`${shown} did not answer; its wait may be over`, 'trailboss ls says what each host answered')
  if (!item.tmux || item.headless) throw noTmuxError(item, deps.host)
  if (item.state === 'gone' || item.tmux.alive === false) throw goneError(item, view, item.reason ?? 'no longer in tmux')
  const key = origin.key
  // Both checked before anything runs: a bad key or destination never reaches ssh.
  remoteGoWords(key, 'move-clients')
  const attach = attachArgv(io.env, dest, key)

  const caller = callerSocket(io.env.TMUX)
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true
  if (caller === null) {
    if (way.client !== undefined)
      throw new TrailbossError(`--client names a client of the tmux server you run in, and this runs outside tmux`, 'run it inside tmux')
    if (!terminal)
      throw new TrailbossError(
        `not in tmux and not on a terminal, so nothing can show ${describeItem(item)}`,
        `from a terminal: ${formatCommand(attach)}`,
      )
    io.stderr.write(`trailboss: going to ${describeItem(item)}\n`)
    if (way.print) {
      io.stdout.write(`${formatCommand(attach)}\n`)
      return EXIT_OK
    }
    // The host's `go --attach` marks it seen there; ssh returns when the person detaches.
    const { TMUX: _tmux, TMUX_PANE: _pane, ...env } = io.env
    return remote.inTerminal('ssh', attach.slice(1), env).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new TrailbossError('ssh is not installed or not on PATH', 'install OpenSSH') : err
    })
  }

  const clients = await withTmux(() => listClients(caller, deps.exec))
  const client = pickClient(clients, way.client, io.env.TMUX_PANE ?? null)
  if (!client)
    throw new TrailbossError(
      way.client !== undefined ? `no tmux client named ${way.client}` : 'no client is attached to this tmux server',
      'list them with `tmux list-clients`',
    )
  // Where the client was, for `trailboss back`.
  const remember = (pane: string | null): void => {
    if (client.paneId && client.paneId !== pane)
      writeOrigin(io.env, { socket: caller, client: client.name, pane: client.paneId, at: io.now() })
  }
  io.stderr.write(`trailboss: going to ${describeItem(item)}\n`)

  // A pane here that runs ssh to the host.
  const pane = pickSshPane(await remote.sshPanes(caller, dest, deps).catch(() => []), client.paneId)
  if (pane) {
    // The port the pane's ssh left from names its client there (SSH_CONNECTION); without one
    // (it multiplexes over a ControlMaster, or runs through a proxy) the host moves its latest.
    const words = remoteGoWords(key, 'move-clients', remote.connectionPort(pane.pid))
    const switchStep: Step = { socket: caller, mode: 'tmux', args: ['switch-client', '-c', client.name, '-t', pane.paneId] }
    if (way.print) {
      io.stdout.write(`${formatCommand(['ssh', ...sshArgs(io.env, dest, words, { master: ensureControlDir(io.env) })])}\n`)
      io.stdout.write(`${formatStep(switchStep)}\n`)
      return EXIT_OK
    }
    // The host moves a client of the wait's server that came over ssh, or says none is there.
    const moved = await remote.runSsh(io.env, dest, words)
    if (moved.ok) {
      await runStep(switchStep, deps)
      remember(pane.paneId)
      await tellClient(way, io, caller, `trailboss: went to ${describeItem(item)}`, deps.exec)
      return EXIT_OK
    }
    // A usage error (exit 2): a trailboss there from before --client-port.
    const why =
      !moved.ok && moved.reason === 'exit' && moved.code === 2
        ? `its trailboss does not know --client-port: update it there`
        : describeFailure(moved)
    io.stderr.write(`trailboss: ${pane.paneId} runs ssh to ${shown} but ${shown} moved no client there (${why}); opening a window\n`)
  }

  const window = await withTmux(() => deps.exec(['display-message', '-p', '-t', client.paneId, '#{window_id}'], { socket: caller }))
  const windowId = window.stdout.trim()
  if (window.code !== 0 || !/^@\d+$/.test(windowId))
    throw new TrailbossError(`cannot tell which window ${client.name} shows`, window.stderr.trim() || 'nothing moved')
  const step = newWindowStep(caller, windowId, dest, attach)
  if (way.print) {
    io.stdout.write(`${formatStep(step)}\n`)
    return EXIT_OK
  }
  await runStep(step, deps)
  remember(null)
  await tellClient(way, io, caller, `trailboss: went to ${describeItem(item)} in a new window`, deps.exec)
  return EXIT_OK
}
