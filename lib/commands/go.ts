// `trailboss go`: take a tmux client to a waiting pane. Trail Boss only navigates; it never
// types into an agent. The queue is read once; the move itself is lib/navigate/go-to.ts.
import type { GoArgs } from '../options/tables.js'
import { formatError, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { loadQueue, type QueueView } from '../queue/load.js'
import { hostsForTarget, loadFleetView } from '../navigate/fleet-view.js'
import { goToItem, onHosts } from '../navigate/go-item.js'
import { filterAgents } from '../queue/filter.js'
import { resolveTarget } from '../queue/target.js'
import type { QueueItem } from '../queue/derive.js'
import { reportSkipped } from '../render/skipped.js'
import { callerSocket } from '../tmux/env.js'
import { keepViewInStep } from '../view/step.js'
import { sayReturnDigest, takeReturnDigest } from '../navigate/return-digest.js'
import { defaultGoDeps, type GoDeps, moveClientsTo, reachable, tellClient } from '../navigate/go-to.js'

/** No target: the oldest wait that has a pane to go to (a wait outside tmux cannot block the key). */
export const pickDefault = (view: Pick<QueueView, 'queue'>): QueueItem => {
  const first = view.queue.find(reachable) ?? view.queue[0]
  if (!first) throw new TrailbossError('nothing is waiting', 'trailboss ls --all shows every session')
  return first
}

export const runGo = async (args: GoArgs, io: Io, deps: GoDeps = defaultGoDeps(io.env)): Promise<number> => {
  let sayDigest = async (): Promise<void> => {}
  try {
    // --attach and --move-clients are what another host runs here: this machine's waits only.
    const forHost = args.attach === true || args.moveClients === true
    const hosts = args.local || args.host?.length ? args : hostsForTarget(args.target)
    const loaded = forHost ? await loadQueue(io, { exec: deps.exec }) : (await loadFleetView(io, hosts, { exec: deps.exec })).view
    const view = filterAgents(loaded, args.agent)
    reportSkipped(view, io)
    if (!forHost) await keepViewInStep(io, loaded.queue, deps.exec, !hosts.local && !hosts.host?.length)
    // The person's own move (not another host's): after a quiet stretch, what arrived meanwhile.
    if (!forHost) sayDigest = sayReturnDigest(takeReturnDigest(io, loaded.queue), args, io, deps.exec)
    const item = args.target !== undefined ? resolveTarget(view, args.target, io) : pickDefault({ queue: onHosts(view.queue, args.host) })
    if (args.moveClients) return await moveClientsTo(item, view, io, deps, args.clientPort)
    return await goToItem(item, view, args, io, deps)
  } catch (err) {
    await tellClient(args, io, callerSocket(io.env.TMUX), formatError(err), deps.exec)
    throw err
  } finally {
    await sayDigest()
  }
}
