// Pure: what `trailboss gc` removes from the store, decided from a listing of it (lib/record/gc.ts
// lists and removes): which sessions retire, which leftovers of ours are stale, which lost spool
// events are past the threshold (docs/design.md §2.7).
import { isValidSessionId } from '../paths.js'
import type { LostSpoolFile } from './spool-lost.js'

/** What of the store gc looks at, each found with lstat (a link or a FIFO is never listed as ours). */
export interface StoreListing {
  /** Regular files named `*.tmp` in `sessions/.tmp/`, and their mtimes (null: gone meanwhile). */
  temps: readonly { path: string; mtimeMs: number | null }[]
  /** Folders named `<id>.json.lock` in `sessions/`. */
  locks: readonly { path: string; mtimeMs: number | null }[]
  /** Ended-index marks; whether their record exists (null: the name is no session id, so nothing was looked up). */
  marks: readonly { id: string; path: string; recordExists: boolean | null }[]
  /** The spool's lost events. */
  lost: readonly LostSpoolFile[]
}

/** How old a leftover must be: a temp file past any write, a lock past twice its stale time. */
export interface LeftoverAges {
  tempMs: number
  lockMs: number
}

/** A leftover to remove: a file, or a folder that must be empty. */
export interface Leftover {
  path: string
  kind: 'file' | 'empty-dir'
}

export interface GcPlan {
  leftovers: Leftover[]
  lost: LostSpoolFile[]
}

/** What a session must show to retire (a queue item has it). */
export interface RetireCandidate {
  state: string
  headless: boolean
  record: { lastEventAt: number }
}

/**
 * Which sessions gc retires. Gone needs a tmux answer; unknown panes keep a session. Headless
 * runs are never queued, and `claude -p` exits before its async Stop and SessionEnd hooks run,
 * so they count as finished once quiet for the threshold.
 */
export const selectRetired = <T extends RetireCandidate>(items: readonly T[], olderThanMs: number, now: number): T[] =>
  items.filter((i) => (i.state === 'ended' || i.state === 'gone' || i.headless) && now - i.record.lastEventAt >= olderThanMs)

/** Stale temp files and locks, marks of records that are gone, and lost events past `olderThanMs`. */
export const planGc = (listing: StoreListing, now: number, olderThanMs: number, ages: LeftoverAges): GcPlan => {
  const old = (mtimeMs: number | null, ms: number): boolean => mtimeMs !== null && now - mtimeMs > ms
  return {
    leftovers: [
      ...listing.temps.filter((f) => old(f.mtimeMs, ages.tempMs)).map((f): Leftover => ({ path: f.path, kind: 'file' })),
      ...listing.locks.filter((l) => old(l.mtimeMs, ages.lockMs)).map((l): Leftover => ({ path: l.path, kind: 'empty-dir' })),
      // Marks of records that are gone (removed by hand, or set aside): harmless, but clutter.
      ...listing.marks
        .filter((m) => isValidSessionId(m.id) && m.recordExists === false)
        .map((m): Leftover => ({ path: m.path, kind: 'file' })),
    ],
    // Past the threshold, a person who wanted to look at one has had the time.
    lost: listing.lost.filter((f) => now - f.mtimeMs >= olderThanMs),
  }
}
