// `trailboss watch`: the live queue (lib/queue/live.ts) as a full-screen view on a TTY, or as
// one line per change for logs. Nothing runs after it returns: watchers, timers and the
// terminal are released on every exit. Other hosts are followed while it runs, one
// `trailboss ls --json --local --follow` per host over ssh (lib/remote/fleet-follow.ts), their
// waits merged into each read and numbered with this machine's.
import { existsSync } from 'node:fs'
import type { AnswerArgs, GoArgs, WatchArgs } from '../options/tables.js'
import type { Answer } from '../queue/answer-guard.js'
import { EXIT_OK, formatError } from '../errors.js'
import { useColour, type Io, type OutStream } from '../io.js'
import type { QueueItem } from '../queue/derive.js'
import { writeSeenMark } from '../queue/seen.js'
import { type Live, startLive } from '../queue/live.js'
import type { QueueView } from '../queue/load.js'
import { hostsFile } from '../paths.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import type { FleetFollow } from '../remote/fleet-follow.js'
import { formatHostLine, type HostStatus } from '../render/host-line.js'
import { filterAgents } from '../queue/filter.js'
import { execTmuxIn, type TmuxExec } from '../tmux/exec.js'
import { deriveSelectedIndex, formatChanges, formatWatchScreen, PEEK_MIN_WIDTH } from '../render/watch-screen.js'
import { capturePane } from '../tmux/panes.js'
import { keepViewInStep } from '../view/step.js'
import { formatVisible } from '../text/visible-text.js'
import { initialWatchState, screenOf, shownItems, splitKeys, stepWatch, type WatchEffect, type WatchInput } from '../render/watch-state.js'
import { takeReturnDigest } from '../navigate/return-digest.js'
import { formatDigestLine } from '../history/digest.js'

const ENTER_SCREEN = '\u001b[?1049h\u001b[?25l\u001b[?7l'
const LEAVE_SCREEN = '\u001b[?7h\u001b[?25h\u001b[?1049l'

export type GoFn = (args: GoArgs, io: Io) => Promise<number>
/** `ok` (allow) or `no` (deny) on one wait: the same guarded command as on the command line. */
export type AnswerFn = (answer: Answer, args: AnswerArgs, io: Io) => Promise<number>

/** `go` and `ok`/`no` are other commands: the wiring above (lib/cli) hands them in. */
export interface WatchDeps {
  exec: TmuxExec
  go: GoFn
  answer: AnswerFn
}

/** A display-popup has $TMUX but no pane of its own: a jump must close it to show the pane. */
export const isPopup = (env: Io['env']): boolean => Boolean(env.TMUX) && !env.TMUX_PANE

/**
 * Follows every other host (none without a hosts list); `onChange` after each of their news. The
 * caller closes it on every way out.
 */
const followHosts = async (io: Io, all: boolean, onChange: (hosts: HostStatus[]) => void): Promise<FleetFollow | null> => {
  if (!existsSync(hostsFile(io.env))) return null
  const { chooseHosts } = await import('../remote/fleet.js')
  const { startFleetFollow } = await import('../remote/fleet-follow.js')
  const { destinations, problem } = chooseHosts(io.env, { all })
  if (problem) io.stderr.write(`trailboss: ${problem}; other hosts are not read\n`)
  if (destinations.length === 0) return null
  let follow: FleetFollow | null = null
  follow = await startFleetFollow(io.env, destinations, all, io.now, () => onChange(follow?.hosts() ?? []))
  return follow
}

/** Pure: the log lines of hosts that stopped or started answering since `prev`. */
export const formatHostChanges = (prev: readonly HostStatus[], next: readonly HostStatus[], now: number): string[] =>
  next.flatMap((h) => {
    const before = prev.find((p) => p.destination === h.destination)
    if ((before?.answered ?? true) === h.answered) return []
    const said = h.answered ? `${h.destination}: answers again` : formatHostLine(h, now)
    return [formatVisible(`${new Date(now).toISOString()}  ${said}`)]
  })

/** Without a TTY: one line per change, for logs. Runs until a signal ends it. */
const runLog = async (args: WatchArgs, io: Io, deps: WatchDeps): Promise<number> => {
  let prev = new Map<string, QueueItem>()
  let hostsBefore: HostStatus[] = []
  let live: Live | null = null
  let stop = (): void => {}
  const stopped = new Promise<void>((resolve) => {
    stop = resolve
  })
  const onView = (whole: QueueView): void => {
    const view = filterAgents(whole, args.agent)
    const shown = args.all ? view.items : view.queue
    for (const line of formatChanges(prev, shown, view.now, view.items)) io.stdout.write(`${line}\n`)
    prev = new Map(shown.map((i) => [i.sessionId, i]))
    // `trailboss watch | head -3`: once the reader has gone, there is no one to tell.
    if (io.stdout.readerGone) stop()
  }
  const follow = await followHosts(io, args.all, (hosts) => {
    for (const line of formatHostChanges(hostsBefore, hosts, io.now())) io.stdout.write(`${line}\n`)
    hostsBefore = hosts
    live?.rescanNow()
  })
  hostsBefore = follow?.hosts() ?? []
  try {
    live = await startLive(
      io,
      deps.exec,
      onView,
      () => {},
      (err) => io.stderr.write(`${formatError(err)}\n`),
      follow ? { remote: () => follow.items(), remoteHosts: follow.hosts().map((h) => h.destination) } : {},
    )
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
    for (const s of signals) process.once(s, stop)
    await stopped
    for (const s of signals) process.off(s, stop)
  } finally {
    follow?.close()
    await live?.close()
  }
  return EXIT_OK
}

type Resizable = OutStream & {
  on?: (ev: 'resize' | 'error', fn: () => void) => unknown
  off?: (ev: 'resize' | 'error', fn: () => void) => unknown
}

/** The terminal the view owns: the alternate screen and raw keys while it shows, and only changed text written. */
const openTerminal = (io: Io) => {
  const out = io.stdout as Resizable
  const stdin = io.stdin
  let drawn = ''
  let onScreen = false
  const draw = (lines: () => string[], force: boolean): void => {
    if (!onScreen) return
    const text = `\u001b[H${lines()
      .map((l) => `${l}\u001b[K`)
      .join('\r\n')}\u001b[J`
    // While nothing changes, the tick renders the same text: write nothing then.
    if (text === drawn && !force) return
    drawn = text
    out.write(text)
  }
  return {
    out,
    draw,
    enter: (lines: () => string[]): void => {
      if (onScreen) return
      out.write(ENTER_SCREEN)
      stdin.setRawMode?.(true)
      stdin.resume()
      onScreen = true
      draw(lines, true)
    },
    leave: (): void => {
      if (!onScreen) return
      onScreen = false
      drawn = ''
      stdin.setRawMode?.(false)
      stdin.pause()
      out.write(LEAVE_SCREEN)
    },
    /** On every way out, a crash included: the terminal as it was. */
    restore: (): void => {
      if (!onScreen) return
      onScreen = false
      try {
        stdin.setRawMode?.(false)
      } catch {
        // the terminal is already gone
      }
      out.write(LEAVE_SCREEN)
    },
  }
}

/**
 * The keys, the resizes and every way out (a signal, a closed terminal, a crash) of the view;
 * returns what takes them off again and gives the terminal back.
 */
const listen = (
  io: Io,
  term: ReturnType<typeof openTerminal>,
  on: { key: (key: string) => void; resize: () => void; quit: () => void },
): (() => void) => {
  const onData = (chunk: Buffer | string): void => {
    for (const key of splitKeys(chunk.toString())) on.key(key)
  }
  const onCrash = (err: unknown): void => {
    term.restore()
    io.stderr.write(`${formatError(err)}\n`)
    process.exit(1)
  }
  // Installed here and removed on the way out, from one list so the two never drift apart.
  const processHandlers: [string, (arg: unknown) => void][] = [
    ['exit', term.restore],
    ['uncaughtException', onCrash],
    ['unhandledRejection', onCrash],
    ['SIGTERM', on.quit],
    ['SIGHUP', on.quit],
    ['SIGINT', on.quit],
  ]
  for (const [event, handler] of processHandlers) process.on(event, handler)
  term.out.on?.('resize', on.resize)
  io.stdin.on('data', onData)
  // A closed popup or terminal: writes fail with EIO and stdin ends. Quit quietly, and leave
  // the error listener in place for the last writes of the way out.
  term.out.on?.('error', on.quit)
  io.stdin.on('end', on.quit)
  io.stdin.on('error', on.quit)
  return () => {
    io.stdin.off('data', onData)
    io.stdin.off('end', on.quit)
    term.out.off?.('resize', on.resize)
    term.restore()
    io.stdin.pause()
    for (const [event, handler] of processHandlers) process.off(event, handler)
  }
}

/** What a command run from the view said, to its message line; isTTY as the view's, so outside tmux `go` attaches here. */
const runCaptured = async (
  io: Io,
  isTTY: boolean | undefined,
  fn: (io: Io) => Promise<number>,
): Promise<{ code: number; said: string }> => {
  const said: string[] = []
  const capture: OutStream = { write: (t: string) => said.push(t), isTTY, columns: io.stdout.columns }
  let code = 1
  try {
    code = await fn({ ...io, stdout: capture, stderr: capture })
  } catch (err) {
    said.push(formatError(err))
  }
  return { code, said: said.join('') }
}

/** The full-screen view on a TTY: keys and queues go through stepWatch (lib/render/watch-state.ts); this performs its effects. */
const runScreen = async (args: WatchArgs, io: Io, deps: WatchDeps): Promise<number> => {
  const term = openTerminal(io)
  const colour = useColour(io)
  let state = initialWatchState(args.all, isPopup(io.env))
  let digitTimer: NodeJS.Timeout | undefined
  let live: Live | null = null
  let finish: (code: number) => void = () => {}
  const done = new Promise<number>((resolve) => {
    finish = resolve
  })
  // The selected wait's live screen, beside the list on a wide terminal (render/watch-screen.ts).
  let peek: { sessionId: string; text: string | null } | null = null
  let peeking = false
  let digestTaken = false
  const selected = (): QueueItem | undefined => {
    const items = shownItems(state)
    return items[deriveSelectedIndex(items, state.selected)]
  }
  const lines = (): string[] => {
    const item = selected()
    const screen = screenOf(state, { now: io.now(), width: term.out.columns ?? 80, height: term.out.rows ?? 24, colour })
    return formatWatchScreen(item && peek?.sessionId === item.sessionId ? { ...screen, peek: peek.text } : screen)
  }
  /** One capture of the selected wait's pane, on each tick and each move: refreshed while it stays selected. */
  const refreshPeek = async (): Promise<void> => {
    const item = selected()
    if (peeking || !item || (term.out.columns ?? 80) < PEEK_MIN_WIDTH) return
    peeking = true
    try {
      const target = item.tmux && !item.remote && item.tmux.alive !== false ? item.tmux : null
      const text = target ? await capturePane(target.socket, target.pane, deps.exec).catch(() => null) : null
      peek = { sessionId: item.sessionId, text }
      term.draw(lines, false)
    } finally {
      peeking = false
    }
  }

  const dispatch = (input: WatchInput): void => {
    const before = state.selected
    const step = stepWatch(state, input)
    state = step.state
    for (const effect of step.effects) perform(effect)
    if (input.type === 'tick' || state.selected !== before) void refreshPeek()
  }
  const perform = (effect: WatchEffect): void => {
    if (effect.type === 'draw') term.draw(lines, effect.force)
    else if (effect.type === 'quit') finish(EXIT_OK)
    else if (effect.type === 'rescan') live?.rescanNow()
    else if (effect.type === 'go') void goTo(effect.item)
    else if (effect.type === 'answer') {
      const { answer, item } = effect
      void runCaptured(io, false, (captured) => deps.answer(answer, { target: item.key, local: item.remote === undefined }, captured)).then(
        ({ said }) => dispatch({ type: 'answered', said }),
      )
    } else if (effect.type === 'mark-seen') {
      const { item } = effect
      // A remote wait's mark is kept here, by its host and its id there (lib/remote/remote-seen.ts).
      if (item.remote)
        void import('../remote/remote-seen.js').then(({ markWaitSeen }) =>
          dispatch({ type: 'marked', item, ok: markWaitSeen(io.env, item, io.now()) }),
        )
      else
        dispatch({
          type: 'marked',
          item,
          ok: writeSeenMark(io.env, item.sessionId, { since: item.since, seenAt: io.now(), activeAt: null }),
        })
    } else {
      if (digitTimer) clearTimeout(digitTimer)
      if (effect.type === 'digit-timer') digitTimer = setTimeout(() => dispatch({ type: 'digit-timeout' }), effect.ms)
    }
  }
  const goTo = async (item: QueueItem): Promise<void> => {
    // Outside tmux `go` attaches in this terminal: hand it over, and take it back on detach.
    const attaching = !io.env.TMUX
    if (attaching) term.leave()
    const { code, said } = await runCaptured(io, term.out.isTTY, (captured) =>
      deps.go({ target: item.key, client: undefined, print: false }, captured),
    )
    if (attaching) term.enter(lines)
    dispatch({ type: 'went', code, said })
  }

  const unlisten = listen(io, term, {
    key: (key) => dispatch({ type: 'key', key }),
    resize: () => dispatch({ type: 'resize' }),
    quit: () => finish(EXIT_OK),
  })
  term.enter(lines)
  let follow: FleetFollow | null = null
  try {
    follow = await followHosts(io, args.all, (hosts) => {
      dispatch({ type: 'hosts', hosts })
      live?.rescanNow()
    })
    if (follow) dispatch({ type: 'hosts', hosts: follow.hosts() })
    const remote = follow
    live = await startLive(
      io,
      deps.exec,
      (v) => {
        dispatch({ type: 'queue', queue: filterAgents(v, args.agent) })
        // The first queue of a person's screen: after a quiet stretch, what arrived meanwhile.
        if (!digestTaken) {
          digestTaken = true
          const digest = takeReturnDigest(io, v.queue)
          if (digest) dispatch({ type: 'note', message: formatDigestLine(digest) })
        }
        // A person reads this screen: the view follows the default queue (docs/design.md §12).
        void keepViewInStep(io, v.queue, deps.exec)
      },
      () => dispatch({ type: 'tick' }),
      (err) => dispatch({ type: 'error', message: formatError(err) }),
      remote ? { remote: () => remote.items(), remoteHosts: remote.hosts().map((h) => h.destination) } : {},
    )
    return await done
  } finally {
    if (digitTimer) clearTimeout(digitTimer)
    follow?.close()
    await live?.close()
    unlisten()
  }
}

/** --once: the screen's text once (or, without a TTY, the current queue as log lines). */
const runOnce = async (args: WatchArgs, io: Io, deps: WatchDeps): Promise<number> => {
  const fleet = await loadFleetView(io, { all: args.all }, { exec: deps.exec })
  const view = filterAgents(fleet.view, args.agent)
  const items = args.all ? view.items : view.queue
  const lines = io.stdout.isTTY
    ? formatWatchScreen({
        items,
        selected: null,
        now: view.now,
        width: io.stdout.columns ?? 80,
        height: io.stdout.rows ?? 24,
        details: false,
        colour: useColour(io),
        message: null,
        tmuxAvailable: view.tmuxAvailable,
        digits: '',
        all: args.all,
        hosts: fleet.hosts,
      })
    : [...formatChanges(new Map(), items, view.now), ...formatHostChanges([], fleet.hosts, view.now)]
  io.stdout.write(lines.map((l) => `${l}\n`).join(''))
  return EXIT_OK
}

export const runWatch = async (
  args: WatchArgs,
  io: Io,
  commands: Pick<WatchDeps, 'go' | 'answer'>,
  exec: TmuxExec = execTmuxIn(io.env),
): Promise<number> => {
  const deps = { ...commands, exec }
  if (args.once) return runOnce(args, io, deps)
  if (io.stdout.isTTY && io.stdin.isTTY) return runScreen(args, io, deps)
  return runLog(args, io, deps)
}
