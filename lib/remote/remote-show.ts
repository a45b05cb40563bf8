// `show` of a wait on another host: that host's own `trailboss show`, run over ssh by the wait's
// key there, with a fixed list of words (the key, checked against the session-id pattern, is the
// only variable one), bounded like every read (3 s, 4 MB), and its page made visible text here
// under a line that names the host.
import type { Env } from '../paths.js'
import { SESSION_ID_PATTERN } from '../paths.js'
import { formatAge } from '../duration.js'
import { TrailbossError } from '../errors.js'
import { formatVisible } from '../text/visible-text.js'
import type { RemoteOrigin } from '../queue/derive.js'
import { describeFailure, type HostRead } from './fleet.js'
import { runSsh } from './ssh-run.js'
import { SSH_MAX_ANSWER_BYTES, SSH_READ_TIMEOUT_MS } from './ssh-args.js'

/** The flags of `show` that are passed on, each a fixed word. */
export interface RemoteShowFlags {
  screen: boolean
  full: boolean
}

/** Pure: the words run on the host; `--local` so it never reads hosts of its own. */
export const remoteShowWords = (theirKey: string, flags: RemoteShowFlags): string[] => {
  // A key the pattern allows may still start with '-', which their `show` would take for an option.
  if (!SESSION_ID_PATTERN.test(theirKey) || theirKey.startsWith('-'))
    throw new TrailbossError(`refused to ask for the remote session ${JSON.stringify(formatVisible(theirKey))}`)
  return ['trailboss', 'show', theirKey, '--local', ...(flags.screen ? ['--screen'] : []), ...(flags.full ? ['--full'] : [])]
}

/** Pure: the host's page as shown here: a line naming the host, then its text made visible (line breaks kept). */
export const formatRemoteShow = (destination: string, theirKey: string, page: string): string => {
  const body = formatVisible(page, { newlines: true, tabs: 'expand' }).replace(/\n+$/, '')
  return `on ${formatVisible(destination)}: trailboss show ${theirKey}\n${body}\n`
}

/** Pure: why a stale wait cannot be shown, in the person's words. */
export const describeStaleHost = (remote: RemoteOrigin, host: HostRead | undefined, now: number): string => {
  const age = host === undefined || host.queueAt === null ? '' : `; what is listed of it is ${formatAge(now - host.queueAt)} old`
  return `${formatVisible(remote.destination)} did not answer${host?.why ? ` (${host.why})` : ''}${age}`
}

/** Runs the host's `show` for the wait; its page, or a TrailbossError saying why not. */
export const readRemoteShow = async (
  env: Env,
  remote: RemoteOrigin,
  host: HostRead | undefined,
  flags: RemoteShowFlags,
  now: number,
): Promise<string> => {
  if (remote.stale)
    throw new TrailbossError(describeStaleHost(remote, host, now), 'try again when it answers; trailboss ls shows each host')
  const words = remoteShowWords(remote.key, flags)
  const r = await runSsh(env, remote.destination, words, { timeoutMs: SSH_READ_TIMEOUT_MS, maxBytes: SSH_MAX_ANSWER_BYTES })
  if (!r.ok) throw new TrailbossError(`${formatVisible(remote.destination)}: ${describeFailure(r)}`, 'trailboss ls shows each host')
  return formatRemoteShow(remote.destination, remote.key, r.stdout)
}
