// Every host's queue for the surfaces that run every few seconds (`status`, `statusline`):
// taken from each host's last answer (last-answer.ts) as it stands, without waiting on ssh.
// A host is read again at most once per REFRESH_GAP_MS, one refresh at a time per host under a
// lock. The refreshes due are handed back to the caller, which runs them once its output is
// written and let go (lib/io.ts releaseStandardOutput): the process outlives its output only
// for them, each within the read's own bound (3 s). `ls --json --follow` and `--until-change`
// refresh first, then read, as they print what they read. A failed read is noted in the same
// file: a dead host is not tried again for the gap, so it costs the next calls nothing; a host
// another process is refreshing is read as its file stands.
import type { Env } from '../paths.js'
import type { Io } from '../io.js'
import { ensurePrivateDir } from '../fs/private-dir.js'
import { checkRemoteAnswer } from './answer.js'
import { chooseHosts, describeFailure, remoteLsWords, type FleetChoice, type FleetRead, type HostRead } from './fleet.js'
import { toRemoteItems } from './items.js'
import { applyRemoteSeen, readRemoteSeen } from './remote-seen.js'
import { type HostCache, lastAnswerFile, readHostCache, remoteDir, writeFailedRead, writeLastAnswer } from './last-answer.js'
import { runSsh } from './ssh-run.js'

/** A host is read again at most this often by the cached surfaces, whether its last read worked or not. */
export const REFRESH_GAP_MS = 10_000
/** A queue older than this is shown as stale even without a failed read (its refreshes keep being someone else's). */
export const CACHE_STALE_AFTER_MS = 3 * REFRESH_GAP_MS
/** A refresh holds its lock for at most the read's bound: a holder killed mid-read is taken over after this. */
const REFRESH_LOCK_STALE_MS = 10_000

/** Pure: whether the host is due for a read: its last read, good or failed, is at least the gap old (or in the future past it). */
export const deriveRefreshDue = (cache: HostCache, now: number): boolean => {
  const stamps = [cache.answer?.at, cache.failed?.at].filter((s): s is number => s !== undefined)
  if (stamps.length === 0) return true
  const age = now - Math.max(...stamps)
  return age >= REFRESH_GAP_MS || age < -REFRESH_GAP_MS
}

/** Pure: how the host's cache reads now: answered while its last read worked and its queue is recent. */
export const deriveCachedHost = (destination: string, cache: HostCache, now: number): HostRead => {
  const { answer, failed } = cache
  const queueAt = answer?.at ?? null
  if (failed && (answer === null || failed.at >= answer.at)) return { destination, answered: false, why: failed.why, queueAt }
  if (answer === null) return { destination, answered: false, why: 'not read yet', queueAt }
  if (now - answer.at >= CACHE_STALE_AFTER_MS) return { destination, answered: false, why: 'no recent answer', queueAt }
  return { destination, answered: true, why: null, queueAt }
}

/** Reads the host now and keeps what it said (its answer, or that it failed). */
const refreshHost = async (env: Env, destination: string, all: boolean, now: () => number, cache: HostCache): Promise<HostCache> => {
  const r = await runSsh(env, destination, remoteLsWords(all))
  const checked = r.ok ? await checkRemoteAnswer(r.stdout) : null
  if (checked?.ok) {
    const answer = { at: now(), listing: checked.listing }
    writeLastAnswer(env, destination, answer)
    return { answer, failed: null }
  }
  const failed = { at: now(), why: checked && !checked.ok ? checked.why : r.ok ? 'no answer' : describeFailure(r) }
  writeFailedRead(env, destination, failed, cache.answer)
  return { answer: cache.answer, failed }
}

/**
 * The host read again, unless another process is reading it or did since `cache` (the first look)
 * was read; its cache as it then stands.
 */
const refreshIfFree = async (env: Env, destination: string, all: boolean, now: () => number, cache: HostCache): Promise<HostCache> => {
  let release: () => Promise<void>
  try {
    ensurePrivateDir(remoteDir(env))
    // Loaded only for a refresh (proper-lockfile): the calls between refreshes read files alone.
    const { lockNow } = await import('../fs/lock-now.js')
    // No retries: a lock held means another process is reading the host right now.
    release = await lockNow(lastAnswerFile(env, destination), {
      realpath: false,
      stale: REFRESH_LOCK_STALE_MS,
      update: REFRESH_LOCK_STALE_MS / 2,
      retries: 0,
    })
  } catch {
    return cache
  }
  try {
    // Another process may have finished a refresh between the first look and the lock.
    const locked = await readHostCache(env, destination)
    return deriveRefreshDue(locked, now()) ? await refreshHost(env, destination, all, now, locked) : locked
  } finally {
    await release().catch(() => {})
  }
}

/**
 * Reads the hosts that were due again, all at once, each unless another process is reading it,
 * and resolves when every read has ended (each within the read's bound); null when none was due.
 */
export type RefreshDue = (() => Promise<void>) | null

/** Every host as its cache stands, and the refreshes due. */
export interface CachedFleetRead extends FleetRead {
  refreshDue: RefreshDue
}

/** When the due hosts are read: before the caches are taken (the read waits), or after, by the caller. */
export type CachedRefresh = 'refresh-first' | 'refresh-after'

/** The fleet as the caches say at `now`, each remote wait with the seen mark kept for it here. */
const fleetFromCaches = (env: Env, hosts: readonly { destination: string; cache: HostCache }[], now: number): FleetRead => {
  const reads = hosts.map(({ destination, cache }) => ({ cache, host: deriveCachedHost(destination, cache, now) }))
  const items = reads.flatMap(({ cache, host }) =>
    cache.answer
      ? applyRemoteSeen(toRemoteItems(cache.answer.listing, host.destination, !host.answered), readRemoteSeen(env, host.destination))
      : [],
  )
  return { items, hosts: reads.map((r) => r.host) }
}

/**
 * Every host from its cache; the order of `destinations` is kept. `refresh-after` (status,
 * statusline): the caches as they stand now, and the refreshes due for the caller to run once its
 * output is out. `refresh-first`: the due hosts are read before the caches are taken.
 */
export const readFleetCached = async (
  env: Env,
  destinations: readonly string[],
  all: boolean,
  now: () => number,
  when: CachedRefresh,
): Promise<CachedFleetRead> => {
  const hosts = await Promise.all(destinations.map(async (destination) => ({ destination, cache: await readHostCache(env, destination) })))
  const lookedAt = now()
  const due = hosts.filter((h) => deriveRefreshDue(h.cache, lookedAt))
  const refresh = async (): Promise<void> => {
    await Promise.all(
      due.map(async (h) => {
        h.cache = await refreshIfFree(env, h.destination, all, now, h.cache)
      }),
    )
  }
  if (when === 'refresh-first') {
    await refresh()
    return { ...fleetFromCaches(env, hosts, now()), refreshDue: null }
  }
  return { ...fleetFromCaches(env, hosts, lookedAt), refreshDue: due.length === 0 ? null : refresh }
}

/** As startFleetRead, from the caches: says on stderr when the list cannot be read. */
export const startCachedFleetRead = (
  io: Pick<Io, 'env' | 'now' | 'stderr'>,
  choice: FleetChoice,
  when: CachedRefresh,
): { destinations: string[]; read: Promise<CachedFleetRead> } => {
  const { destinations, problem } = chooseHosts(io.env, choice)
  if (problem) io.stderr.write(`trailboss: ${problem}; other hosts are not read\n`)
  return { destinations, read: readFleetCached(io.env, destinations, choice.all, io.now, when) }
}
