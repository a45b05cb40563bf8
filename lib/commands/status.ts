// `trailboss status`: one short segment for tmux's status line. tmux runs it every
// status-interval seconds, so it reads the queue once and imports nothing heavy.
// Screen checks stay on: their captures are remembered across runs (screens.json), at most
// one per session per SCREEN_CHECK_AFTER_MS, so the segment agrees with `ls` at little cost.
// Other hosts' waits come from their caches (lib/remote/cached-fleet.ts): a host is read at
// most once per 10 s, and a host that did not answer is not tried again within that time. A
// refresh due runs after the segment is printed and the output let go, never before it.
import type { StatusArgs } from '../options/tables.js'
import { EXIT_OK } from '../errors.js'
import type { Io } from '../io.js'
import type { LoadOptions } from '../queue/load.js'
import { loadFleetView, refreshAfterOutput } from '../navigate/fleet-view.js'
import { filterAgents } from '../queue/filter.js'
import { deriveSummary, formatSegment } from '../render/status-segment.js'
import { keepViewInStep } from '../view/step.js'
import { execTmuxIn } from '../tmux/exec.js'
import { readBlockedToday } from '../history/today.js'
import { noteClientActivity } from '../history/activity.js'

export const runStatus = async (args: StatusArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const fleet = await loadFleetView(io, { cached: 'refresh-after' }, { skipEnded: true, ...opts })
  // The view follows the default queue, whatever --agent shows (docs/design.md §12).
  await keepViewInStep(io, fleet.view.queue, opts.exec ?? execTmuxIn(io.env))
  // The person's keys in tmux, as seen from here: what tells a return after a quiet stretch
  // (docs/design.md §11.8). Read from the list-panes the queue ran anyway; status is not activity.
  if (fleet.view.clientActivityAt) noteClientActivity(io.env, fleet.view.clientActivityAt)
  const view = filterAgents(fleet.view, args.agent)
  // Skipped files are `ls`'s and `doctor`'s to report: a status line has no room for them.
  const summary = deriveSummary(view.items, view.now, { all: args.all, hosts: fleet.hosts })
  // Today's blocked time only when asked for: it reads the history's summary (lib/history/today.ts).
  const blockedMs = args.format?.includes('{blocked}') ? readBlockedToday(io.env, view.now) : undefined
  const text = formatSegment(summary, args.format, { tmux: args.tmux, ...(blockedMs === undefined ? {} : { blockedMs }) })
  if (text) io.stdout.write(`${text}\n`)
  await refreshAfterOutput(io, fleet.refreshDue)
  return EXIT_OK
}
