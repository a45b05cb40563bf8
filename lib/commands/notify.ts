// `trailboss notify`: tell the person about waits that are new since the last call, then exit.
// Meant for cron and tmux hooks: the remembered set lives in $TRAILBOSS_HOME/notify.json and
// the whole read → tell → remember runs under its lock, so overlapping calls tell once.
import type { NotifyArgs } from '../options/tables.js'
import { parseDuration } from '../duration.js'
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { formatVisible } from '../text/visible-text.js'
import {
  checkDesktop,
  formatNotice,
  type Notice,
  runExecWith,
  listTmuxClients,
  notifyDesktop,
  notifyTmux,
  ringBell,
  runExec,
  type Channel,
  type Outcome,
} from '../notify/channels.js'
import { deriveNew, deriveNotes, type NotifyState, waitHost, waitId, withNotifyState } from '../notify/state.js'
import type { QueueItem } from '../queue/derive.js'
import type { LoadOptions } from '../queue/load.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { filterAgents } from '../queue/filter.js'
import { callerSocket } from '../tmux/env.js'
import { execTmuxIn, type TmuxExec } from '../tmux/exec.js'
import {
  type Digest,
  deriveDigest,
  DIGEST_VERSION,
  formatDigestLine,
  formatDigestText,
  isEmptyDigest,
  SINCE_LEAD,
} from '../history/digest.js'
import { readHistorySpan } from '../history/read.js'
import { deriveOpenWaits } from '../navigate/return-digest.js'
import { formatJson } from '../render/json-text.js'

export interface NotifyDeps {
  exec: TmuxExec
  platform: NodeJS.Platform
}

const DEFAULT_CHANNELS: Channel[] = ['desktop', 'tmux', 'bell']

/** Pure: the channels asked for. --exec alone means only it; --via picks; else all that work. */
export const deriveChannels = (args: Pick<NotifyArgs, 'via' | 'exec'>): Channel[] => {
  const via = (args.via ?? []) as Channel[]
  if (via.includes('exec') && args.exec === undefined)
    throw new TrailbossError('--via exec needs --exec <command>', 'e.g. --exec "cat >> ~/waits.jsonl"', EXIT_USAGE)
  if (via.length > 0) return [...new Set(args.exec !== undefined ? [...via, 'exec' as const] : via)]
  return args.exec !== undefined ? ['exec'] : DEFAULT_CHANNELS
}

const tell = async (items: QueueItem[], channels: Channel[], args: NotifyArgs, io: Io, deps: NotifyDeps): Promise<Outcome[]> => {
  const notice = formatNotice(items)
  const outcomes: Outcome[] = []
  const sockets = [
    // A remote wait's socket is a path on its host, not here.
    ...items.flatMap((i) => (i.tmux && !i.remote ? [i.tmux.socket] : [])),
    ...[callerSocket(io.env.TMUX)].filter((s): s is string => s !== null),
  ]
  const reach =
    channels.includes('tmux') || channels.includes('bell') ? await listTmuxClients(sockets, deps.exec) : { servers: [], why: null }
  for (const channel of channels) {
    if (channel === 'desktop') outcomes.push(await notifyDesktop(notice, checkDesktop(io.env, deps.platform), io.env))
    else if (channel === 'tmux') outcomes.push(await notifyTmux(notice, reach, deps.exec))
    else if (channel === 'bell') outcomes.push(ringBell(reach.servers, io.stderr.isTTY ? io.stderr : null))
    else if (channel === 'exec' && args.exec !== undefined) {
      for (const item of items) outcomes.push(await runExec(args.exec, item, io.env, io))
    }
  }
  return outcomes
}

// `notify --digest`, for cron: one digest of what arrived since the last such call
// (docs/design.md §11.8) through the same channels; nothing when nothing arrived. The end of the
// span told is remembered in notify's state (`digestAt`), under its lock, so overlapping calls
// tell each stretch once; a call that reached no channel remembers nothing.

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

/**
 * Says on stderr what the channels did, and returns the state with its notes and the exit code.
 * When nothing reached the person the reason is said once, not on every cron run (each line is
 * a mail). Else what failed is said, and which asked-for or desktop channel could not be used
 * here (cron has no desktop session), with what was used instead; a default tmux or bell without
 * a client is no news. A channel that cannot work here is said once, until that changes.
 */
const sayOutcomes = (
  state: NotifyState,
  outcomes: readonly Outcome[],
  args: NotifyArgs,
  io: Io,
): { delivered: boolean; next: NotifyState; result: number } => {
  const failed = outcomes.filter((o) => !o.ok)
  const delivered = outcomes.filter((o) => o.ok)
  if (delivered.length === 0) {
    const why = `could not notify (${failed.map((o) => o.detail).join('; ')})`
    const notes = deriveNotes(state, [why])
    if (notes.say.length > 0) io.stderr.write(`trailboss: ${why} — use --exec <command>, or run notify where a desktop or tmux client is\n`)
    return { delivered: false, next: notes.next, result: EXIT_FAILURE }
  }
  const worth = failed.filter((o) => !o.unavailable || args.via !== undefined || o.channel === 'desktop')
  const notes = deriveNotes(
    state,
    worth.filter((o) => o.unavailable).map((o) => o.detail),
  )
  const say = [...notes.say, ...worth.filter((o) => !o.unavailable).map((o) => o.detail)]
  if (say.length > 0) io.stderr.write(`trailboss: ${say.join('; ')}; notified by ${delivered.map((o) => o.detail).join(', ')}\n`)
  return { delivered: true, next: notes.next, result: failed.some((o) => o.channel === 'exec') ? EXIT_FAILURE : EXIT_OK }
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
    // Nothing delivered: the stretch stays untold, for the next call.
    const said = sayOutcomes(state, outcomes, args, io)
    return { next: said.delivered ? told(said.next) : said.next, result: said.result }
  })

export const runNotify = async (
  args: NotifyArgs,
  io: Io,
  opts: LoadOptions = {},
  deps: NotifyDeps = { exec: execTmuxIn(io.env), platform: process.platform },
): Promise<number> => {
  const channels = deriveChannels(args)
  if (args.digest) return runNotifyDigest(args, channels, io, opts, deps)
  const olderThanMs = args.olderThan === undefined ? 0 : parseDuration(args.olderThan)
  const profile = olderThanMs > 0 ? String(olderThanMs) : ''
  return withNotifyState(io.env, async (state) => {
    // Read under the lock: a second call sees the queue and the set the first one left.
    const fleet = await loadFleetView(io, {}, { exec: deps.exec, ...opts })
    const view = filterAgents(fleet.view, args.agent)
    // A host that did not answer: its last known waits (stale) are neither new nor gone, and
    // what was told of it stays told until it answers again.
    const silent = new Set(fleet.hosts.filter((h) => !h.answered).map((h) => h.destination))
    const held = (id: string): boolean => silent.has(waitHost(id) ?? '')
    // Finished turns do not block anyone: told of only when asked (--all).
    const due = view.queue.filter((i) => (args.all || i.needsYou) && view.now - i.since >= olderThanMs && !i.remote?.stale)
    const byId = new Map(due.map((i) => [waitId(i), i]))
    const { fresh } = deriveNew(state, profile, [...byId.keys()], [], held)
    const items = fresh.map((id) => byId.get(id)).filter((i): i is QueueItem => i !== undefined)
    if (args.dryRun) {
      for (const i of items) io.stdout.write(`would notify: ${i.key} ${formatVisible(i.project ?? '?')} ${i.kind ?? i.state}\n`)
      return { next: null, result: EXIT_OK }
    }
    if (items.length === 0) return { next: deriveNew(state, profile, [...byId.keys()], [], held).next, result: EXIT_OK }
    const outcomes = await tell(items, channels, args, io, deps)
    // Nothing delivered: remember no wait, so the next call (from a desktop, say) tells them.
    const said = sayOutcomes(state, outcomes, args, io)
    if (!said.delivered) return { next: said.next, result: said.result }
    const toldIds = items.map(waitId)
    return {
      next: deriveNew(said.next, profile, [...byId.keys()], toldIds, held).next,
      result: said.result,
    }
  })
}
