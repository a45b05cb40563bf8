// `trailboss notify --digest`: for cron, one digest of what arrived since the last such call
// (docs/design.md §11.8) through notify's channels; nothing when nothing arrived. The end of
// the span told is remembered in notify's state (`digestAt`), under its lock, so overlapping
// calls tell each stretch once; a call that reached no channel remembers nothing.
import type { NotifyArgs } from '../options/tables.js'
import { EXIT_FAILURE, EXIT_OK } from '../errors.js'
import type { Io } from '../io.js'
import { type Digest, DIGEST_VERSION, formatDigestLine, formatDigestText, SINCE_LEAD } from '../history/digest.js'
import {
  checkDesktop,
  listTmuxClients,
  type Notice,
  notifyDesktop,
  notifyTmux,
  ringBell,
  runExecWith,
  type Channel,
  type Outcome,
} from '../notify/channels.js'
import { deriveNotes, type NotifyState, withNotifyState } from '../notify/state.js'
import type { LoadOptions } from '../queue/load.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { filterAgents } from '../queue/filter.js'
import { readHistorySpan } from '../history/read.js'
import { deriveDigest, isEmptyDigest } from '../history/digest.js'
import { deriveOpenWaits } from '../navigate/return-digest.js'
import { callerSocket } from '../tmux/env.js'
import { formatJson } from '../render/json-text.js'
import type { TmuxExec } from '../tmux/exec.js'

interface NotifyDeps {
  exec: TmuxExec
  platform: NodeJS.Platform
}

/** Pure: the notice of a digest, for the desktop and tmux channels. */
export const formatDigestNotice = (d: Digest): Notice => {
  const text = formatDigestText(d, SINCE_LEAD).split('\n').filter(Boolean)
  return {
    title: `Trail Boss: ${text[0]?.replace(/:$/, '') ?? SINCE_LEAD}`,
    body: text
      .slice(1)
      .map((l) => l.trim())
      .join('\n'),
    line: formatDigestLine(d, SINCE_LEAD),
  }
}

const tellDigest = async (
  d: Digest,
  channels: Channel[],
  sockets: string[],
  args: NotifyArgs,
  io: Io,
  deps: NotifyDeps,
): Promise<Outcome[]> => {
  const notice = formatDigestNotice(d)
  const reach =
    channels.includes('tmux') || channels.includes('bell') ? await listTmuxClients(sockets, deps.exec) : { servers: [], why: null }
  const outcomes: Outcome[] = []
  for (const channel of channels) {
    if (channel === 'desktop') outcomes.push(await notifyDesktop(notice, checkDesktop(io.env, deps.platform), io.env))
    else if (channel === 'tmux') outcomes.push(await notifyTmux(notice, reach, deps.exec))
    else if (channel === 'bell') outcomes.push(ringBell(reach.servers, io.stderr.isTTY ? io.stderr : null))
    else if (channel === 'exec' && args.exec !== undefined)
      outcomes.push(await runExecWith(args.exec, `${formatJson({ version: DIGEST_VERSION, ...d })}\n`, io.env, io, '--exec for the digest'))
  }
  return outcomes
}

export const runNotifyDigest = async (
  args: NotifyArgs,
  channels: Channel[],
  io: Io,
  opts: LoadOptions,
  deps: NotifyDeps,
): Promise<number> =>
  withNotifyState(io.env, async (state) => {
    const fleet = await loadFleetView(io, {}, { exec: deps.exec, ...opts })
    const view = filterAgents(fleet.view, args.agent)
    const until = view.now
    // --dry-run remembers nothing, not even where the count starts.
    const told = (s: NotifyState): NotifyState | null => (args.dryRun ? null : { ...s, digestAt: until })
    // The first call starts the count: there is no "since the last digest" before it.
    if (state.digestAt === undefined || state.digestAt >= until) return { next: told(state), result: EXIT_OK }
    const span = { since: state.digestAt, until }
    const agents = args.agent?.length ? new Set(args.agent) : null
    const entries = readHistorySpan(io.env, span.since, span.until).entries.filter((e) => agents === null || agents.has(e.agent))
    const digest = deriveDigest(entries, deriveOpenWaits(view.queue), span)
    if (isEmptyDigest(digest)) return { next: told(state), result: EXIT_OK }
    if (args.dryRun) {
      io.stdout.write(`would notify: ${formatDigestLine(digest, SINCE_LEAD)}\n`)
      return { next: null, result: EXIT_OK }
    }
    const sockets = [
      ...view.items.flatMap((i) => (i.tmux && !i.remote ? [i.tmux.socket] : [])),
      ...[callerSocket(io.env.TMUX)].filter((s): s is string => s !== null),
    ]
    const outcomes = await tellDigest(digest, channels, sockets, args, io, deps)
    const failed = outcomes.filter((o) => !o.ok)
    const delivered = outcomes.filter((o) => o.ok)
    if (delivered.length === 0) {
      // Nothing reached the person: the stretch stays untold, for the next call.
      const why = `could not notify (${failed.map((o) => o.detail).join('; ')})`
      const notes = deriveNotes(state, [why])
      if (notes.say.length > 0)
        io.stderr.write(`trailboss: ${why} — use --exec <command>, or run notify where a desktop or tmux client is\n`)
      return { next: notes.next, result: EXIT_FAILURE }
    }
    const worth = failed.filter((o) => !o.unavailable || args.via !== undefined || o.channel === 'desktop')
    const notes = deriveNotes(
      state,
      worth.filter((o) => o.unavailable).map((o) => o.detail),
    )
    const say = [...notes.say, ...worth.filter((o) => !o.unavailable).map((o) => o.detail)]
    if (say.length > 0) io.stderr.write(`trailboss: ${say.join('; ')}; notified by ${delivered.map((o) => o.detail).join(', ')}\n`)
    return { next: told(notes.next), result: failed.some((o) => o.channel === 'exec') ? EXIT_FAILURE : EXIT_OK }
  })
