// Every host's queue while `watch` runs: one `trailboss ls --json --local --follow` per host over
// ssh (ssh-follow.ts), each line a whole document, checked (answer.ts) and kept (last-answer.ts).
// A host whose follow ends (refused, gone silent past ssh's keep-alive, a broken document) shows
// its last known waits marked stale, and its follow starts again after a pause that doubles up
// to FOLLOW_RETRY_MAX_MS. close() ends every follow and timer.
import type { Env } from '../paths.js'
import type { QueueItem } from '../queue/derive.js'
import { checkRemoteAnswer, type RemoteListing } from './answer.js'
import { deriveCachedHost } from './cached-fleet.js'
import type { HostRead } from './fleet.js'
import { toRemoteItems } from './items.js'
import { applyRemoteSeen, readRemoteSeen } from './remote-seen.js'
import { readHostCache, writeFailedRead, writeLastAnswer } from './last-answer.js'
import { spawnSshFollow, type SshFollow } from './ssh-follow.js'

/** The first pause before a follow that ended starts again. */
export const FOLLOW_RETRY_MIN_MS = 1000
/** The longest pause between two tries of a host that keeps failing. */
export const FOLLOW_RETRY_MAX_MS = 30_000

/** The words each host runs: its own queue only, one document a line, for as long as we read. */
export const remoteFollowWords = (all: boolean): string[] => ['trailboss', 'ls', '--json', '--local', '--follow', ...(all ? ['--all'] : [])]

/** Pure: the pause before the next try, after `failures` ends in a row (1 s, 2 s, 4 s … 30 s). */
export const deriveRetryMs = (failures: number): number =>
  Math.min(FOLLOW_RETRY_MAX_MS, FOLLOW_RETRY_MIN_MS * 2 ** Math.max(0, Math.min(failures - 1, 16)))

interface HostFollow {
  listing: RemoteListing | null
  host: HostRead
  run: SshFollow | null
  retry: NodeJS.Timeout | undefined
  failures: number
}

export interface FleetFollow {
  /** Every host's waits now (a host's that does not answer: its last known, marked stale). */
  items: () => QueueItem[]
  hosts: () => HostRead[]
  close: () => void
}

/**
 * Starts following every host; `onChange` is called after each new document and each host that
 * stops (or starts again) answering.
 */
export const startFleetFollow = async (
  env: Env,
  destinations: readonly string[],
  all: boolean,
  now: () => number,
  onChange: () => void,
): Promise<FleetFollow> => {
  let closed = false
  const follows = new Map<string, HostFollow>()
  const start = (destination: string, f: HostFollow): void => {
    if (closed) return
    f.retry = undefined
    // This run's lines only: a line still being checked when it ended is dropped.
    let alive = true
    const failed = (why: string): void => {
      if (!alive) return
      alive = false
      f.run?.close()
      f.run = null
      f.failures++
      f.host = { destination, answered: false, why, queueAt: f.host.queueAt }
      writeFailedRead(
        env,
        destination,
        { at: now(), why },
        f.listing && f.host.queueAt !== null ? { at: f.host.queueAt, listing: f.listing } : null,
      )
      if (!closed) f.retry = setTimeout(() => start(destination, f), deriveRetryMs(f.failures))
      onChange()
    }
    // Lines are checked in order: a later document never lands before an earlier one.
    let checking: Promise<void> = Promise.resolve()
    const onLine = (line: string): void => {
      checking = checking.then(() => take(line))
    }
    const take = async (line: string): Promise<void> => {
      if (closed || !alive) return
      const checked = await checkRemoteAnswer(line)
      if (closed || !alive) return
      if (!checked.ok) return failed(checked.why)
      const at = now()
      f.listing = checked.listing
      f.failures = 0
      f.host = { destination, answered: true, why: null, queueAt: at }
      writeLastAnswer(env, destination, { at, listing: checked.listing })
      onChange()
    }
    try {
      f.run = spawnSshFollow(env, destination, remoteFollowWords(all), onLine, failed)
    } catch (err) {
      failed((err as Error).message)
    }
  }
  for (const destination of destinations) {
    // Until its first document: what the cache holds, stale unless it is recent.
    const cache = await readHostCache(env, destination)
    const f: HostFollow = {
      listing: cache.answer?.listing ?? null,
      host: deriveCachedHost(destination, cache, now()),
      run: null,
      retry: undefined,
      failures: 0,
    }
    follows.set(destination, f)
    start(destination, f)
  }
  return {
    items: () =>
      [...follows.values()].flatMap((f) =>
        f.listing
          ? applyRemoteSeen(toRemoteItems(f.listing, f.host.destination, !f.host.answered), readRemoteSeen(env, f.host.destination))
          : [],
      ),
    hosts: () => [...follows.values()].map((f) => f.host),
    close: () => {
      closed = true
      for (const f of follows.values()) {
        clearTimeout(f.retry)
        f.run?.close()
        f.run = null
      }
    },
  }
}
