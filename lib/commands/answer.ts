// `trailboss ok <n>` / `trailboss no <n>` (opt-in, TRAILBOSS_ALLOW_SEND=1): press a permission
// dialog's "allow once" or "no" from the queue. The pane is read last, right before the key,
// and nothing is pressed unless it still shows that very dialog (lib/queue/answer-guard.ts).
import { agentFor } from '../agents/index.js'
import type { AnswerArgs } from '../cli/options.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { type Answer, type AnswerScreen, deriveAnswerRefusal } from '../queue/answer-guard.js'
import { filterAgents } from '../queue/filter.js'
import { loadQueue } from '../queue/load.js'
import { resolveTarget } from '../queue/target.js'
import { execTmux, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { capturePane } from '../tmux/panes.js'
import { describeItem } from './go.js'
import { requireInputAllowed } from './input-guard.js'
import { checkAgent } from './send.js'

export const runAnswer = async (answer: Answer, args: AnswerArgs, io: Io, exec: TmuxExec = execTmux): Promise<number> => {
  const command = answer === 'allow' ? 'ok' : 'no'
  requireInputAllowed(io.env, command)
  try {
    const first = filterAgents(await loadQueue(io, { exec }), args.agent)
    const item = resolveTarget(first, args.target, io)
    const adapter = agentFor(item.agent)
    // Read again: the wait must still be the one the person chose, in the process that asked.
    const again = await loadQueue(io, { exec, screens: false })
    const after = again.items.find((i) => i.sessionId === item.sessionId)
    const sameAgent = await checkAgent(after, exec)
    // The screen last, right before the key goes in.
    const text = item.tmux && item.state === 'permission' && adapter?.readPermissionDialog ? await capturePane(item.tmux.socket, item.tmux.pane, exec) : null
    const screen: AnswerScreen | null = text === null || !adapter ? null : { verdict: adapter.classifyScreen(text), dialog: adapter.readPermissionDialog?.(text) ?? null }
    const why = deriveAnswerRefusal(item, after, screen, sameAgent, answer, adapter?.readPermissionDialog !== undefined)
    if (why) throw new TrailbossError(`not answering ${describeItem(item)}: ${why}`, 'nothing was pressed')
    const keys = (answer === 'allow' ? screen?.dialog?.allow : screen?.dialog?.deny) ?? []
    const tmux = item.tmux!
    const pressed = await exec(['send-keys', '-t', tmux.pane, ...keys], { socket: tmux.socket })
    if (pressed.code !== 0) throw new TrailbossError(`tmux send-keys failed: ${pressed.stderr.trim()}`, 'nothing was pressed')
    io.stderr.write(`trailboss: ${answer === 'allow' ? 'allowed' : 'denied'} ${describeItem(item)}\n`)
    return 0
  } catch (err) {
    if (err instanceof TmuxUnavailable) throw new TrailbossError('tmux is not installed or not on PATH', 'install tmux, or run trailboss where tmux is on PATH')
    throw err
  }
}

export const runOk = (args: AnswerArgs, io: Io): Promise<number> => runAnswer('allow', args, io)
export const runNo = (args: AnswerArgs, io: Io): Promise<number> => runAnswer('deny', args, io)
