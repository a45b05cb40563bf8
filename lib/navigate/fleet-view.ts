// The queue over every host (lib/remote/): this machine's, read while the other hosts are. What
// every command that lists or names a wait reads, so numbers and `host:key` names mean the same
// in each. The remote module loads only when a hosts list exists.
import { existsSync } from 'node:fs'
import { EXIT_USAGE, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { hostsFile } from '../paths.js'
import { type LoadOptions, loadQueue, type QueueView } from '../queue/load.js'
import type { CachedRefresh, RefreshDue } from '../remote/cached-fleet.js'
import type { FleetRead, HostRead } from '../remote/fleet.js'
import { LOCAL_HOST } from '../remote/host-name.js'

export interface FleetChoiceArgs {
  /** Read ended sessions too (`ls --all`). */
  all?: boolean
  /** `--local`: other hosts are not read. */
  local?: boolean
  /** `--host`: only these hosts are read. */
  host?: readonly string[] | undefined
  /**
   * Each host's queue from its last answer, read again at most every 10 s (remote/cached-fleet.ts):
   * for the surfaces that run every few seconds. `refresh-after` (`status`, `statusline`): the
   * refreshes due are left to the caller (FleetView.refreshDue), to run once its output is out;
   * `refresh-first` (`ls --json --follow`, `--until-change`): they are waited for before the caches are read.
   */
  cached?: CachedRefresh
}

/**
 * The other hosts' read, started at once so it runs while this machine's queue is read; null
 * with --local or without a hosts list.
 */
export const startRemoteRead = async (
  args: FleetChoiceArgs,
  io: Io,
): Promise<{ destinations: string[]; read: Promise<FleetRead & { refreshDue?: RefreshDue }> } | null> => {
  const others = args.host?.filter((d) => d !== LOCAL_HOST) ?? []
  // `--host local` alone reads no other host.
  if (args.local || !existsSync(hostsFile(io.env)) || (args.host?.length && others.length === 0)) {
    if (others.length > 0)
      throw new TrailbossError('no other host is read here', 'add one with: trailboss hosts add <destination>', EXIT_USAGE)
    return null
  }
  const choice = { all: args.all === true, only: args.host }
  if (args.cached) {
    const { startCachedFleetRead } = await import('../remote/cached-fleet.js')
    return startCachedFleetRead(io, choice, args.cached)
  }
  const { startFleetRead } = await import('../remote/fleet.js')
  return startFleetRead(io, choice)
}

export interface FleetView {
  view: QueueView
  /** How each other host answered (none without a hosts list). */
  hosts: HostRead[]
  /** With `cached: 'refresh-after'`, the hosts due for a refresh, to read once the output is out; else null. */
  refreshDue: RefreshDue
}

/** This machine's queue and every host's, merged and numbered as one (queue/load.ts `remote`). */
export const loadFleetView = async (io: Io, args: FleetChoiceArgs, opts: LoadOptions = {}): Promise<FleetView> => {
  const fleet = await startRemoteRead(args, io)
  const remote = fleet?.read.then((f) => f.items)
  const view = await loadQueue(io, { ...opts, ...(fleet && remote ? { remote, remoteHosts: fleet.destinations } : {}) })
  const read = fleet ? await fleet.read : null
  return { view, hosts: read?.hosts ?? [], refreshDue: read?.refreshDue ?? null }
}

/**
 * After a surface has written all it prints: its output let go (Io.releaseOutput), then the hosts'
 * due refreshes run, so whoever reads the output has it whole without waiting on ssh. Only when
 * a refresh is due: otherwise the command ends at once, its output closed at exit as ever.
 */
export const refreshAfterOutput = async (io: Io, refreshDue: RefreshDue): Promise<void> => {
  if (!refreshDue) return
  await io.releaseOutput?.()
  await refreshDue()
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
