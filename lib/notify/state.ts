// What `notify` already told the person: $TRAILBOSS_HOME/notify.json, read and rewritten under a
// proper-lockfile lock and written atomically, so two overlapping calls (cron and a tmux hook)
// never tell the same wait twice.
import { join } from 'node:path'
import { TrailbossError } from '../errors.js'
import { type Env, trailbossHome } from '../paths.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { describeWriteError, lockNow } from '../fs/lock-now.js'
import { checkNotify } from '../cache/check.generated.js'
import { type CacheFile, deriveCacheProblem, readCache } from '../fs/cache-file.js'
import { writeHomeFile } from '../fs/home-file.js'
import { ensurePrivateDir } from '../fs/private-dir.js'

export const NOTIFY_STATE_VERSION = 1
/** A holder refreshes its lock every half of this; a dead one's lock is taken over after it. */
export const NOTIFY_LOCK_STALE_MS = 10_000
/** How long a call waits for another one to finish before giving up (exit 1, nothing told). */
export const NOTIFY_LOCK_WAIT_MS = 30_000

/** A wait is the same wait while its session and `since` are (docs/design.md §3.2: a new wait, a new since). */
export const waitId = (item: { sessionId: string; since: number }): string => `${item.sessionId}@${item.since}`

/**
 * Pure: the host a wait id belongs to (`devbox:3f2a…@since`: the destination before the
 * session id's last ':'), or null for this machine's (a local session id holds no ':').
 */
export const waitHost = (id: string): string | null => {
  const sessionId = id.slice(0, id.lastIndexOf('@'))
  const colon = sessionId.lastIndexOf(':')
  return colon > 0 ? sessionId.slice(0, colon) : null
}

export interface NotifyState {
  v: typeof NOTIFY_STATE_VERSION
  /**
   * Told wait ids per profile: '' for plain calls, the --older-than threshold in ms otherwise,
   * so a 5-minute reminder still fires for a wait an immediate call already announced.
   */
  told: Record<string, string[]>
  /**
   * The notes about channels that cannot work here (no desktop session under cron) said last
   * time: said once, not on every run (each stderr line from cron is a mail).
   */
  said?: string[]
  /** Until when `notify --digest` told what arrived (ms): the next digest starts there. */
  digestAt?: number
}

export const notifyStateFile = (env: Env): string => join(trailbossHome(env), 'notify.json')

const toState = (file: NotifyState | null): NotifyState => {
  if (!file) return { v: NOTIFY_STATE_VERSION, told: {} }
  const said = file.said ?? []
  return {
    v: NOTIFY_STATE_VERSION,
    told: file.told,
    ...(said.length > 0 ? { said } : {}),
    ...(file.digestAt === undefined ? {} : { digestAt: file.digestAt }),
  }
}

/** Pure: the state a file's text holds; a damaged one (or none) is a fresh state. */
export const parseNotifyState = (text: string | null): NotifyState => {
  // A damaged file costs at most one repeated notification; refusing would cost all of them.
  const got = text === null ? null : deriveCacheProblem(text, checkNotify)
  return toState(got !== null && typeof got === 'object' ? (got.data as NotifyState) : null)
}

const notifyCache = (env: Env): CacheFile => ({
  file: notifyStateFile(env),
  dir: trailbossHome(env),
  check: checkNotify,
  tmpPrefix: '.notify',
})

/**
 * Pure: which of the current waits are new for this profile, and the set to remember. Only
 * current waits are remembered, so the file never grows past the queue, and those `held` (of a
 * host that did not answer this time, whose waits are not known now).
 */
export const deriveNew = (
  state: NotifyState,
  profile: string,
  currentIds: readonly string[],
  toldNow: readonly string[],
  held: (id: string) => boolean = () => false,
): { fresh: string[]; next: NotifyState } => {
  const before = new Set(state.told[profile] ?? [])
  const fresh = currentIds.filter((id) => !before.has(id))
  // A host that did not answer: what was told of it stays told, neither gone nor new.
  const keep = new Set([...currentIds.filter((id) => before.has(id)), ...[...before].filter(held), ...toldNow])
  return { fresh, next: { ...state, v: NOTIFY_STATE_VERSION, told: { ...state.told, [profile]: [...keep].sort() } } }
}

/**
 * Pure: which notes about this run's unusable channels to say (those not said last time), and
 * the state that remembers them. A note that no longer applies is forgotten, so it is said
 * again the next time it does.
 */
export const deriveNotes = (state: NotifyState, notes: readonly string[]): { say: string[]; next: NotifyState } => {
  const before = new Set(state.said ?? [])
  const { said: _said, ...rest } = state
  return { say: notes.filter((n) => !before.has(n)), next: notes.length > 0 ? { ...rest, said: [...new Set(notes)].sort() } : rest }
}

/**
 * Runs `fn` with the state under the lock and writes what it returns atomically (fsync: this
 * file decides whether the person hears about a wait again). `fn` returning null writes nothing.
 */
export const withNotifyState = async <T>(
  env: Env,
  fn: (state: NotifyState) => Promise<{ next: NotifyState | null; result: T }>,
): Promise<T> => {
  const home = trailbossHome(env)
  // What cannot be remembered must not be told: a home we may not write fails at once.
  const foreign = deriveHomeProblem(env)
  if (foreign) throw new TrailbossError(`${foreign.folder} ${foreign.why}; nothing was notified`, FOREIGN_HOME_HINT)
  const file = notifyStateFile(env)
  let release: () => Promise<void>
  try {
    ensurePrivateDir(home)
    release = await lockNow(file, {
      realpath: false,
      stale: NOTIFY_LOCK_STALE_MS,
      update: NOTIFY_LOCK_STALE_MS / 2,
      retries: { retries: 1000, factor: 1.3, minTimeout: 10, maxTimeout: 250, randomize: true, maxRetryTime: NOTIFY_LOCK_WAIT_MS },
    })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new TrailbossError(
        `another notify has held ${file}.lock for over ${NOTIFY_LOCK_WAIT_MS / 1000} s`,
        'it may hang on a slow --exec command; nothing was notified this time',
      )
    }
    throw new TrailbossError(
      `cannot write in ${home} (${describeWriteError(err)}); nothing was notified`,
      'notify remembers what it told there; point TRAILBOSS_HOME at a writable folder',
    )
  }
  try {
    // A FIFO, a link or a damaged file in its place reads as no state (said once in the log, and
    // rewritten here): at most one repeated notification.
    const got = readCache<NotifyState>(env, notifyCache(env), { repair: false })
    const state = toState(got.value)
    const { next, result } = await fn(state)
    const toWrite = next ?? (got.bad !== null ? state : null)
    if (toWrite) {
      writeHomeFile(env, home, file, `${JSON.stringify(toWrite)}\n`, '.notify', { durable: true })
    }
    return result
  } finally {
    await release().catch(() => {})
  }
}
