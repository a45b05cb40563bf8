// What `notify` already told the person: $TRAILBOSS_HOME/notify.json, read and rewritten under a
// proper-lockfile lock and written atomically, so two overlapping calls (cron and a tmux hook)
// never tell the same wait twice.
import { join } from 'node:path'
import { TrailbossError } from '../errors.js'
import { type Env, trailbossHome } from '../paths.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { describeWriteError, lockNow } from '../fs/lock-now.js'
import { READ_CAP, readRegularIfExists } from '../fs/safe-file.js'
import { writeHomeFile } from '../fs/home-file.js'
import { ensurePrivateDir } from '../fs/private-dir.js'

export const NOTIFY_STATE_VERSION = 1
/** A holder refreshes its lock every half of this; a dead one's lock is taken over after it. */
export const NOTIFY_LOCK_STALE_MS = 10_000
/** How long a call waits for another one to finish before giving up (exit 1, nothing told). */
export const NOTIFY_LOCK_WAIT_MS = 30_000

/** A wait is the same wait while its session and `since` are (docs/design.md §3.2: a new wait, a new since). */
export const waitId = (item: { sessionId: string; since: number }): string => `${item.sessionId}@${item.since}`

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
}

export const notifyStateFile = (env: Env): string => join(trailbossHome(env), 'notify.json')

export const parseNotifyState = (text: string | null): NotifyState => {
  if (text === null) return { v: NOTIFY_STATE_VERSION, told: {} }
  try {
    const v = JSON.parse(text) as Partial<NotifyState>
    if (v.v !== NOTIFY_STATE_VERSION || typeof v.told !== 'object' || v.told === null) throw new Error('unknown shape')
    const told: Record<string, string[]> = {}
    for (const [k, ids] of Object.entries(v.told)) if (Array.isArray(ids)) told[k] = ids.filter((i): i is string => typeof i === 'string')
    const said = Array.isArray(v.said) ? v.said.filter((i): i is string => typeof i === 'string') : []
    return { v: NOTIFY_STATE_VERSION, told, ...(said.length > 0 ? { said } : {}) }
  } catch {
    // A damaged file costs at most one repeated notification; refusing would cost all of them.
    return { v: NOTIFY_STATE_VERSION, told: {} }
  }
}

/**
 * Pure: which of the current waits are new for this profile, and the set to remember. Only
 * current waits are remembered, so the file never grows past the queue.
 */
export const deriveNew = (state: NotifyState, profile: string, currentIds: readonly string[], toldNow: readonly string[]): { fresh: string[]; next: NotifyState } => {
  const before = new Set(state.told[profile] ?? [])
  const fresh = currentIds.filter((id) => !before.has(id))
  const keep = new Set([...currentIds.filter((id) => before.has(id)), ...toldNow])
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
export const withNotifyState = async <T>(env: Env, fn: (state: NotifyState) => Promise<{ next: NotifyState | null; result: T }>): Promise<T> => {
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
      throw new TrailbossError(`another notify has held ${file}.lock for over ${NOTIFY_LOCK_WAIT_MS / 1000} s`, 'it may hang on a slow --exec command; nothing was notified this time')
    }
    throw new TrailbossError(`cannot write in ${home} (${describeWriteError(err)}); nothing was notified`, 'notify remembers what it told there; point TRAILBOSS_HOME at a writable folder')
  }
  try {
    // A FIFO or a link in its place reads as no state: at most one repeated notification.
    const text = readRegularIfExists(file, { cap: READ_CAP.state, ownOnly: true })
    const { next, result } = await fn(parseNotifyState(typeof text === 'string' ? text : null))
    if (next) {
      writeHomeFile(env, home, file, `${JSON.stringify(next)}\n`, '.notify', { durable: true })
    }
    return result
  } finally {
    await release().catch(() => {})
  }
}
