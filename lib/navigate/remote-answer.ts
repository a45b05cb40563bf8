// `ok` / `no` on a wait of another host (docs/design.md §10.5). Nothing is pressed from here: the
// host's own trailboss answers, by the session's id, under its own guard and its own opt-in, and
// only with fixed words that make it refuse unless it has the exact-match guard and the wait it
// finds is the very one read here. What it says comes back as visible text, with the host named.
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { SESSION_ID_PATTERN } from '../paths.js'
import { ANSWER_GUARD, type Answer } from '../queue/answer-guard.js'
import type { QueueItem } from '../queue/derive.js'
import { describeFailure, type HostRead } from '../remote/fleet.js'
import { runSsh, type SshResult } from '../remote/ssh-run.js'
import { formatVisible } from '../text/visible-text.js'
import { describeItem } from './describe-item.js'
import { inputOffWhat } from './input-guard.js'

/**
 * The host refuses a wait younger than this. Any wait of that session other than the one read
 * here began after that read, so while the host's own read comes within this time of it, the
 * host can only find the wait read here, or refuse.
 */
export const REMOTE_MIN_AGE = '10s'
/** The part of that time this machine may take (the host's read included) before it sends. */
export const REMOTE_SEND_WITHIN_MS = 4000
/** The host's `ok` may step through a dialog or two (commands/answer.ts): seconds, not minutes. */
export const REMOTE_ANSWER_TIMEOUT_MS = 40_000
const REMOTE_ANSWER_MAX_BYTES = 64 * 1024

/** Pure: the words run on the host, or null for an id that cannot be passed as a word safely. */
export const remoteAnswerWords = (answer: Answer, theirId: string): string[] | null =>
  SESSION_ID_PATTERN.test(theirId) && !theirId.startsWith('-')
    ? ['trailboss', answer === 'allow' ? 'ok' : 'no', theirId, '--local', '--require-guard', ANSWER_GUARD, '--older-than', REMOTE_MIN_AGE]
    : null

/**
 * Pure: why nothing may be sent to the host for `item`, or null. `host` is how its host answered
 * this read; `elapsedMs` how long since the read began.
 */
export const deriveRemoteRefusal = (item: QueueItem, host: HostRead | undefined, elapsedMs: number): string | null => {
  const remote = item.remote
  if (!remote) return 'it is not a wait of another host'
  const dest = formatVisible(remote.destination)
  if (remote.stale || host?.answered === false)
    return `${dest} did not answer just now${host?.why ? ` (${host.why})` : ''}; its row is its last known queue, and only a wait read now is answered`
  if (!item.tmux) return 'it does not run in tmux'
  if (item.state !== 'permission') return `it does not wait on a permission dialog (${item.kind ?? item.state})`
  if (item.kind === 'question') return 'it asks a question: answer it in its pane (trailboss go)'
  if (elapsedMs > REMOTE_SEND_WITHIN_MS)
    return `reading the hosts took ${Math.round(elapsedMs / 1000)} s, too long to be sure ${dest} answers the wait read here; try again`
  return null
}

/** `trailboss: what — hint`, as a trailboss prints an error: its parts, or the line whole. */
const splitErrorLine = (line: string): { what: string; hint: string | undefined } => {
  const m = /^trailboss: (.*?)(?: — (.*))?$/.exec(line)
  return m ? { what: m[1] ?? line, hint: m[2] } : { what: line, hint: undefined }
}

/** The host's lines, made visible, without blank ones. */
const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => formatVisible(l.trimEnd()))
    .filter((l) => l.trim() !== '')

/** Pure: what a failed run on the host means for the person, as the error this command ends with. */
export const describeRemoteFailure = (destination: string, command: 'ok' | 'no', r: Extract<SshResult, { ok: false }>): TrailbossError => {
  const dest = formatVisible(destination)
  if (r.reason === 'timeout')
    return new TrailbossError(
      `${dest} did not say within ${REMOTE_ANSWER_TIMEOUT_MS / 1000} s whether it answered`,
      'it may have: see trailboss ls, or answer it in its pane (trailboss go)',
    )
  if (r.reason !== 'exit') return new TrailbossError(`could not answer on ${dest}: ${describeFailure(r)}`, 'nothing was sent')
  const said = linesOf(r.stderr)
  // Its yargs stops at an option it does not know: a trailboss from before the guard was named.
  if (r.code === 2)
    return new TrailbossError(
      `${dest}'s Trail Boss is too old to answer safely${said[0] ? ` (it said: ${said[0]})` : ''}`,
      `update it there; nothing was pressed`,
    )
  const last = said.filter((l) => l.startsWith('trailboss: ')).at(-1)
  if (r.code === 1 && last?.startsWith(`trailboss: ${inputOffWhat(command)}`))
    return new TrailbossError(
      `\`${command}\` is off on ${dest}`,
      `set TRAILBOSS_ALLOW_SEND=1 on ${dest} where its ssh commands get their environment (for bash, near the top of ~/.bashrc there); this machine's setting is not passed on`,
    )
  if (r.code === 1 && last) {
    const { what, hint } = splitErrorLine(last)
    return new TrailbossError(`${dest}: ${what}`, hint)
  }
  return new TrailbossError(`could not answer on ${dest}: ${describeFailure(r)}`)
}

/** Answers `item`, a wait of another host, through that host's trailboss; the exit code. */
export const answerOnHost = async (
  io: Pick<Io, 'env' | 'now' | 'stderr'>,
  item: QueueItem,
  answer: Answer,
  read: { startedAt: number; hosts: readonly HostRead[] },
): Promise<number> => {
  const command = answer === 'allow' ? 'ok' : 'no'
  const remote = item.remote!
  const host = read.hosts.find((h) => h.destination === remote.destination)
  const why = deriveRemoteRefusal(item, host, io.now() - read.startedAt)
  if (why) throw new TrailbossError(`not answering ${describeItem(item)}: ${why}`, 'nothing was sent')
  const words = remoteAnswerWords(answer, remote.sessionId)
  if (!words) throw new TrailbossError(`not answering ${describeItem(item)}: its session id cannot be sent safely`, 'nothing was sent')
  const r = await runSsh(io.env, remote.destination, words, { timeoutMs: REMOTE_ANSWER_TIMEOUT_MS, maxBytes: REMOTE_ANSWER_MAX_BYTES })
  if (!r.ok) throw describeRemoteFailure(remote.destination, command, r)
  const dest = formatVisible(remote.destination)
  io.stderr.write(`trailboss: ${answer === 'allow' ? 'allowed' : 'denied'} ${describeItem(item)} on ${dest}\n`)
  for (const line of [...linesOf(r.stdout), ...linesOf(r.stderr)]) io.stderr.write(`${dest}: ${line}\n`)
  return 0
}
