// `trailboss watch`: the live queue (lib/queue/live.ts) as a full-screen view on a TTY, or as
// one line per change for logs. Nothing runs after it returns: watchers, timers and the
// terminal are released on every exit.
import type { AnswerArgs, GoArgs, WatchArgs } from '../cli/options.js'
import type { Answer } from '../queue/answer-guard.js'
import { EXIT_OK, formatError } from '../errors.js'
import { useColour, type Io, type OutStream } from '../io.js'
import { isQueued, type QueueItem } from '../queue/derive.js'
import { writeSeenMark } from '../queue/seen.js'
import { type Live, startLive } from '../queue/live.js'
import { loadQueue, type QueueView } from '../queue/load.js'
import { filterAgents } from '../queue/filter.js'
import { execTmux, type TmuxExec } from '../tmux/exec.js'
import { deriveMove, deriveSelectedIndex, formatChanges, formatWatchScreen } from '../render/watch-screen.js'

/** With 10 or more waits, a first digit waits this long for a second one. */
export const DIGIT_WAIT_MS = 600

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

/** Without a TTY: one line per change, for logs. Runs until a signal ends it. */
const runLog = async (args: WatchArgs, io: Io, deps: WatchDeps): Promise<number> => {
  let prev = new Map<string, QueueItem>()
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
  const live = await startLive(io, deps.exec, onView, () => {}, (err) => io.stderr.write(`${formatError(err)}\n`))
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  for (const s of signals) process.once(s, stop)
  await stopped
  for (const s of signals) process.off(s, stop)
  await live.close()
  return EXIT_OK
}

type Resizable = OutStream & { on?: (ev: 'resize' | 'error', fn: () => void) => unknown; off?: (ev: 'resize' | 'error', fn: () => void) => unknown }

/** The full-screen view on a TTY. */
const runScreen = async (args: WatchArgs, io: Io, deps: WatchDeps): Promise<number> => {
  const out = io.stdout as Resizable
  const stdin = io.stdin
  const colour = useColour(io)
  let view: QueueView | null = null
  let selected: string | null = null
  let details = false
  let message: string | null = null
  let digits = ''
  let digitTimer: NodeJS.Timeout | undefined
  let drawn = ''
  let onScreen = false
  let busy = false
  let finish: (code: number) => void = () => {}
  const done = new Promise<number>((resolve) => {
    finish = resolve
  })

  const shown = (): QueueItem[] => (view ? (args.all ? view.items : view.queue) : [])

  const draw = (force = false): void => {
    if (!onScreen) return
    const lines = formatWatchScreen({
      items: shown(),
      selected,
      now: io.now(),
      width: out.columns ?? 80,
      height: out.rows ?? 24,
      details,
      colour,
      message,
      tmuxAvailable: view?.tmuxAvailable ?? true,
      digits,
      all: args.all,
    })
    const text = `\u001b[H${lines.map((l) => `${l}\u001b[K`).join('\r\n')}\u001b[J`
    // While nothing changes, the tick renders the same text: write nothing then.
    if (text === drawn && !force) return
    drawn = text
    out.write(text)
  }

  const enter = (): void => {
    if (onScreen) return
    out.write(ENTER_SCREEN)
    stdin.setRawMode?.(true)
    stdin.resume()
    onScreen = true
    draw(true)
  }
  const leave = (): void => {
    if (!onScreen) return
    onScreen = false
    drawn = ''
    stdin.setRawMode?.(false)
    stdin.pause()
    out.write(LEAVE_SCREEN)
  }

  const goTo = async (item: QueueItem | undefined): Promise<void> => {
    if (!item || busy) return
    busy = true
    const said: string[] = []
    // Its words become the view's message line; isTTY stays true, so outside tmux `go` attaches here.
    const capture: OutStream = { write: (t: string) => said.push(t), isTTY: out.isTTY, columns: out.columns }
    // Outside tmux `go` attaches in this terminal: hand it over, and take it back on detach.
    const attaching = !io.env.TMUX
    if (attaching) leave()
    let code = 1
    try {
      code = await deps.go({ target: item.key, client: undefined, print: false }, { ...io, stdout: capture, stderr: capture })
    } catch (err) {
      said.push(formatError(err))
    }
    busy = false
    if (attaching) enter()
    if (code === 0 && isPopup(io.env)) return finish(EXIT_OK)
    message = said.join('').trim().split('\n').filter(Boolean).pop() ?? null
    live?.rescanNow()
    draw()
  }

  /** y / n on the selected row: its refusal or its news goes to the message line; the view stays. */
  const answerSelected = async (answer: Answer): Promise<void> => {
    const items = shown()
    const item = items[deriveSelectedIndex(items, selected)]
    if (!item || busy) return
    busy = true
    const said: string[] = []
    const capture: OutStream = { write: (t: string) => said.push(t), isTTY: false, columns: out.columns }
    try {
      await deps.answer(answer, { target: item.key }, { ...io, stdout: capture, stderr: capture })
    } catch (err) {
      said.push(formatError(err))
    }
    busy = false
    message = said.join('').trim().split('\n').filter(Boolean).join(' · ') || null
    live?.rescanNow()
    draw()
  }

  const goNumber = (text: string): void => {
    digits = ''
    if (digitTimer) clearTimeout(digitTimer)
    const n = Number(text)
    const item = shown().find((i) => i.n === n)
    if (!item) {
      message = `no wait number ${n}`
      draw()
      return
    }
    void goTo(item)
  }

  const onKey = (key: string): void => {
    if (key === 'q' || key === '\u0003' || key === '\u001b') return finish(EXIT_OK)
    if (/^[0-9]$/.test(key)) {
      digits += key
      const count = Math.max(0, ...shown().map((i) => i.n ?? 0))
      // Go at once unless a longer number could still be meant.
      if (Number(digits) * 10 > count) return goNumber(digits)
      if (digitTimer) clearTimeout(digitTimer)
      digitTimer = setTimeout(() => goNumber(digits), DIGIT_WAIT_MS)
      return draw()
    }
    if (key === '\r' || key === '\n') {
      if (digits) return goNumber(digits)
      const items = shown()
      return void goTo(items[deriveSelectedIndex(items, selected)])
    }
    if (key === 'j' || key === '\u001b[B') selected = deriveMove(shown(), selected, 1)
    else if (key === 'k' || key === '\u001b[A') selected = deriveMove(shown(), selected, -1)
    else if (key === 'y') return void answerSelected('allow')
    else if (key === 'n') return void answerSelected('deny')
    else if (key === 's') details = !details
    else if (key === 'a') {
      // Acknowledge: the selected wait is seen, and leaves the view until its session waits again.
      const items = shown()
      const item = items[deriveSelectedIndex(items, selected)]
      if (item && isQueued(item)) {
        message = writeSeenMark(io.env, item.sessionId, { since: item.since, seenAt: io.now(), activeAt: null }) ? `seen: ${item.n ?? item.key}` : 'could not mark it seen'
        live?.rescanNow()
      }
    }
    else if (key === 'r') live?.rescanNow()
    draw()
  }

  const onData = (chunk: Buffer | string): void => {
    const text = chunk.toString()
    // Keys like arrows arrive as one escape sequence (only a lone Esc quits); the rest key by key.
    if (text.length > 1 && text.startsWith('\u001b')) return /^\u001b\[[AB]$/.test(text) ? onKey(text) : undefined
    for (const ch of text) onKey(ch)
  }

  const restore = (): void => {
    if (!onScreen) return
    onScreen = false
    try {
      stdin.setRawMode?.(false)
    } catch {
      // the terminal is already gone
    }
    out.write(LEAVE_SCREEN)
  }
  const onSignal = (): void => finish(EXIT_OK)
  const onCrash = (err: unknown): void => {
    restore()
    io.stderr.write(`${formatError(err)}\n`)
    process.exit(1)
  }
  const onResize = (): void => draw(true)

  // Installed here and removed in `finally`, from one list so the two never drift apart.
  const processHandlers: [string, (...args: any[]) => void][] = [
    ['exit', restore],
    ['uncaughtException', onCrash],
    ['unhandledRejection', onCrash],
    ['SIGTERM', onSignal],
    ['SIGHUP', onSignal],
    ['SIGINT', onSignal],
  ]
  for (const [event, handler] of processHandlers) process.on(event, handler)
  out.on?.('resize', onResize)
  stdin.on('data', onData)
  // A closed popup or terminal: writes fail with EIO and stdin ends. Quit quietly, and leave
  // the error listener in place for the last writes of the way out.
  const onGone = (): void => finish(EXIT_OK)
  out.on?.('error', onGone)
  stdin.on('end', onGone)
  stdin.on('error', onGone)

  let live: Live | null = null
  enter()
  try {
    live = await startLive(
      io,
      deps.exec,
      (v) => {
        view = filterAgents(v, args.agent)
        draw()
      },
      () => draw(),
      (err) => {
        message = formatError(err)
        draw()
      },
    )
    return await done
  } finally {
    if (digitTimer) clearTimeout(digitTimer)
    await live?.close()
    stdin.off('data', onData)
    stdin.off('end', onGone)
    out.off?.('resize', onResize)
    restore()
    stdin.pause()
    for (const [event, handler] of processHandlers) process.off(event, handler)
  }
}

/** --once: the screen's text once (or, without a TTY, the current queue as log lines). */
const runOnce = async (args: WatchArgs, io: Io, deps: WatchDeps): Promise<number> => {
  const view = filterAgents(await loadQueue(io, { exec: deps.exec }), args.agent)
  const items = args.all ? view.items : view.queue
  const lines = io.stdout.isTTY
    ? formatWatchScreen({ items, selected: null, now: view.now, width: io.stdout.columns ?? 80, height: io.stdout.rows ?? 24, details: false, colour: useColour(io), message: null, tmuxAvailable: view.tmuxAvailable, digits: '', all: args.all })
    : formatChanges(new Map(), items, view.now)
  io.stdout.write(lines.map((l) => `${l}\n`).join(''))
  return EXIT_OK
}

export const runWatch = async (args: WatchArgs, io: Io, commands: Pick<WatchDeps, 'go' | 'answer'>, exec: TmuxExec = execTmux): Promise<number> => {
  const deps = { ...commands, exec }
  if (args.once) return runOnce(args, io, deps)
  if (io.stdout.isTTY && io.stdin.isTTY) return runScreen(args, io, deps)
  return runLog(args, io, deps)
}
