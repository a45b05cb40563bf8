// `trailboss view`: switch the client to the view, Trail Boss's own tmux session whose windows
// are links of the windows that hold waits (docs/design.md §12); `--off` ends it. The person's
// sessions and windows are never moved, renamed or closed: the view only links and unlinks.
import type { ViewArgs } from '../options/tables.js'
import { EXIT_OK, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { loadQueue } from '../queue/load.js'
import { defaultGoDeps, type GoDeps, pickClient, withTmux } from '../navigate/go-to.js'
import { writeOrigin } from '../queue/origin.js'
import { reportSkipped } from '../render/skipped.js'
import { type Client, listClients } from '../tmux/clients.js'
import { callerSocket } from '../tmux/env.js'
import { isOwnSession, KEEP_SESSION, VIEW_SESSION } from '../tmux/view-session.js'
import { readViewSockets, writeViewSockets } from '../view/marker.js'
import {
  deriveRescued,
  deriveWant,
  FROM_OPTION,
  formatFirstWindow,
  planCreate,
  planOff,
  planView,
  VIEW_TARGET,
  VIEW_VERSION,
  type ViewNow,
} from '../view/plan.js'
import { readViewNow, runSequence, underViewLock } from '../view/sync.js'
import { formatCommand } from '../text/command-line.js'
import { sayReturnDigest, takeReturnDigest } from '../navigate/return-digest.js'
import type { QueueView } from '../queue/load.js'

const busy = (): TrailbossError => new TrailbossError('another trailboss run is changing the view', 'try again in a moment')

/** The view's state on `socket`, or an error naming what is wrong. */
const readNow = async (socket: string, deps: GoDeps): Promise<ViewNow> => {
  const now = await withTmux(() => readViewNow(socket, deps.exec))
  if (now === 'no-server') throw new TrailbossError(`no tmux server at ${socket}`, 'start tmux, or run trailboss view inside it')
  return now
}

/** Pure: where a client in the view goes when it ends: where it came from, else the person's most recent session. */
export const deriveReturn = (now: ViewNow, recent: string | null): string | null =>
  now.from !== '' && now.paneWindow.has(now.from.slice(now.from.lastIndexOf('.') + 1)) ? now.from : recent

/** The person's most recently active session on `socket` (none of ours), as a `$id` target. */
const recentSession = async (socket: string, deps: GoDeps): Promise<string | null> => {
  const r = await deps.exec(['list-sessions', '-F', '#{session_activity} #{session_id} #{session_name}'], { socket })
  const sessions = r.stdout
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length >= 3 && !isOwnSession(f.slice(2).join(' ')))
    .sort((a, b) => Number(b[0]) - Number(a[0]))
  return sessions[0]?.[1] ?? null
}

/** The tmux servers this machine's sessions run on (none when the records cannot be read). */
const waitSockets = async (io: Io, deps: GoDeps): Promise<string[]> => {
  const view = await loadQueue(io, { exec: deps.exec, screens: false, skipEnded: true }).catch(() => null)
  return view?.items.flatMap((i) => (i.tmux && !i.remote ? [i.tmux.socket] : [])) ?? []
}

const runOff = async (args: ViewArgs, io: Io, deps: GoDeps): Promise<number> => {
  const caller = callerSocket(io.env.TMUX)
  // Outside tmux, the servers the waits run on too: a view view.json no longer names (left by
  // another version, or killed by hand) is ended there as well, as doctor finds it.
  const ofWaits = caller !== null ? [] : await waitSockets(io, deps)
  const done = await underViewLock(io.env, async () => {
    const marked = readViewSockets(io.env)
    const sockets = caller !== null ? [caller] : [...new Set([...marked, ...ofWaits])]
    const rescued: string[] = []
    for (const socket of sockets) {
      const now = await readNow(socket, deps).catch(() => null)
      if (!now) continue
      if (now.exists) {
        const back = deriveReturn(now, await recentSession(socket, deps))
        const inView = (await withTmux(() => listClients(socket, deps.exec))).filter((c) => c.session === VIEW_SESSION)
        // Clients first: a client whose session is killed would be detached (detach-on-destroy).
        for (const c of inView) if (back) await deps.exec(['switch-client', '-c', c.name, '-t', back], { socket })
      }
      // A view killed by hand leaves the keeper: it too lets go of all but the rescued windows.
      rescued.push(...deriveRescued(now).map(() => socket))
      await runSequence(socket, planOff(now), deps.exec)
    }
    writeViewSockets(
      io.env,
      marked.filter((s) => !sockets.includes(s)),
    )
    return rescued
  })
  if (done === null) throw busy()
  io.stderr.write('trailboss: the view is closed\n')
  for (const socket of new Set(done)) {
    const n = done.filter((s) => s === socket).length
    io.stderr.write(
      `trailboss: ${n} window${n === 1 ? '' : 's'} whose session was closed while in the view kept in session ${KEEP_SESSION}: ${formatCommand(['tmux', '-S', socket, 'attach-session', '-t', KEEP_SESSION])}\n`,
    )
  }
  return EXIT_OK
}

/** The server the view goes on: the caller's, else the one the oldest wait runs on. */
const viewSocket = (io: Io, queue: readonly { tmux: { socket: string } | null; remote?: unknown }[]): string => {
  const socket = callerSocket(io.env.TMUX) ?? queue.find((i) => i.tmux && !i.remote)?.tmux?.socket ?? null
  if (socket === null) throw new TrailbossError('no tmux server to show the view on', 'run trailboss view inside tmux')
  return socket
}

export const runView = async (args: ViewArgs, io: Io, deps: GoDeps = defaultGoDeps(io.env)): Promise<number> => {
  if (args.off) return runOff(args, io, deps)
  const { view } = await loadFleetView(io, {}, { exec: deps.exec })
  reportSkipped(view, io)
  const sayDigest = sayReturnDigest(takeReturnDigest(io, view.queue), args, io, deps.exec)
  try {
    return await enterView(args, io, deps, view)
  } finally {
    await sayDigest()
  }
}

const enterView = async (args: ViewArgs, io: Io, deps: GoDeps, view: QueueView): Promise<number> => {
  const socket = viewSocket(io, view.queue)
  const clients = await withTmux(() => listClients(socket, deps.exec))
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true
  const inTmux = callerSocket(io.env.TMUX) !== null
  // As `go` does outside tmux: this terminal attaches to the view; without a terminal (a script,
  // a notification's click) the most recently active client moves.
  const client: Client | null =
    !inTmux && args.client === undefined && terminal ? null : pickClient(clients, args.client, io.env.TMUX_PANE ?? null)
  if (!client && args.client !== undefined)
    throw new TrailbossError(
      `no tmux client named ${args.client} on ${socket}`,
      'list them with `tmux list-clients`, or leave out --client',
    )
  if (!client && inTmux) throw new TrailbossError('no tmux client to show the view to', 'attach one, or run trailboss view in a terminal')
  const shown = await underViewLock(io.env, async () => {
    let now = await readNow(socket, deps)
    if (now.exists && now.version !== VIEW_VERSION)
      throw new TrailbossError(
        `a view of another trailboss version is on this tmux server (${VIEW_SESSION})`,
        'end it with trailboss view --off, then enter again',
      )
    if (!now.exists) {
      writeViewSockets(io.env, [...readViewSockets(io.env), socket])
      await runSequence(socket, planCreate(formatFirstWindow([])), deps.exec)
      now = await readNow(socket, deps)
    }
    const want = deriveWant(view.queue, socket, now.paneWindow)
    await runSequence(socket, planView(now, want, true), deps.exec)
    if (client && client.session !== VIEW_SESSION) {
      // Where it was, for --off and for `back` (the window of its pane, in its own session).
      const windowId = now.paneWindow.get(client.paneId)
      if (windowId)
        await deps.exec(['set-option', '-t', `${VIEW_TARGET}:`, FROM_OPTION, `=${client.session}:${windowId}.${client.paneId}`], { socket })
    }
    return { count: want.windows.length, firstIndex: now.firstIndex ?? 0 }
  })
  if (shown === null) throw busy()
  // The first wait's window, or the first window when nothing can be linked.
  const target = `${VIEW_TARGET}:${shown.firstIndex + (shown.count > 0 ? 1 : 0)}`
  const enter = ['tmux', '-S', socket, 'attach-session', '-t', VIEW_SESSION]
  if (!client && !terminal) {
    // Nothing to move and nothing to attach: the view is there, and the way in goes to stdout as is.
    io.stderr.write(
      `trailboss: the view shows ${shown.count} window${shown.count === 1 ? '' : 's'} with waits; no tmux client to show it to; enter it from a terminal with:\n`,
    )
    io.stdout.write(`${formatCommand(enter)}\n`)
    return EXIT_OK
  }
  if (!client) {
    io.stderr.write(`trailboss: ${formatCommand(enter)}\n`)
    // A TMUX left in the environment would make tmux refuse to nest (it is unset here anyway).
    const { TMUX: _tmux, TMUX_PANE: _pane, ...env } = io.env
    return deps.attach(['-S', socket, 'attach-session', '-t', target], env)
  }
  if (client.session !== VIEW_SESSION) {
    writeOrigin(io.env, { socket, client: client.name, pane: client.paneId, at: io.now() })
    const r = await deps.exec(['switch-client', '-c', client.name, '-t', target], { socket })
    if (r.code !== 0)
      throw new TrailbossError(`tmux switch-client failed: ${r.stderr.trim()}`, `the view is there: tmux switch-client -t ${VIEW_SESSION}`)
  }
  const shownCount = shown.count
  io.stderr.write(`trailboss: the view shows ${shownCount} window${shownCount === 1 ? '' : 's'} with waits\n`)
  return EXIT_OK
}
