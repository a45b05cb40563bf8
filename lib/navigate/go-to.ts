// Taking a tmux client to a wait's pane: what `go` and `next` share. The pane is looked at once
// more right before the move, and nothing moves unless the whole plan can run (docs/design.md §5).
import { hostname } from 'node:os'
import { agentFor } from '../agents/index.js'
import { EXIT_FAILURE, EXIT_OK, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { formatCommand } from '../text/command-line.js'
import { type AttachFn, attachTmux, runPlan } from '../tmux/attach.js'
import { byActivity, type Client, listClients, readPane } from '../tmux/clients.js'
import { readEnviron } from '../proc/process-table.js'
import { formatStep, planGo } from '../tmux/go-plan.js'
import { isQueued, type QueueItem } from '../queue/derive.js'
import { writeOrigin } from '../queue/origin.js'
import { writeSeenMark } from '../queue/seen.js'
import type { QueueView } from '../queue/load.js'
import { callerSocket } from '../tmux/env.js'
import { execTmuxIn, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { describeItem } from './describe-item.js'
import { paneTarget } from '../view/target.js'
import { VIEW_SESSION } from '../tmux/view-session.js'

export interface GoDeps {
  exec: TmuxExec
  attach: AttachFn
  host: string
}

/** The real tmux, in the command's environment (`execTmuxIn`), the real attach, this host's name. */
export const defaultGoDeps = (env: NodeJS.ProcessEnv): GoDeps => ({ exec: execTmuxIn(env), attach: attachTmux, host: hostname() })

/**
 * How a move is asked for: which client (`--client`), whether only to print the steps
 * (`--print`), and `--attach` (this terminal attaches, or nothing moves: what another host runs
 * over `ssh -t`).
 */
export interface GoWay {
  client?: string | undefined
  print: boolean
  attach?: boolean | undefined
}

/** A wait whose pane can be gone to, as far as the queue knows (a host that did not answer now: not). */
export const reachable = (item: QueueItem): boolean =>
  item.tmux !== null && item.tmux.alive !== false && item.state !== 'gone' && item.remote?.stale !== true

/** The client a key binding or a typed command means: --client, the one showing our pane, else the latest. */
export const pickClient = (clients: readonly Client[], name: string | undefined, pane: string | null): Client | null => {
  const sorted = [...clients].sort(byActivity)
  if (name !== undefined) return sorted.find((c) => c.name === name || c.tty === name) ?? null
  return sorted.find((c) => pane !== null && c.paneId === pane) ?? sorted[0] ?? null
}

const shellQuote = (s: string): string => formatCommand([s])

/** Where a session without tmux runs, and how to pick it up again there. */
export const noTmuxError = (item: QueueItem, here: string): TrailbossError => {
  const where = [item.cwd ? `in ${item.cwd}` : null, item.host ? `on ${item.host === here ? 'this host' : 'host'} ${item.host}` : null]
    .filter(Boolean)
    .join(' ')
  const how = item.headless ? 'runs headless (claude -p)' : 'does not run in tmux'
  const command = agentFor(item.agent)?.resumeCommand(item.sessionId)
  const resume = command
    ? `${item.cwd ? `cd ${shellQuote(item.cwd)} && ` : ''}${formatCommand(command)}`
    : `its agent's resume of session ${item.sessionId}`
  return new TrailbossError(
    `${describeItem(item)} ${how}${where ? `: it runs ${where}` : ''}`,
    `switch to its terminal${item.host && item.host !== here ? ` on ${item.host}` : ''}, or resume it there (after quitting it): ${resume}`,
  )
}

/** A gone pane: say so, and offer the next wait that can be reached, an unseen one first (as `next` does). */
export const goneError = (item: QueueItem, view: Pick<QueueView, 'queue'>, why: string): TrailbossError => {
  const others = view.queue.filter((i) => i.sessionId !== item.sessionId && reachable(i))
  const next = others.find((i) => !i.seen) ?? others[0]
  return new TrailbossError(
    `the pane of ${describeItem(item)} is gone (${why})`,
    next
      ? `the next wait is ${describeItem(next)}: trailboss go ${next.key}`
      : 'nothing else waits in a pane; trailboss gc retires gone sessions',
  )
}

export const withTmux = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof TmuxUnavailable)
      throw new TrailbossError('tmux is not installed or not on PATH', 'install tmux, or run trailboss where tmux is on PATH')
    throw err
  }
}

/**
 * A key binding's `run-shell` drops stderr and shows only "returned 1" on failure, so with
 * `--client` and no terminal for stderr the outcome also goes to that client's message line.
 */
export const tellClient = async (
  way: Pick<GoWay, 'client'>,
  io: Io,
  socket: string | null,
  text: string,
  exec: TmuxExec,
): Promise<void> => {
  if (way.client === undefined || io.stderr.isTTY === true || socket === null) return
  // Messages are format-expanded by tmux: a literal # is written ##.
  await exec(['display-message', '-c', way.client, text.replace(/#/g, '##')], { socket }).catch(() => undefined)
}

/**
 * Going to a wait is seeing it (docs/queue.md): it leaves the default queue until the session
 * waits again. A remote wait is marked by its own host, whose `go` runs there.
 */
export const markSeen = (item: QueueItem, io: Pick<Io, 'env' | 'now'>): boolean =>
  !item.remote && isQueued(item) && writeSeenMark(io.env, item.sessionId, { since: item.since, seenAt: io.now(), activeAt: null })

/** The pane is there and is the one the queue saw; else the error that says what became of it. */
const checkPane = async (
  item: QueueItem,
  view: Pick<QueueView, 'queue'>,
  deps: GoDeps,
  host: string,
): Promise<NonNullable<QueueItem['tmux']>> => {
  if (!item.tmux || item.headless) throw noTmuxError(item, host)
  if (item.state === 'gone' || item.tmux.alive === false) throw goneError(item, view, item.reason ?? 'no longer in tmux')
  const target = item.tmux
  const check = await withTmux(() => readPane(target.socket, target.pane, deps.exec))
  if (check.state !== 'live')
    throw goneError(
      item,
      view,
      check.state === 'no-server' ? 'tmux server is gone' : check.state === 'dead' ? 'pane is dead' : 'pane is gone',
    )
  if (target.serverPid !== null && check.serverPid !== target.serverPid) throw goneError(item, view, 'tmux server was restarted')
  return target
}

/** Takes a client to `item`'s pane on this machine (or prints how); returns the exit code. */
export const goTo = async (item: QueueItem, view: Pick<QueueView, 'queue'>, way: GoWay, io: Io, deps: GoDeps): Promise<number> => {
  const target = await checkPane(item, view, deps, deps.host)
  const caller = callerSocket(io.env.TMUX)
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true
  if (way.attach && caller === null && !terminal)
    throw new TrailbossError('--attach needs a terminal', 'run it on a terminal, or over ssh -t')
  const targetClients = await withTmux(() => listClients(target.socket, deps.exec))
  let callerClients: Client[] | undefined
  if (way.client !== undefined && caller !== null && caller !== target.socket)
    callerClients = await withTmux(() => listClients(caller, deps.exec)).catch(() => [])
  const plan = planGo(target, {
    callerSocket: caller,
    callerPane: io.env.TMUX_PANE ?? null,
    client: way.client,
    terminal,
    targetClients,
    callerClients,
  })
  if (!plan.ok) {
    if (plan.why === 'other-server' && plan.command) {
      // The exact command on stdout, so a script (or a person) can run it as it is.
      io.stderr.write(`trailboss: ${describeItem(item)} — ${plan.message}; attach from a plain terminal with:\n`)
      io.stdout.write(`${formatCommand(plan.command)}\n`)
      await tellClient(way, io, caller, `trailboss: ${plan.message}: ${formatCommand(plan.command)}`, deps.exec)
      return EXIT_FAILURE
    }
    throw new TrailbossError(plan.message, plan.hint)
  }
  if (plan.how === 'switch') {
    // With a view, the pane's window is in two sessions: name the one to go to (lib/view/target.ts).
    const at = await paneTarget(io.env, target.socket, target.pane, plan.client.session, deps.exec)
    if (at !== target.pane) plan.steps = plan.steps.map((s) => ({ ...s, args: s.args.map((a) => (a === target.pane ? at : a)) }))
  }
  io.stderr.write(`trailboss: going to ${describeItem(item)}\n`)
  if (way.print) {
    for (const step of plan.steps) io.stdout.write(`${formatStep(step)}\n`)
    return 0
  }
  // `tmux attach` returns only when the person detaches: they saw it when it opened.
  if (plan.how === 'attach') markSeen(item, io)
  const code = await withTmux(() => runPlan(plan.steps, { exec: deps.exec, attach: deps.attach, env: { ...io.env } }))
  if (plan.how === 'switch') {
    markSeen(item, io)
    // Where the client was, for `trailboss back` (not when it was there already, nor a move
    // inside the view: back from the view returns to where the person was before entering it).
    if (plan.client.paneId && plan.client.paneId !== target.pane && plan.client.session !== VIEW_SESSION)
      writeOrigin(io.env, { socket: target.socket, client: plan.client.name, pane: plan.client.paneId, at: io.now() })
    await tellClient(way, io, target.socket, `trailboss: went to ${describeItem(item)}`, deps.exec)
  }
  return code
}

/** Pure: the client port in `/proc/<pid>/environ`'s SSH_CONNECTION (`<client ip> <client port> <server ip> <server port>`); null without one. */
export const parseSshClientPort = (environ: string): number | null => {
  const value = environ
    .split('\0')
    .find((v) => v.startsWith('SSH_CONNECTION='))
    ?.slice('SSH_CONNECTION='.length)
  const port = Number(value?.split(' ')[1])
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : null
}

/** Pure: `/proc/<pid>/environ` holds SSH_CONNECTION. */
export const hasSshConnection = (environ: string): boolean => environ.split('\0').some((v) => v.startsWith('SSH_CONNECTION='))

/**
 * Pure: the client `go --move-clients` moves (control-mode clients never). With the port the
 * other host's ssh left from (`--client-port`), the client whose SSH_CONNECTION names that port:
 * the one in the other host's pane, and none when no client does. Without it, any client that
 * came over ssh (or whose environment cannot be read). Either way the most recently active of
 * those (several share a port when that ssh is a ControlMaster others multiplex over).
 */
export const pickSshClient = (
  clients: readonly Client[],
  environOf: (pid: number) => string | null,
  port: number | undefined,
): Client | undefined =>
  clients
    .filter((c) => {
      if (c.controlMode) return false
      const environ = environOf(c.pid)
      if (port !== undefined) return environ !== null && parseSshClientPort(environ) === port
      return environ === null || hasSshConnection(environ)
    })
    .sort(byActivity)[0]

/**
 * `go --move-clients`, what another host runs here over ssh when one of its panes already shows
 * this host's tmux: a client of the wait's server that came in over ssh, the one from `port`
 * when given (`pickSshClient`), moves to the pane (its session, window and pane). Prints
 * nothing; fails (exit 1) when no such client is attached, so the other host opens a window of
 * its own instead.
 */
export const moveClientsTo = async (
  item: QueueItem,
  view: Pick<QueueView, 'queue'>,
  io: Io,
  deps: GoDeps,
  port?: number,
  environOf: (pid: number) => string | null = readEnviron,
): Promise<number> => {
  const target = await checkPane(item, view, deps, deps.host)
  const client = pickSshClient(await withTmux(() => listClients(target.socket, deps.exec)), environOf, port)
  if (!client)
    throw new TrailbossError(
      `no client attached over ssh${port === undefined ? '' : ` from port ${port}`} to the tmux server of ${describeItem(item)}`,
      'nothing moved',
    )
  const r = await deps.exec(['switch-client', '-c', client.name, '-t', target.pane], { socket: target.socket })
  if (r.code !== 0) throw new TrailbossError(`tmux switch-client failed: ${r.stderr.trim()}`, 'nothing moved')
  markSeen(item, io)
  if (client.paneId && client.paneId !== target.pane)
    writeOrigin(io.env, { socket: target.socket, client: client.name, pane: client.paneId, at: io.now() })
  return EXIT_OK
}
