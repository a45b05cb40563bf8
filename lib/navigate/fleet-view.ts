// The queue over every host (lib/remote/): this machine's, read while the other hosts are. What
// every command that lists or names a wait reads, so numbers and `host:key` names mean the same
// in each. The remote module loads only when a hosts list exists.
import { existsSync } from 'node:fs'
import { EXIT_USAGE, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { hostsFile } from '../paths.js'
import { type LoadOptions, loadQueue, type QueueView } from '../queue/load.js'
import type { FleetRead, HostRead } from '../remote/fleet.js'
import { LOCAL_HOST } from '../remote/host-name.js'

export interface FleetChoiceArgs {
  /** Read ended sessions too (`ls --all`). */
  all?: boolean
  /** `--local`: other hosts are not read. */
  local?: boolean
  /** `--host`: only these hosts are read. */
  host?: readonly string[] | undefined
}

/**
 * The other hosts' read, started at once so it runs while this machine's queue is read; null
 * with --local or without a hosts list.
 */
export const startRemoteRead = async (
  args: FleetChoiceArgs,
  io: Io,
): Promise<{ destinations: string[]; read: Promise<FleetRead> } | null> => {
  const others = args.host?.filter((d) => d !== LOCAL_HOST) ?? []
  // `--host local` alone reads no other host.
  if (args.local || !existsSync(hostsFile(io.env)) || (args.host?.length && others.length === 0)) {
    if (others.length > 0)
      throw new TrailbossError('no other host is read here', 'add one with: trailboss hosts add <destination>', EXIT_USAGE)
    return null
  }
  const { startFleetRead } = await import('../remote/fleet.js')
  return startFleetRead(io, { all: args.all === true, only: args.host })
}

export interface FleetView {
  view: QueueView
  /** How each other host answered (none without a hosts list). */
  hosts: HostRead[]
}

/** This machine's queue and every host's, merged and numbered as one (queue/load.ts `remote`). */
export const loadFleetView = async (io: Io, args: FleetChoiceArgs, opts: LoadOptions = {}): Promise<FleetView> => {
  const fleet = await startRemoteRead(args, io)
  const remote = fleet?.read.then((f) => f.items)
  const view = await loadQueue(io, { ...opts, ...(fleet && remote ? { remote, remoteHosts: fleet.destinations } : {}) })
  return { view, hosts: fleet ? (await fleet.read).hosts : [] }
}

/**
 * Pure: which hosts a command that names one wait must read. A number or no target: every host
 * (numbers are given across all of them); `devbox:3f2a`: that host alone; a local key or a pane
 * id: none, so acting on this machine's wait never waits on ssh.
 */
export const hostsForTarget = (target: string | undefined): FleetChoiceArgs => {
  const t = target?.trim() ?? ''
  if (t === '' || /^\d+$/.test(t)) return {}
  const at = t.lastIndexOf(':')
  if (at > 0) return { host: [t.slice(0, at)] }
  return { local: true }
}
