// Every host's queue, read at once (docs/design.md §10): one `trailboss ls --json --local` per
// host over ssh (ssh-run.ts, bounded), its answer checked (answer.ts) and kept (last-answer.ts).
// A host that does not answer gives its last known waits, marked stale, and says why; it never
// holds up the others or this machine's rows, and never fails the command by itself.
import type { Env } from '../paths.js'
import type { Io } from '../io.js'
import { EXIT_USAGE, TrailbossError } from '../errors.js'
import { readHosts } from './hosts-file.js'
import { LOCAL_HOST } from './host-name.js'
import type { QueueItem } from '../queue/derive.js'
import { formatVisible } from '../text/visible-text.js'
import { checkRemoteAnswer } from './answer.js'
import { toRemoteItems } from './items.js'
import { applyRemoteSeen, readRemoteSeen } from './remote-seen.js'
import { readHostCache, writeFailedRead, writeLastAnswer } from './last-answer.js'
import { ensureControlDir, runSsh, type SshResult } from './ssh-run.js'

/** How one host answered this time. */
export interface HostRead {
  destination: string
  answered: boolean
  /** Why it did not (plain text), or null. */
  why: string | null
  /** When the queue shown for it was read (now, or its last good answer's time); null: never. */
  queueAt: number | null
}

export interface FleetRead {
  items: QueueItem[]
  hosts: HostRead[]
}

/** The one command a queue is read with; `--local` so a host never reads hosts of its own. */
export const remoteLsWords = (all: boolean): string[] => ['trailboss', 'ls', '--json', '--local', ...(all ? ['--all'] : [])]

/** Pure: why an ssh run gave no answer, in the person's words. */
export const describeFailure = (r: Extract<SshResult, { ok: false }>): string => {
  const detail = formatVisible(r.message).slice(0, 160)
  switch (r.reason) {
    case 'timeout':
      return 'no answer within the time allowed'
    case 'too-big':
      return 'its answer was too large'
    case 'no-ssh':
      return 'ssh could not be run here'
    case 'connect':
      return detail ? `could not connect: ${detail}` : 'could not connect'
    default:
      if (r.code === 127 || /trailboss: (command )?not found/.test(r.stderr))
        return 'trailboss is not on its PATH for ssh commands (see trailboss doctor)'
      return detail ? `its trailboss failed: ${detail}` : `its trailboss failed (exit ${r.code ?? '?'})`
  }
}

/** One host: its answer now, or its last one marked stale. */
export const readHost = async (
  env: Env,
  destination: string,
  all: boolean,
  now: () => number,
  master?: boolean,
): Promise<{ items: QueueItem[]; host: HostRead }> => {
  const r = await runSsh(env, destination, remoteLsWords(all), master === undefined ? {} : { master })
  let why: string
  if (r.ok) {
    const checked = await checkRemoteAnswer(r.stdout)
    if (checked.ok) {
      const at = now()
      writeLastAnswer(env, destination, { at, listing: checked.listing })
      return {
        items: applyRemoteSeen(toRemoteItems(checked.listing, destination, false), readRemoteSeen(env, destination)),
        host: { destination, answered: true, why: null, queueAt: at },
      }
    }
    why = checked.why
  } else why = describeFailure(r)
  const last = (await readHostCache(env, destination)).answer
  // Noted for the surfaces that run every few seconds: they do not try it again for a while.
  writeFailedRead(env, destination, { at: now(), why }, last)
  return {
    items: last ? applyRemoteSeen(toRemoteItems(last.listing, destination, true), readRemoteSeen(env, destination)) : [],
    host: { destination, answered: false, why, queueAt: last?.at ?? null },
  }
}

/** Every host at once; the order of `destinations` is kept. */
export const readFleet = async (env: Env, destinations: readonly string[], all: boolean, now: () => number): Promise<FleetRead> => {
  // The socket folder is checked once for all of them: each ssh starts a little sooner.
  const master = destinations.length > 0 ? ensureControlDir(env) : undefined
  const got = await Promise.all(destinations.map((d) => readHost(env, d, all, now, master)))
  return { items: got.flatMap((g) => g.items), hosts: got.map((g) => g.host) }
}

export interface FleetChoice {
  all: boolean
  /** `--host`: only these hosts (each must be in the list). */
  only?: readonly string[] | undefined
}

/** The hosts to read, or a usage error for a `--host` that names none of them. */
export const chooseHosts = (env: Env, choice: FleetChoice): { destinations: string[]; problem: string | null } => {
  const { hosts, problem } = readHosts(env)
  const only = (choice.only ?? []).filter((d) => d !== LOCAL_HOST)
  const unknown = only.filter((d) => !hosts.includes(d))
  if (unknown.length > 0)
    throw new TrailbossError(
      `no host ${unknown.map((d) => JSON.stringify(formatVisible(d))).join(', ')} in the list`,
      hosts.length > 0 ? `the hosts are: ${hosts.join(', ')}` : 'add one with: trailboss hosts add <destination>',
      EXIT_USAGE,
    )
  // `--host local` alone reads no other host.
  const named = (choice.only ?? []).length > 0
  return { destinations: named ? hosts.filter((d) => only.includes(d)) : hosts, problem }
}

/** Starts reading the hosts (none without a list); says on stderr when the list cannot be read. */
export const startFleetRead = (
  io: Pick<Io, 'env' | 'now' | 'stderr'>,
  choice: FleetChoice,
): { destinations: string[]; read: Promise<FleetRead> } => {
  const { destinations, problem } = chooseHosts(io.env, choice)
  if (problem) io.stderr.write(`trailboss: ${problem}; other hosts are not read\n`)
  return { destinations, read: readFleet(io.env, destinations, choice.all, io.now) }
}
