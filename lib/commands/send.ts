// `trailboss send` (opt-in, TRAILBOSS_ALLOW_SEND=1): type the person's own text into a waiting
// pane. Trail Boss never makes up input; this only saves a trip to the pane, so it refuses
// unless the pane still shows the very wait the person answered: same wait, idle prompt.
import type { SendArgs } from '../cli/options.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import type { QueueItem } from '../queue/derive.js'
import { loadQueue } from '../queue/load.js'
import { resolveTarget } from '../queue/target.js'
import { agentFor } from '../agents/index.js'
import type { ScreenVerdict } from '../agents/types.js'
import { execTmux, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { capturePane } from '../tmux/panes.js'
import { describeItem } from './go.js'

/** Screens that show the agent's input box ready for a new prompt. */
const AT_PROMPT: ReadonlySet<ScreenVerdict> = new Set(['idle', 'interrupted'])

/**
 * Why the text must not be typed, or null when it may: the wait read first (`before`), the same
 * session read again right before typing (`after`), and what its pane shows.
 */
export const deriveSendRefusal = (before: QueueItem, after: QueueItem | undefined, screen: ScreenVerdict | null): string | null => {
  if (!before.tmux) return 'it does not run in tmux'
  if (before.state === 'permission') return 'it waits on a dialog (answer it in its pane: trailboss go)'
  if (before.state !== 'waiting') return `it is not waiting (${before.state})`
  if (!after || after.state !== 'waiting' || after.since !== before.since || after.record.promptId !== before.record.promptId) {
    return 'it changed while the text was on its way'
  }
  if (after.tmux?.pane !== before.tmux.pane || after.tmux.socket !== before.tmux.socket || after.tmux.alive === false) return 'its pane is gone'
  if (screen === null) return 'its pane could not be read'
  if (!AT_PROMPT.has(screen)) return `its pane does not show the idle prompt (${screen === 'working' ? 'it is working' : screen})`
  return null
}

export const runSend = async (args: SendArgs, io: Io, exec: TmuxExec = execTmux): Promise<number> => {
  if (io.env.TRAILBOSS_ALLOW_SEND !== '1') throw new TrailbossError('send is off', 'set TRAILBOSS_ALLOW_SEND=1 to type your own text into a waiting pane')
  const text = args.text.join(' ')
  if (text.trim() === '') throw new TrailbossError('nothing to send', 'give the text after the target')
  try {
    const first = await loadQueue(io, { exec })
    const item = resolveTarget(first, args.target, io)
    const shown = item.tmux && item.state === 'waiting' ? await capturePane(item.tmux.socket, item.tmux.pane, exec) : null
    const screen = shown === null ? null : (agentFor(item.agent)?.classifyScreen(shown) ?? 'unknown')
    // Read again right before typing: the wait must be the one the person read and answered.
    const again = await loadQueue(io, { exec, screens: false })
    const why = deriveSendRefusal(item, again.items.find((i) => i.sessionId === item.sessionId), screen)
    if (why) throw new TrailbossError(`not sending to ${describeItem(item)}: ${why}`, 'nothing was typed')
    const tmux = item.tmux!
    // -l: the text is typed literally (no key names); Enter is a key of its own.
    const typed = await exec(['send-keys', '-t', tmux.pane, '-l', text], { socket: tmux.socket })
    if (typed.code !== 0) throw new TrailbossError(`tmux send-keys failed: ${typed.stderr.trim()}`, 'nothing was typed')
    if (args.enter) {
      const entered = await exec(['send-keys', '-t', tmux.pane, 'Enter'], { socket: tmux.socket })
      if (entered.code !== 0) throw new TrailbossError(`tmux send-keys Enter failed: ${entered.stderr.trim()}`, 'the text was typed but not submitted')
    }
    io.stderr.write(`trailboss: sent to ${describeItem(item)}${args.enter ? '' : ' (no Enter)'}\n`)
    return 0
  } catch (err) {
    if (err instanceof TmuxUnavailable) throw new TrailbossError('tmux is not installed or not on PATH', 'install tmux, or run trailboss where tmux is on PATH')
    throw err
  }
}
