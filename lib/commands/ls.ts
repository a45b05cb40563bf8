// trailboss ls: read → derive → filter → format → write.
import type { LsArgs } from '../options/tables.js'
import { parseDuration } from '../duration.js'
import { existsSync } from 'node:fs'
import { EXIT_EMPTY_QUEUE, EXIT_OK, EXIT_USAGE, TrailbossError } from '../errors.js'
import { hostsFile } from '../paths.js'
import type { FleetRead } from '../remote/fleet.js'
import { formatPlain, formatTable } from '../render/queue-table.js'
import { useColour, type Io } from '../io.js'
import { countsAsWaiting } from '../queue/derive.js'
import { type LoadOptions, loadQueue } from '../queue/load.js'
import { deriveListing, deriveShown } from '../navigate/listing.js'
import { filterAgents } from '../queue/filter.js'
import { reportSkipped } from '../render/skipped.js'
import { formatJson } from '../render/json-text.js'

/**
 * The other hosts' read (lib/remote/), started before this machine's queue is read so both go
 * at once; none with --local or without a hosts list. The module loads only when a list exists.
 */
export const startRemoteRead = async (
  args: { all: boolean; local?: boolean; host?: readonly string[] | undefined },
  io: Io,
): Promise<{ read: Promise<FleetRead> } | null> => {
  if (args.local || !existsSync(hostsFile(io.env))) {
    if (args.host?.length)
      throw new TrailbossError('no other host is read here', 'add one with: trailboss hosts add <destination>', EXIT_USAGE)
    return null
  }
  const { startFleetRead } = await import('../remote/fleet.js')
  return { read: startFleetRead(io, { all: args.all, only: args.host }) }
}

export const runLs = async (args: LsArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const olderThanMs = args.olderThan === undefined ? undefined : parseDuration(args.olderThan)
  const fleet = await startRemoteRead(args, io)
  const remote = fleet?.read.then((f) => f.items)
  const view = filterAgents(await loadQueue(io, { skipEnded: !args.all, ...opts, ...(remote ? { remote } : {}) }), args.agent)
  const hosts = fleet ? (await fleet.read).hosts : []
  reportSkipped(view, io)
  const shown = deriveShown(view, args, olderThanMs)
  const hostLines = hosts.length > 0 ? (await import('../remote/host-lines.js')).formatHostLines(hosts, view.now) : ''
  if (args.json) {
    io.stdout.write(`${formatJson(deriveListing(view, { ...args, olderThanMs }, hosts), 2)}\n`)
  } else if (args.plain) {
    io.stdout.write(formatPlain(shown, view.now))
    io.stderr.write(hostLines)
  } else {
    if (shown.length > 0) {
      const withHosts = hosts.length > 0 && (await import('../remote/host-lines.js')).needsHostColumn(shown)
      io.stdout.write(formatTable(shown, { now: view.now, colour: useColour(io), width: io.stdout.columns ?? 120, hosts: withHosts }))
    } else if (io.stdout.isTTY) {
      io.stdout.write(view.queue.length === 0 ? 'Nothing waits on you.\n' : 'No wait matches those filters.\n')
    }
    io.stdout.write(hostLines)
  }
  if (!view.tmuxAvailable && !args.json && io.stdout.isTTY)
    io.stderr.write('trailboss: tmux could not be run; panes are unknown (marked ?)\n')
  // Exit 3 when nothing shown needs you (with --all: when no wait is shown at all).
  return args.exitStatus && !shown.some((i) => countsAsWaiting(i, args.all)) ? EXIT_EMPTY_QUEUE : EXIT_OK
}
