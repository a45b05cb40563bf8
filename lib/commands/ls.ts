// trailboss ls: read → derive → filter → format → write.
import type { LsArgs } from '../options/tables.js'
import { parseDuration } from '../duration.js'
import { EXIT_EMPTY_QUEUE, EXIT_OK } from '../errors.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { formatPlain, formatTable } from '../render/queue-table.js'
import { formatHostLines, needsHostColumn } from '../render/host-line.js'
import { useColour, type Io } from '../io.js'
import { countsAsWaiting } from '../queue/derive.js'
import type { LoadOptions } from '../queue/load.js'
import { deriveListing, deriveShown } from '../navigate/listing.js'
import { filterAgents } from '../queue/filter.js'
import { reportSkipped } from '../render/skipped.js'
import { formatJson } from '../render/json-text.js'
import { keepViewInStep } from '../view/step.js'
import { execTmuxIn } from '../tmux/exec.js'
import { takeReturnDigest, toJsonReturnDigest } from '../navigate/return-digest.js'
import { formatDigestText } from '../history/digest.js'

export const runLs = async (args: LsArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const olderThanMs = args.olderThan === undefined ? undefined : parseDuration(args.olderThan)
  const fleet = await loadFleetView(io, args, { skipEnded: !args.all, ...opts })
  const view = filterAgents(fleet.view, args.agent)
  const hosts = fleet.hosts
  reportSkipped(view, io)
  const shown = deriveShown(view, args, olderThanMs)
  const hostLines = hosts.length > 0 ? formatHostLines(hosts, view.now) : ''
  if (args.json) {
    const listing = deriveListing(view, { ...args, olderThanMs }, hosts)
    // Asked for by the person's own read (Claude Code's mod, on their prompt): it is an
    // interactive command, and the digest of the return it ends rides in the document.
    const digest = args.returnDigest ? takeReturnDigest(io, fleet.view.queue) : null
    if (digest) listing.returnDigest = toJsonReturnDigest(digest)
    io.stdout.write(`${formatJson(listing, 2)}\n`)
  } else if (args.plain) {
    io.stdout.write(formatPlain(shown, view.now))
    io.stderr.write(hostLines)
  } else {
    // Only the table, a person's read, keeps the view in step: --json and --plain change nothing.
    await keepViewInStep(io, fleet.view.queue, opts.exec ?? execTmuxIn(io.env), !args.local && !args.host?.length)
    // A person at a terminal: after a quiet stretch, what arrived meanwhile, once, above the table.
    const digest = io.stdout.isTTY ? takeReturnDigest(io, fleet.view.queue) : null
    if (digest) io.stdout.write(`${formatDigestText(digest)}\n`)
    if (shown.length > 0) {
      const withHosts = hosts.length > 0 && needsHostColumn(shown)
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
