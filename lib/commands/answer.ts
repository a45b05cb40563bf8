// `trailboss ok <n>` / `trailboss no <n>` (opt-in, TRAILBOSS_ALLOW_SEND=1): press a permission
// dialog's "allow once" or "no" from the queue. The pane is read last, right before the key, and
// nothing is pressed unless it still shows that very dialog, asking exactly what the record holds
// (lib/queue/answer-guard.ts). A key that only leads on (auto mode's "stay in auto mode", the
// cursor onto "Yes") is followed by a new reading of the screen, judged by the same rule.
import type { PermissionDialog } from '../agents/dialog.js'
import { agentFor } from '../agents/index.js'
import type { AnswerArgs } from '../options/tables.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import {
  ANSWER_GUARD,
  type Answer,
  type AnswerScreen,
  deriveAnswerRefusal,
  deriveDialogKeys,
  deriveTooYoung,
  readingOf,
} from '../queue/answer-guard.js'
import { parseDuration } from '../duration.js'
import { filterAgents } from '../queue/filter.js'
import { loadQueue } from '../queue/load.js'
import { resolveTarget } from '../queue/target.js'
import { execTmuxIn, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { capturePane } from '../tmux/panes.js'
import { checkAgent } from '../navigate/agent-check.js'
import { describeItem } from '../navigate/describe-item.js'
import { hostsForTarget, loadFleetView } from '../navigate/fleet-view.js'
import { requireInputAllowed } from '../navigate/input-guard.js'

/** How long a key may take to change the dialog (auto mode's dialogs took under 0.3 s). */
export const STEP_WAIT_MS = 5000
/**
 * How long a dialog that a key led to must stay as it is before the next key. 2.1.332's approval
 * dialog ignores an Enter that comes within a moment of its opening and puts its cursor back on
 * "No" (20 ms after: ignored; 0.5 s after: taken; test/fixtures/claude-code-answer/README.md).
 */
export const SETTLE_MS = 1000
/** Keys that lead on, at most, before the one that answers: the notice, then the cursor. */
const MAX_STEPS = 3
const POLL_MS = 50

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export const runAnswer = async (answer: Answer, args: AnswerArgs, io: Io, exec: TmuxExec = execTmuxIn(io.env)): Promise<number> => {
  const command = answer === 'allow' ? 'ok' : 'no'
  requireInputAllowed(io.env, command)
  if (args.requireGuard !== undefined && args.requireGuard !== ANSWER_GUARD)
    throw new TrailbossError(`this trailboss answers only under the ${ANSWER_GUARD} guard, not ${args.requireGuard}`, 'nothing was pressed')
  const minAge = args.olderThan === undefined ? null : parseDuration(args.olderThan)
  try {
    const startedAt = io.now()
    const fleet = await loadFleetView(io, args.local ? { local: true } : hostsForTarget(args.target), { exec })
    const item = resolveTarget(filterAgents(fleet.view, args.agent), args.target, io)
    if (item.remote) {
      const { answerOnHost } = await import('../navigate/remote-answer.js')
      return await answerOnHost(io, item, answer, { startedAt, hosts: fleet.hosts })
    }
    const young = deriveTooYoung(item, fleet.view.now, minAge)
    if (young) throw new TrailbossError(`not answering ${describeItem(item)}: ${young}`, 'nothing was pressed')
    const adapter = agentFor(item.agent)
    const read = adapter?.readPermissionDialog
    // Read again: the wait must still be the one the person chose, in the process that asked.
    const again = await loadQueue(io, { exec, screens: false })
    const after = again.items.find((i) => i.sessionId === item.sessionId)
    const sameAgent = await checkAgent(after, exec)
    // The screen last, right before the key goes in.
    const capture = (): Promise<string | null> =>
      item.tmux ? capturePane(item.tmux.socket, item.tmux.pane, exec, adapter?.dialogInColour === true) : Promise.resolve(null)
    const screenOf = (text: string | null): AnswerScreen | null =>
      text === null || !adapter ? null : { verdict: adapter.classifyScreen(text), dialog: read?.(text) ?? null }
    let text = item.tmux && item.state === 'permission' && read ? await capture() : null
    const why = deriveAnswerRefusal(item, after, screenOf(text), sameAgent, answer, read !== undefined)
    if (why) throw new TrailbossError(`not answering ${describeItem(item)}: ${why}`, 'nothing was pressed')
    const reading = readingOf(item.ask.input)
    const tmux = item.tmux!
    const pressed: string[] = []
    for (let step = 0; ; step++) {
      const keys = typeof reading === 'string' ? reading : deriveDialogKeys(screenOf(text)!, reading, answer, item.cwd)
      if (typeof keys === 'string') {
        throw new TrailbossError(
          `not answering ${describeItem(item)}: ${keys}`,
          pressed.length ? `nothing was approved; it pressed ${pressed.join(', ')} and left the dialog in its pane` : 'nothing was pressed',
        )
      }
      const sent = await exec(['send-keys', '-t', tmux.pane, ...keys.keys], { socket: tmux.socket })
      if (sent.code !== 0)
        throw new TrailbossError(
          `tmux send-keys failed: ${sent.stderr.trim()}`,
          pressed.length ? `pressed before: ${pressed.join(', ')}` : 'nothing was pressed',
        )
      pressed.push(keys.keys.join(' '))
      if (keys.then === 'answers') {
        // Said done only once the dialog took the key: a dialog that ignored it is still up.
        if (!(await dialogLeft(capture, read!, text))) {
          throw new TrailbossError(
            `${describeItem(item)}: pressed ${pressed.join(', ')}, but its dialog is still up as it was`,
            'nothing more was pressed; answer it in its pane (trailboss go)',
          )
        }
        break
      }
      if (step + 1 >= MAX_STEPS)
        throw new TrailbossError(
          `not answering ${describeItem(item)}: its dialog kept leading on`,
          `nothing was approved; it pressed ${pressed.join(', ')}`,
        )
      const next = await nextScreen(capture, read!, text, SETTLE_MS)
      if (next === null) {
        throw new TrailbossError(
          `not answering ${describeItem(item)}: its dialog did not change after ${keys.keys.join(' ')}`,
          `nothing was approved; it pressed ${pressed.join(', ')} and left the dialog in its pane`,
        )
      }
      text = next
    }
    io.stderr.write(`trailboss: ${answer === 'allow' ? 'allowed' : 'denied'} ${describeItem(item)}\n`)
    return 0
  } catch (err) {
    if (err instanceof TmuxUnavailable)
      throw new TrailbossError('tmux is not installed or not on PATH', 'install tmux, or run trailboss where tmux is on PATH')
    throw err
  }
}

/** What a dialog asks and offers: a blinking bullet or a status line redrawn elsewhere leaves it as it was. */
const dialogState = (read: (text: string) => PermissionDialog | null, text: string | null): string =>
  JSON.stringify(text === null ? null : read(text), (k, v: unknown) => (k === 'layouts' ? undefined : v))

/**
 * The pane once the dialog on it reads differently from the one on `before` (another dialog, the
 * cursor moved) and has stayed so for `settleMs`, or null when nothing changed by the deadline:
 * the key may have come before the dialog took keys, and pressing it again could land on the
 * next dialog, so nothing more is pressed.
 */
const nextScreen = async (
  capture: () => Promise<string | null>,
  read: (text: string) => PermissionDialog | null,
  before: string | null,
  settleMs: number,
): Promise<string | null> => {
  const deadline = Date.now() + STEP_WAIT_MS
  const was = dialogState(read, before)
  let seen = null as { state: string; text: string; at: number } | null
  for (;;) {
    const text = await capture()
    const state = dialogState(read, text)
    if (text !== null && state !== was && state !== seen?.state) seen = { state, text, at: Date.now() }
    // A frame with no dialog may come between two dialogs: it is taken only at the deadline.
    if (seen && read(seen.text) !== null && Date.now() - seen.at >= settleMs) return seen.text
    if (Date.now() > deadline) return seen?.text ?? null
    await sleep(POLL_MS)
  }
}

/** Whether the dialog on `before` left the pane (answered) by the deadline: not when only its cursor moved back. */
const dialogLeft = async (
  capture: () => Promise<string | null>,
  read: (text: string) => PermissionDialog | null,
  before: string | null,
): Promise<boolean> => {
  const deadline = Date.now() + STEP_WAIT_MS
  const block = (text: string | null): string =>
    JSON.stringify(text === null ? null : (read(text)?.block ?? null), (k, v: unknown) => (k === 'layouts' ? undefined : v))
  const was = block(before)
  for (;;) {
    const text = await capture()
    if (text !== null && (read(text) === null || block(text) !== was)) return true
    if (Date.now() > deadline) return false
    await sleep(POLL_MS)
  }
}

export const runOk = (args: AnswerArgs, io: Io): Promise<number> => runAnswer('allow', args, io)
export const runNo = (args: AnswerArgs, io: Io): Promise<number> => runAnswer('deny', args, io)
