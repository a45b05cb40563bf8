// `show` of a wait on another host: that host's own `trailboss show`, run over ssh by the wait's
// key there, with a fixed list of words (the key, checked against the session-id pattern, is the
// only variable one), bounded like every read (3 s, 4 MB), and its page made visible text here
// under a line that names the host. `--json` runs the host's `show --json`: its answer is checked
// against the shape `show --json` gives here, every string in it made visible, and the item named
// as `ls --json` names it here (its key with the destination, and the destination).
import type { infer as Infer } from 'zod/mini'
import type { showOutputSchema } from '../schemas/contract.js'
import type { Env } from '../paths.js'
import { SESSION_ID_PATTERN } from '../paths.js'
import { formatAge } from '../duration.js'
import { TrailbossError } from '../errors.js'
import { formatVisible } from '../text/visible-text.js'
import type { RemoteOrigin } from '../queue/derive.js'
import { visibleDeep } from './answer.js'
import { describeFailure, type HostRead } from './fleet.js'
import { remoteName } from './items.js'
import { runSsh } from './ssh-run.js'
import { SSH_MAX_ANSWER_BYTES, SSH_READ_TIMEOUT_MS } from './ssh-args.js'

/** The flags of `show` that are passed on, each a fixed word. */
export interface RemoteShowFlags {
  screen: boolean
  full: boolean
  json?: boolean
}

/** What `show --json` prints, here as on the host. */
export type ShowJson = Infer<typeof showOutputSchema>

/** Pure: the words run on the host; `--local` so it never reads hosts of its own. */
export const remoteShowWords = (theirKey: string, flags: RemoteShowFlags): string[] => {
  // A key the pattern allows may still start with '-', which their `show` would take for an option.
  if (!SESSION_ID_PATTERN.test(theirKey) || theirKey.startsWith('-'))
    throw new TrailbossError(`refused to ask for the remote session ${JSON.stringify(formatVisible(theirKey))}`)
  return [
    'trailboss',
    'show',
    ...(flags.json ? ['--json'] : []),
    theirKey,
    '--local',
    ...(flags.screen ? ['--screen'] : []),
    ...(flags.full ? ['--full'] : []),
  ]
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

/**
 * Pure but for loading zod: the host's `show --json` answer as printed here, or why it is refused.
 * It must have the shape `show --json` has here and be the wait asked for; its strings are made
 * visible, and its item is named as this machine names it (`n` from this machine's numbers).
 */
export const checkRemoteShowJson = async (
  text: string,
  destination: string,
  theirKey: string,
  n: number | null,
): Promise<{ ok: true; show: ShowJson } | { ok: false; why: string }> => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { ok: false, why: 'its answer is not JSON' }
  }
  const version = (data as { version?: unknown } | null)?.version
  if (typeof version === 'number' && version !== 2)
    return { ok: false, why: `its show --json is version ${version}, this one reads 2: update Trail Boss there` }
  const { showOutputSchema } = await import('../schemas/contract.js')
  const got = showOutputSchema.safeParse(data)
  if (!got.success) return { ok: false, why: 'its answer is not a show --json document' }
  if (got.data.item.key !== theirKey) return { ok: false, why: 'its answer is about another session' }
  const show = visibleDeep(got.data) as ShowJson
  const item = { ...show.item, n, key: remoteName(destination, show.item.key), destination, stale: false }
  return { ok: true, show: { ...show, item } }
}

/** Runs the host's `show` (or `show --json`) for the wait: its stdout, or a TrailbossError saying why not. */
const runRemoteShow = async (
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
  return r.stdout
}

/** Runs the host's `show` for the wait; its page, or a TrailbossError saying why not. */
export const readRemoteShow = async (
  env: Env,
  remote: RemoteOrigin,
  host: HostRead | undefined,
  flags: RemoteShowFlags,
  now: number,
): Promise<string> =>
  formatRemoteShow(remote.destination, remote.key, await runRemoteShow(env, remote, host, { ...flags, json: false }, now))

/** Runs the host's `show --json` for the wait (number `n` here); its checked document, or a TrailbossError saying why not. */
export const readRemoteShowJson = async (
  env: Env,
  remote: RemoteOrigin,
  n: number | null,
  host: HostRead | undefined,
  flags: RemoteShowFlags,
  now: number,
): Promise<ShowJson> => {
  const stdout = await runRemoteShow(env, remote, host, { ...flags, json: true }, now)
  const checked = await checkRemoteShowJson(stdout, remote.destination, remote.key, n)
  if (!checked.ok) throw new TrailbossError(`${formatVisible(remote.destination)}: ${checked.why}`, 'trailboss doctor checks each host')
  return checked.show
}
