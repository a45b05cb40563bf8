// `trailboss send` (opt-in, TRAILBOSS_ALLOW_SEND=1): type the person's own text into a waiting
// pane. Trail Boss never makes up input; this only saves a trip to the pane, so it refuses
// unless the pane still shows the very wait the person answered: same wait, same agent
// process, idle prompt.
import type { SendArgs } from '../options/tables.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import type { QueueItem } from '../queue/derive.js'
import { loadQueue } from '../queue/load.js'
import { resolveTarget } from '../queue/target.js'
import { agentFor } from '../agents/index.js'
import type { ScreenVerdict } from '../agents/types.js'
import { execTmuxIn, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { capturePane } from '../tmux/panes.js'
import { literalKeysArgs } from '../tmux/send-keys.js'
import { checkAgent } from '../navigate/agent-check.js'
import { describeItem } from '../navigate/describe-item.js'
import { requireInputAllowed } from '../navigate/input-guard.js'

/** How long Enter waits for the pane to show the typed text; then it goes anyway. */
const ECHO_WAIT_MS = 2000
const ECHO_POLL_MS = 25

/**
 * Pure: the end of the text as a pane shows it once typed (its last visible characters, which a
 * line wrap is unlikely to split), or null when there is nothing to look for.
 */
export const echoTail = (text: string): string | null => {
  const tail = text.trimEnd().slice(-8)
  return tail === '' || /[\u0000-\u001f\u007f]/.test(tail) ? null : tail
}

/**
 * Waits until the pane shows the text it was sent (or ECHO_WAIT_MS): Codex takes keys that
 * arrive in one burst for a paste, and an Enter inside the burst for a new line, not a submit.
 */
const waitForEcho = async (socket: string | undefined, pane: string, text: string, exec: TmuxExec): Promise<void> => {
  const tail = echoTail(text)
  if (tail === null) return
  const until = Date.now() + ECHO_WAIT_MS
  while (Date.now() < until) {
    if ((await capturePane(socket, pane, exec))?.includes(tail)) return
    await new Promise((resolve) => setTimeout(resolve, ECHO_POLL_MS))
  }
}

/** Screens that show the agent's input box ready for a new prompt. */
const AT_PROMPT: ReadonlySet<ScreenVerdict> = new Set(['idle', 'interrupted'])

/**
 * Why the text must not be typed, or null when it may: the wait read first (`before`), the same
 * session read again right before typing (`after`), whether its pane still runs the agent
 * process that made the wait (null: the record does not say which, as an older emitter's),
 * and what its pane shows.
 */
export const deriveSendRefusal = (
  before: QueueItem,
  after: QueueItem | undefined,
  screen: ScreenVerdict | null,
  sameAgent: boolean | null = true,
): string | null => {
  if (!before.tmux) return 'it does not run in tmux'
  if (before.state === 'permission') {
    // send types text; a dialog takes a key: ok/no press a permission dialog's, a question's is chosen in its pane.
    const target = before.n ?? before.key
    return before.kind === 'question'
      ? `it waits on a question dialog, which takes a choice, not text: answer it in its pane (trailboss go ${target})`
      : `it waits on a permission dialog, which takes a yes or no, not text: trailboss ok ${target} allows it, trailboss no ${target} denies it`
  }
  if (before.state !== 'waiting') return `it is not waiting (${before.state})`
  if (!after || after.state !== 'waiting' || after.since !== before.since || after.record.promptId !== before.record.promptId) {
    return 'it changed while the text was on its way'
  }
  if (after.tmux?.pane !== before.tmux.pane || after.tmux.socket !== before.tmux.socket || after.tmux.alive === false)
    return 'its pane is gone'
  if (sameAgent === null)
    return 'its record does not say which process made the wait (recorded by an older trailboss-emit; its next event will)'
  if (!sameAgent) return 'its pane no longer runs the agent that made the wait'
  if (screen === null) return 'its pane could not be read'
  if (!AT_PROMPT.has(screen)) return `its pane does not show the idle prompt (${screen === 'working' ? 'it is working' : screen})`
  return null
}

export const runSend = async (args: SendArgs, io: Io, exec: TmuxExec = execTmuxIn(io.env)): Promise<number> => {
  requireInputAllowed(io.env, 'send')
  // Words after `--` (a text that starts with `-`) come in yargs' `_`, after the command's name.
  const text = [...(args.text ?? []), ...(args._ ?? []).slice(1).map(String)].join(' ')
  if (text.trim() === '') throw new TrailbossError('nothing to send', 'give the text after the target (after -- when it starts with -)')
  try {
    const first = await loadQueue(io, { exec })
    const item = resolveTarget(first, args.target, io)
    const shown = item.tmux && item.state === 'waiting' ? await capturePane(item.tmux.socket, item.tmux.pane, exec) : null
    const screen = shown === null ? null : (agentFor(item.agent)?.classifyScreen(shown) ?? 'unknown')
    // Read again right before typing: the wait must be the one the person read and answered.
    const again = await loadQueue(io, { exec, screens: false })
    const after = again.items.find((i) => i.sessionId === item.sessionId)
    const sameAgent = await checkAgent(after, exec)
    const why = deriveSendRefusal(item, after, screen, sameAgent)
    if (why) throw new TrailbossError(`not sending to ${describeItem(item)}: ${why}`, 'nothing was typed')
    const tmux = item.tmux!
    // Typed literally; Enter is a key of its own.
    const typed = await exec(literalKeysArgs(tmux.pane, text), { socket: tmux.socket })
    if (typed.code !== 0) throw new TrailbossError(`tmux send-keys failed: ${typed.stderr.trim()}`, 'nothing was typed')
    if (args.enter) {
      await waitForEcho(tmux.socket, tmux.pane, text, exec)
      const entered = await exec(['send-keys', '-t', tmux.pane, 'Enter'], { socket: tmux.socket })
      if (entered.code !== 0)
        throw new TrailbossError(`tmux send-keys Enter failed: ${entered.stderr.trim()}`, 'the text was typed but not submitted')
    }
    io.stderr.write(`trailboss: sent to ${describeItem(item)}${args.enter ? '' : ' (no Enter)'}\n`)
    return 0
  } catch (err) {
    if (err instanceof TmuxUnavailable)
      throw new TrailbossError('tmux is not installed or not on PATH', 'install tmux, or run trailboss where tmux is on PATH')
    throw err
  }
}
