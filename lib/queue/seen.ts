// Seen marks ($TRAILBOSS_HOME/seen/<session id>.json): which wait of a session the person has
// seen, so it leaves the default queue until the session waits again (docs/queue.md). One
// small file per session, replaced atomically: writers of different sessions never touch the
// same file, and two writers of one session write the same fact, so no lock is needed.
// A mark also carries when a reader first found the wait's pane in front of the person
// (the active pane of an attached session's active window): with no daemon, the readers that run
// often (status, watch) note it, and a later reader marks the wait seen once it has been so
// for SEEN_AFTER_ACTIVE_MS.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { checkSeen } from '../cache/check.generated.js'
import { type CacheFile, deriveCacheProblem, readCache, writeCache } from '../fs/cache-file.js'
import { readDirIfExists } from '../fs/read-optional.js'
import { type Env, isValidSessionId, trailbossHome } from '../paths.js'

/** Bumped when what a mark holds changes: a mark of another version is none (lib/schemas/caches.ts). */
export const SEEN_VERSION = 1

/** How long a wait's pane must be in front of the person before the wait counts as seen. */
export const SEEN_AFTER_ACTIVE_MS = 4000

export interface SeenMark {
  /** The `since` of the wait this mark is about. */
  since: number
  /** When the person saw it (went there, acknowledged it, or looked long enough); null: not yet. */
  seenAt: number | null
  /** When a reader first found its pane in front of the person; null: it was not, last time. */
  activeAt: number | null
}

export const seenDir = (env: Env): string => join(trailbossHome(env), 'seen')

const markFile = (env: Env, sessionId: string): string => {
  // Session ids name files: never anything else (docs/design.md §2.8).
  if (!isValidSessionId(sessionId)) throw new Error(`not a session id: ${JSON.stringify(sessionId)}`)
  return join(seenDir(env), `${sessionId}.json`)
}

const toMark = (file: (SeenMark & { v: number }) | null): SeenMark | null =>
  file && { since: file.since, seenAt: file.seenAt, activeAt: file.activeAt }

/** Pure: a mark's text, or null when it is not one of ours of this version. */
export const parseSeenMark = (text: string): SeenMark | null => {
  const got = deriveCacheProblem(text, checkSeen)
  return typeof got === 'object' ? toMark(got.data as SeenMark & { v: number }) : null
}

const markCache = (env: Env, sessionId: string): CacheFile => ({
  file: markFile(env, sessionId),
  dir: seenDir(env),
  check: checkSeen,
  tmpPrefix: '.seen',
})

/** The marks of these sessions (those that have one): one readdir, then only their files. */
export const readSeenMarks = (env: Env, sessionIds: Iterable<string>): Map<string, SeenMark> => {
  const out = new Map<string, SeenMark>()
  let names: Set<string>
  try {
    names = new Set(readDirIfExists(seenDir(env)))
  } catch {
    return out
  }
  if (names.size === 0) return out
  for (const id of sessionIds) {
    if (!names.has(`${id}.json`) || !isValidSessionId(id)) continue
    // A bad mark is removed (said once in the log): the wait counts as not seen.
    const mark = toMark(readCache<SeenMark & { v: number }>(env, markCache(env, id)).value)
    if (mark) out.set(id, mark)
  }
  return out
}

/** Writes a mark; false when it could not be (a foreign or read-only home): nothing else breaks. */
export const writeSeenMark = (env: Env, sessionId: string, mark: SeenMark): boolean =>
  isValidSessionId(sessionId) && writeCache(env, markCache(env, sessionId), JSON.stringify({ v: SEEN_VERSION, ...mark }))

/** Forgets a session's mark (gc, when the session is retired). */
export const removeSeenMark = (env: Env, sessionId: string): void => {
  if (!isValidSessionId(sessionId)) return
  rmSync(markFile(env, sessionId), { force: true })
}

/** What the person sees of a wait right now, for deriveSeenUpdate. */
export interface SeenCandidate {
  sessionId: string
  since: number
  /** Its pane is the active pane of an attached session's active window. */
  inFront: boolean
}

/**
 * Pure: the marks to write after one look at the waits. A wait in front of the person gets a
 * note of when that was first seen; once it has been in front SEEN_AFTER_ACTIVE_MS, it is seen.
 * A wait no longer in front loses its note (the time must be one stretch).
 */
export const deriveSeenUpdate = (
  waits: readonly SeenCandidate[],
  marks: ReadonlyMap<string, SeenMark>,
  now: number,
  afterMs = SEEN_AFTER_ACTIVE_MS,
): Map<string, SeenMark> => {
  const out = new Map<string, SeenMark>()
  for (const w of waits) {
    const mark = marks.get(w.sessionId)
    const current = mark && mark.since >= w.since ? mark : null
    if (current?.seenAt !== null && current?.seenAt !== undefined) continue
    if (!w.inFront) {
      if (current?.activeAt !== null && current?.activeAt !== undefined)
        out.set(w.sessionId, { since: w.since, seenAt: null, activeAt: null })
      continue
    }
    // A note from before the clock stepped back starts the stretch again (else it never ends in time).
    if (current?.activeAt === null || current?.activeAt === undefined || current.activeAt > now)
      out.set(w.sessionId, { since: w.since, seenAt: null, activeAt: now })
    else if (now - current.activeAt >= afterMs) out.set(w.sessionId, { since: w.since, seenAt: now, activeAt: current.activeAt })
  }
  return out
}
