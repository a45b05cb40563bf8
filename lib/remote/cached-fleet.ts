// Every host's queue for the surfaces that run every few seconds (`status`, `statusline`):
// taken from each host's last answer (last-answer.ts), refreshed at most once per
// REFRESH_GAP_MS per host, one refresh at a time per host under a lock. A refresh runs inside
// the command that starts it, within the read's own bound (3 s), so nothing outlives the
// command. A failed read is noted in the same file: a dead host is not tried again for the
// gap, so it costs the next calls nothing; a host another process is refreshing is read as
// its file stands.
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

/** One host's cache, refreshed first when it is due and no other process is refreshing it. */
export const readHostCached = async (env: Env, destination: string, all: boolean, now: () => number): Promise<HostCache> => {
  const cache = await readHostCache(env, destination)
  if (!deriveRefreshDue(cache, now())) return cache
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

/** Every host from its cache, each refreshed as above, all at once; the order of `destinations` is kept. */
export const readFleetCached = async (env: Env, destinations: readonly string[], all: boolean, now: () => number): Promise<FleetRead> => {
  const caches = await Promise.all(destinations.map((d) => readHostCached(env, d, all, now)))
  const at = now()
  const hosts = destinations.map((d, i) => deriveCachedHost(d, caches[i] ?? { answer: null, failed: null }, at))
  const items = hosts.flatMap((h, i) => {
    const answer = caches[i]?.answer
    return answer ? applyRemoteSeen(toRemoteItems(answer.listing, h.destination, !h.answered), readRemoteSeen(env, h.destination)) : []
  })
  return { items, hosts }
}

/** As startFleetRead, from the caches: says on stderr when the list cannot be read. */
export const startCachedFleetRead = (
  io: Pick<Io, 'env' | 'now' | 'stderr'>,
  choice: FleetChoice,
): { destinations: string[]; read: Promise<FleetRead> } => {
  const { destinations, problem } = chooseHosts(io.env, choice)
  if (problem) io.stderr.write(`trailboss: ${problem}; other hosts are not read\n`)
  return { destinations, read: readFleetCached(io.env, destinations, choice.all, io.now) }
}
