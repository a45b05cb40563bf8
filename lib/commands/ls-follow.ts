// `trailboss ls --json --follow`: the queue as `ls --json` gives it, on one line, then again each
// time it changes, for as long as its reader stays: for a program that shows the queue and would
// otherwise poll. `ls --json --until-change <digest>`: the same watch, but it prints once, the
// first document whose digest differs, and exits: a one-shot run that a caller keeps pending
// (Claude Code's mod: holding a child's output stream open cost its host more than a pending
// run, docs/benchmarks.md). At rest both do nothing: chokidar watches the sessions folder
// (inotify); the only timer is a check every PARENT_CHECK_MS that the process that started it is
// still there. `--until-change <digest> --read-at <ms>`: the caller read that digest at <ms>, so
// nothing is read (nor chokidar loaded) until the sessions folder is written after it; a wait in
// which nothing was written ends printing nothing. A renewal at rest then costs a Node start and
// one folder watch, not a queue read and a watcher (docs/benchmarks.md, the mod).
import { existsSync, readdirSync, statSync, watch as watchFolder, type FSWatcher } from 'node:fs'
import { join } from 'node:path'
import type { LsArgs } from '../options/tables.js'
import { parseDuration } from '../duration.js'
import { formatError } from '../errors.js'
import { ensurePrivateDir } from '../fs/private-dir.js'
import type { Io } from '../io.js'
import { isSessionsNoise, sessionsDir } from '../paths.js'
import { filterAgents } from '../queue/filter.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { seenDir } from '../queue/seen.js'
import { deriveListing, type Listing } from '../navigate/listing.js'
import { type RescanWhen, startRescan } from '../queue/rescan.js'
import { formatJson } from '../render/json-text.js'

/** A burst of events (a record, its temp file, a lock) makes one read. */
export const FOLLOW_DEBOUNCE_MS = 25
/**
 * Reads are this far apart at least: with ten sessions each following a busy fleet, every
 * record write would otherwise cost each of them a read.
 */
export const FOLLOW_GAP_MS = 1000
/**
 * A parent killed outright leaves no end of input to notice (a reader's standard input may be
 * closed from the start), and a folder that does not change leaves nothing to write: so the
 * parent's pid is looked at this often.
 */
export const PARENT_CHECK_MS = 10_000
/**
 * `--until-change` prints the document unchanged after this long: a caller that bounds a run
 * (Claude Code's `$.process.run`, ten minutes at most) gets an answer, not a kill.
 */
export const UNTIL_CHANGE_MAX_MS = 9 * 60_000

/**
 * A write's mtime comes from the kernel's coarse clock, which may lag the caller's clock by a
 * tick: a write this close before `--read-at` counts as after it (at worst one read too many).
 */
export const READ_AT_SLACK_MS = 100
/** After a late write, the wait that follows lasts at least this long. */
const READ_AT_LEAST_MS = 10_000

/**
 * Whether the sessions folder, or a session's folder of pending events (the depth the watcher
 * below sees), was written at or after `since`. A folder that cannot be read counts as written:
 * reading the queue then says what is wrong.
 */
export const writtenSince = (dir: string, since: number): boolean => {
  try {
    if (statSync(dir).mtimeMs >= since) return true
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !isSessionsNoise(entry.name) && statSync(join(dir, entry.name)).mtimeMs >= since) return true
    }
    return false
  } catch {
    return true
  }
}

/**
 * Resolves true on the first write in the sessions folder (or a session's folder in it), or in
 * the seen marks' folder, at or after `since`, false when `maxMs` passes or the parent is gone
 * first. One node:fs watch per folder and nothing else: chokidar, with its load and its set-up,
 * is for the watch that follows.
 */
const firstWriteSince = (
  dir: string,
  seen: { dir: string; madeNow: boolean },
  since: number,
  maxMs: number,
  parentGone: () => boolean,
): Promise<boolean> =>
  new Promise((resolve) => {
    const watchers: FSWatcher[] = []
    let settled = false
    const end = (written: boolean): void => {
      if (settled) return
      settled = true
      clearTimeout(giveUp)
      clearInterval(parentCheck)
      for (const w of watchers) w.close()
      resolve(written)
    }
    const giveUp = setTimeout(() => end(false), maxMs)
    const parentCheck = setInterval(() => {
      if (parentGone()) end(false)
    }, PARENT_CHECK_MS)
    const watchOne = (path: string): void => {
      try {
        const w = watchFolder(path, { persistent: true }, (_event, name) => {
          if (name === null || !isSessionsNoise(String(name))) end(true)
        })
        w.on('error', () => end(true))
        watchers.push(w)
      } catch {
        end(true)
      }
    }
    watchOne(dir)
    watchOne(seen.dir)
    try {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory() && !isSessionsNoise(entry.name)) watchOne(join(dir, entry.name))
      }
    } catch {
      end(true)
    }
    // Watching from here on; a write between the caller's read and now shows in the mtimes.
    // A seen folder made by this run holds no mark yet: its new mtime is no write.
    if (writtenSince(dir, since) || (!seen.madeNow && writtenSince(seen.dir, since))) end(true)
  })

export interface FollowDeps {
  /** The parent's pid now (process.ppid); it changes when the parent is gone. */
  parentPid?: () => number
  /** How long `--until-change` waits at most (UNTIL_CHANGE_MAX_MS). */
  maxWaitMs?: number
}

/** Reads are at least FOLLOW_GAP_MS apart, and a burst of events makes one. */
const FOLLOW_SOON: RescanWhen = { debounceMs: FOLLOW_DEBOUNCE_MS, gapMs: FOLLOW_GAP_MS }

/** Where the follower watches, how long and for whom, and the filter's age. */
interface FollowPlan {
  olderThanMs: number | undefined
  dir: string
  seen: string
  maxWaitMs: number
  parentGone: () => boolean
}

export const runLsFollow = async (args: LsArgs, io: Io, deps: FollowDeps = {}): Promise<number> => {
  const olderThanMs = args.olderThan === undefined ? undefined : parseDuration(args.olderThan)
  const dir = sessionsDir(io.env)
  ensurePrivateDir(dir)
  // A seen mark changes the queue too (an item's `seen`, a finished turn leaving it): `go`, `next`
  // or `ack` from another shell must reach a follower at once, not at the next session write.
  const seen = seenDir(io.env)
  const seenMadeNow = !existsSync(seen)
  ensurePrivateDir(seen)
  const parentPid = deps.parentPid ?? (() => process.ppid)
  const parent = parentPid()
  // Orphans go to pid 1 (or to a subreaper, which the pid's change tells).
  const parentGone = (): boolean => {
    const now = parentPid()
    return now !== parent || now === 1
  }
  let maxWaitMs = deps.maxWaitMs ?? UNTIL_CHANGE_MAX_MS
  if (args.untilChange !== undefined && args.readAt !== undefined) {
    const startedAt = io.now()
    if (!(await firstWriteSince(dir, { dir: seen, madeNow: seenMadeNow }, Number(args.readAt) - READ_AT_SLACK_MS, maxWaitMs, parentGone)))
      return 0
    // Written since: from here on, the wait as without --read-at, within what is left of it, but
    // long enough for its first read to end before it gives up (a caller allows 10 minutes).
    maxWaitMs = Math.max(Math.min(READ_AT_LEAST_MS, maxWaitMs), maxWaitMs - (io.now() - startedAt))
  }
  return followListing(args, io, { olderThanMs, dir, seen, maxWaitMs, parentGone })
}

/** What each fresh listing prints: `--until-change`, the first that differs, then the end; `--follow`, each that changed. */
const listingPrinter = (io: Io, until: string | undefined, stop: () => void) => {
  let last = ''
  return (listing: Listing): void => {
    if (until !== undefined) {
      if (listing.digest !== until) printOnce(io, listing, stop)
      return
    }
    const line = formatJson(listing)
    // Only a changed queue is news: a reader is woken for nothing else.
    if (line === last) return
    last = line
    io.stdout.write(`${line}\n`)
    if ((io.stdout as { readerGone?: boolean }).readerGone) stop()
  }
}

/** `--until-change`: the document as `ls --json` prints it, then the end. */
const printOnce = (io: Io, listing: Listing, stop: () => void): void => {
  io.stdout.write(`${formatJson(listing, 2)}\n`)
  stop()
}

/** The watch itself: chokidar on the folders, a read on each burst of changes, until stopped. */
const followListing = async (args: LsArgs, io: Io, w: FollowPlan): Promise<number> => {
  const { watch } = await import('chokidar')
  const watcher = watch([w.dir, w.seen], { ignoreInitial: true, depth: 1, atomic: false, ignored: isSessionsNoise })
  let lastListing: Listing | null = null
  let closed = false
  let done: (code: number) => void = () => {}
  const finished = new Promise<number>((resolve) => {
    done = resolve
  })
  const stop = (): void => {
    if (closed) return
    closed = true
    rescan.close()
    clearTimeout(giveUp)
    clearInterval(parentCheck)
    void watcher.close().finally(() => done(0))
  }
  const print = listingPrinter(io, args.untilChange, stop)
  const rescan = startRescan(
    async () => {
      try {
        // Other hosts from their caches, as `status` reads them: the digest then covers the same
        // queue as `ls --json`'s, which the mod compares it with. The hosts due are read first:
        // this process prints the queue it read, not the one before the refresh.
        const fleet = await loadFleetView(io, { ...args, cached: 'refresh-first' }, { skipEnded: !args.all })
        lastListing = deriveListing(filterAgents(fleet.view, args.agent), { ...args, olderThanMs: w.olderThanMs }, fleet.hosts)
        if (!closed) print(lastListing)
      } catch (err) {
        io.stderr.write(`${formatError(err)}\n`)
      }
    },
    FOLLOW_SOON,
    { clock: io.now },
  )
  const parentCheck = setInterval(() => {
    if (w.parentGone()) stop()
  }, PARENT_CHECK_MS)
  // `--until-change` past its time: the document unchanged.
  const giveUp =
    args.untilChange === undefined
      ? undefined
      : setTimeout(() => {
          if (lastListing !== null && !closed) printOnce(io, lastListing, stop)
        }, w.maxWaitMs)
  watcher.on('all', () => rescan.soon(FOLLOW_SOON))
  watcher.on('error', (err) => io.stderr.write(`${formatError(err)}\n`))
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  await rescan.run()
  return finished
}
