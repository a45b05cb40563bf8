// `trailboss next`, `trailboss back` and `trailboss ack`: one key through the queue. `next` goes
// to the wait after the one you are in (wrapping), `back` returns the client to where it was
// before the last `go` or `next`, `ack` marks waits seen without going there (docs/navigation.md).
import type { AckArgs, BackArgs, GoArgs, NextArgs } from '../options/tables.js'
import { EXIT_OK, formatError, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { inDefaultQueue, isQueued, type QueueItem } from '../queue/derive.js'
import { loadQueue } from '../queue/load.js'
import { readOrigin, writeOrigin } from '../queue/origin.js'
import { resolveTarget } from '../queue/target.js'
import { reportSkipped } from '../render/skipped.js'
import { type Client, listClients, readPane } from '../tmux/clients.js'
import { callerSocket } from '../tmux/env.js'
import { describeItem } from '../navigate/describe-item.js'
import { defaultGoDeps, type GoDeps, markSeen, pickClient, reachable, tellClient, withTmux } from '../navigate/go-to.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { sayReturnDigest, takeReturnDigest } from '../navigate/return-digest.js'
import { goToItem, onHosts } from '../navigate/go-item.js'
import { mayHaveView } from '../view/marker.js'
import { keepViewInStep } from '../view/step.js'
import { paneTarget } from '../view/target.js'

export { pickClient } from '../navigate/go-to.js'

/** Where the person is: a pane on a tmux server. */
export interface Here {
  socket: string
  pane: string
}

/** Another host's pane is never where you are: its socket path may well be the same as one here. */
const isAt = (i: QueueItem, here: Here | null): boolean =>
  here !== null && !i.remote && i.tmux?.socket === here.socket && i.tmux.pane === here.pane

/**
 * Pure: the wait `next` goes to. The default queue, in its order (the waits that need you, oldest
 * first, then the unseen finished turns), forms a ring; from the one you are in, or else from the
 * start, the next unseen wait that needs you, else the next unseen finished turn, else (every
 * wait seen, and still blocking) the next wait that needs you. Never the one you are in. Null:
 * nothing else waits.
 */
export const pickNext = (items: readonly QueueItem[], here: Here | null): QueueItem | null => {
  const ring = items.filter((i) => inDefaultQueue(i) && reachable(i))
  const at = ring.findIndex((i) => isAt(i, here))
  const order = (at < 0 ? ring : [...ring.slice(at + 1), ...ring.slice(0, at)]).filter((i) => !isAt(i, here))
  return order.find((i) => !i.seen && i.needsYou) ?? order.find((i) => !i.seen) ?? order.find((i) => i.needsYou) ?? null
}

/**
 * Where the caller is: $TMUX_PANE, else the pane its client shows (run-shell has no
 * $TMUX_PANE). Without $TMUX, a named client is looked for on the servers the waits run on.
 */
const findHere = async (
  args: Pick<GoArgs, 'client'>,
  io: Io,
  deps: GoDeps,
  items: readonly QueueItem[] = [],
): Promise<{ here: Here | null; client: Client | null; socket: string | null }> => {
  const caller = callerSocket(io.env.TMUX)
  const sockets =
    caller !== null
      ? [caller]
      : args.client !== undefined
        ? [...new Set(items.flatMap((i) => (i.tmux && !i.remote ? [i.tmux.socket] : [])))]
        : []
  for (const socket of sockets) {
    const clients = await withTmux(() => listClients(socket, deps.exec)).catch(() => [])
    const client = pickClient(clients, args.client, io.env.TMUX_PANE ?? null)
    if (!client && caller === null) continue
    const pane = io.env.TMUX_PANE ?? client?.paneId ?? null
    return { here: pane ? { socket, pane } : null, client, socket }
  }
  return { here: null, client: null, socket: caller }
}

export const runNext = async (args: NextArgs, io: Io, deps: GoDeps = defaultGoDeps(io.env)): Promise<number> => {
  let sayDigest = async (): Promise<void> => {}
  try {
    const { view } = await loadFleetView(io, args, { exec: deps.exec })
    reportSkipped(view, io)
    await keepViewInStep(io, view.queue, deps.exec, !args.local && !args.host?.length)
    sayDigest = sayReturnDigest(takeReturnDigest(io, view.queue), args, io, deps.exec)
    const { here } = await findHere(args, io, deps, view.items)
    const item = pickNext(onHosts(view.items, args.host), here)
    if (!item)
      throw new TrailbossError(
        view.queue.some((i) => !isAt(i, here)) ? 'nothing else waits in a pane' : 'nothing else is waiting',
        'trailboss ls --all shows every session',
      )
    return await goToItem(item, view, args, io, deps)
  } catch (err) {
    await tellClient(args, io, callerSocket(io.env.TMUX), formatError(err), deps.exec)
    throw err
  } finally {
    await sayDigest()
  }
}

export const runBack = async (args: BackArgs, io: Io, deps: GoDeps = defaultGoDeps(io.env)): Promise<number> => {
  const goArgs: GoArgs = { target: undefined, client: args.client, print: args.print }
  try {
    // Only with a view: `back` reads no queue of its own, and it is one of the moves that keep the view in step.
    if (mayHaveView(io.env)) {
      const { view } = await loadFleetView(io, {}, { exec: deps.exec })
      await keepViewInStep(io, view.queue, deps.exec)
    }
    const { client, socket } = await findHere(args, io, deps)
    if (socket === null)
      throw new TrailbossError('back works inside tmux', 'run it in tmux, or from a key binding (see trailboss back --help)')
    if (!client)
      throw new TrailbossError(
        args.client !== undefined ? `no tmux client named ${args.client}` : 'no client is attached to this tmux server',
        'list them with `tmux list-clients`',
      )
    const origin = readOrigin(io.env, socket, client.name)
    if (!origin) throw new TrailbossError('nowhere to go back to', 'back returns to where you were before the last trailboss go or next')
    const check = await withTmux(() => readPane(socket, origin.pane, deps.exec))
    if (check.state !== 'live') throw new TrailbossError(`the pane you came from (${origin.pane}) is gone`, 'nowhere to go back to')
    // Never into the view: back from the view leaves it (lib/view/target.ts).
    const step = ['switch-client', '-c', client.name, '-t', await paneTarget(io.env, socket, origin.pane, null, deps.exec)]
    if (args.print) {
      io.stdout.write(`tmux -S ${socket} ${step.join(' ')}\n`)
      return EXIT_OK
    }
    const r = await deps.exec(step, { socket })
    if (r.code !== 0) throw new TrailbossError(`tmux switch-client failed: ${r.stderr.trim()}`, 'nothing moved')
    // Back again returns here: `back` twice is where you started.
    if (client.paneId && client.paneId !== origin.pane)
      writeOrigin(io.env, { socket, client: client.name, pane: client.paneId, at: io.now() })
    io.stderr.write(`trailboss: back to ${origin.pane}\n`)
    await tellClient(goArgs, io, socket, `trailboss: back to ${origin.pane}`, deps.exec)
    return EXIT_OK
  } catch (err) {
    await tellClient(goArgs, io, callerSocket(io.env.TMUX), formatError(err), deps.exec)
    throw err
  }
}

export const runAck = async (args: AckArgs, io: Io): Promise<number> => {
  const view = await loadQueue(io, {})
  reportSkipped(view, io)
  const items = args.targets.map((t) => resolveTarget(view, String(t), io))
  for (const item of items) {
    if (!isQueued(item)) throw new TrailbossError(`${describeItem(item)} is not waiting`, 'only a wait can be acknowledged')
  }
  for (const item of items) {
    if (!markSeen(item, io))
      throw new TrailbossError(
        `could not mark ${describeItem(item)} seen`,
        'check that $TRAILBOSS_HOME is yours and writable (trailboss doctor)',
      )
    io.stderr.write(`trailboss: seen ${describeItem(item)}\n`)
  }
  return EXIT_OK
}
