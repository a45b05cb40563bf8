// When the person was last seen, to tell a return after a quiet stretch (docs/design.md §11.8).
// Two small files under the home, one per writer, so that neither overwrites the other's news:
// `activity.json`, the last interactive command (written by that command), and
// `activity-tmux.json`, the latest tmux client activity `status` observed and the return it saw
// (written by `status`, which runs by itself every few seconds). A return is shown once: the
// first to create its mark (O_EXCL, as history/append.ts does) shows it.
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { checkActivity } from '../cache/check.generated.js'
import { type CacheFile, readCache, writeCache } from '../fs/cache-file.js'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../fs/private-dir.js'
import { readDirIfExists } from '../fs/read-optional.js'
import { isRealDir } from '../fs/own-files.js'
import { type Env, trailbossHome } from '../paths.js'

export const ACTIVITY_VERSION = 1
/** No interactive command and no tmux client activity for this long is a quiet stretch. */
export const QUIET_MS = 30 * 60_000
/** A shown return's mark is kept this long: only racing commands of the same return need it. */
export const SHOWN_MARK_KEEP_MS = 86_400_000

/** A stretch without the person: from the last sign of them to their return. */
export interface AwaySpan {
  since: number
  /** When they came back: the first activity seen after the gap, or the command itself. */
  back: number
}

/** What one of the two files holds. */
export interface ActivityFile {
  v: typeof ACTIVITY_VERSION
  /** The last interactive command (activity.json), or the latest client activity seen (activity-tmux.json), ms. */
  at: number
  /** The return `status` saw in the client activity (activity-tmux.json only). */
  away?: AwaySpan
}

export interface Activity {
  commandAt: number | null
  clientAt: number | null
  /** The latest return status saw, shown or not (the command tells by its mark and commandAt). */
  away: AwaySpan | null
}

const cache = (env: Env, name: 'activity' | 'activity-tmux'): CacheFile => ({
  file: join(trailbossHome(env), `${name}.json`),
  dir: trailbossHome(env),
  check: checkActivity,
  tmpPrefix: `.${name}`,
})

export const shownDir = (env: Env): string => join(trailbossHome(env), 'digest-shown')

export const readActivity = (env: Env): Activity => {
  const command = readCache<ActivityFile>(env, cache(env, 'activity')).value
  const tmux = readCache<ActivityFile>(env, cache(env, 'activity-tmux')).value
  return { commandAt: command?.at ?? null, clientAt: tmux?.at ?? null, away: tmux?.away ?? null }
}

/**
 * Pure: the stretch an interactive command at `now` ends, or null. What was seen before this
 * command decides, never tmux now: the keys that typed this command made the client active now.
 * A gap of QUIET_MS since the last command and the last client activity seen is a return now; a
 * return `status` saw after the last command (the person typed elsewhere first) is one too.
 */
export const deriveReturn = (a: Activity, now: number, quietMs = QUIET_MS): AwaySpan | null => {
  const last = Math.max(a.commandAt ?? 0, a.clientAt ?? 0)
  if (last === 0) return null
  if (now - last >= quietMs) return { since: last, back: now }
  if (a.away && a.away.back > (a.commandAt ?? 0) && a.away.back <= now) return a.away
  return null
}

/**
 * Pure: the tmux file after `status` saw client activity `clientAt` (ms), or null when nothing
 * changed. Activity after a gap of QUIET_MS since the last sign of the person is a return; one
 * not yet ended by a command keeps its start when the person goes quiet and comes back again.
 */
export const deriveObserved = (a: Activity, clientAt: number, quietMs = QUIET_MS): ActivityFile | null => {
  if (clientAt <= (a.clientAt ?? 0)) return null
  const last = Math.max(a.commandAt ?? 0, a.clientAt ?? 0)
  const open = a.away && a.away.back > (a.commandAt ?? 0) ? a.away : null
  const away = last > 0 && clientAt - last >= quietMs ? { since: open?.since ?? last, back: clientAt } : a.away
  return { v: ACTIVITY_VERSION, at: clientAt, ...(away ? { away } : {}) }
}

/** `status`: records client activity it saw (tmux's seconds, as ms); false when not written. */
export const noteClientActivity = (env: Env, clientAt: number): boolean => {
  const next = deriveObserved(readActivity(env), clientAt)
  return next === null || writeCache(env, cache(env, 'activity-tmux'), JSON.stringify(next))
}

/** An interactive command ran at `now`. */
export const noteCommand = (env: Env, now: number): boolean =>
  writeCache(env, cache(env, 'activity'), JSON.stringify({ v: ACTIVITY_VERSION, at: now } satisfies ActivityFile))

/**
 * Claims the showing of the return that began at `span.since`: true for the one caller that
 * creates its mark. Marks of older returns are removed on the way.
 */
export const claimReturn = (env: Env, span: AwaySpan, now: number): boolean => {
  const dir = shownDir(env)
  const mine = String(Math.round(span.since))
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  // Never a mark through a link planted in its place.
  if (!isRealDir(dir)) return false
  try {
    closeSync(openSync(join(dir, mine), 'wx', PRIVATE_FILE_MODE))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
  for (const name of readDirIfExists(dir)) {
    if (name !== mine && /^\d+$/.test(name) && now - Number(name) > SHOWN_MARK_KEEP_MS) rmSync(join(dir, name), { force: true })
  }
  return true
}

/**
 * An interactive command at `now`: the return it ends, claimed for it alone, or null. The
 * command is recorded either way.
 */
export const takeReturn = (env: Env, now: number): AwaySpan | null => {
  const span = deriveReturn(readActivity(env), now)
  // Not recorded (a home not ours, a full disk): no digest, rather than one on every command.
  if (!noteCommand(env, now) || span === null) return null
  try {
    return claimReturn(env, span, now) ? span : null
  } catch {
    // A home we cannot write in: no digest rather than one on every command.
    return null
  }
}
