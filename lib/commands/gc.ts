// trailboss gc: retire ended and gone sessions whose last event is older than a threshold, remove
// the spool's lost events past that threshold too, and clear our own leftovers (stale temp files,
// folded pending files, stale locks). It says what it removes, on stdout and in the log; nothing
// else is ever deleted (docs/design.md §2.7).
import { removeSeenMark } from '../queue/seen.js'
import * as fs from 'node:fs'
import { join } from 'node:path'
import type { GcArgs } from '../options/tables.js'
import { formatAge, parseDuration } from '../duration.js'
import { lockNow } from '../fs/lock-now.js'
import { EXIT_OK, TrailbossError } from '../errors.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { listRealDir, ownMtimeMs, removeOwnEmptyDir, removeOwnFile, removeOwnFolder } from '../fs/own-files.js'
import { appendPrivate } from '../fs/safe-file.js'
import type { Io } from '../io.js'
import { endedIndexDir, isValidSessionId, logFile, pendingDir, recordFile, sessionsDir, tempDir } from '../paths.js'
import type { QueueItem } from '../queue/derive.js'
import { type LoadOptions, loadQueue } from '../queue/load.js'
import { reportSkipped } from '../render/skipped.js'
import { readEndedMarks, unmarkEnded } from '../record/ended-index.js'
import { LOCK_STALE_MS, TEMP_LEFTOVER_MS } from '../record/write.js'
import { readRecordFile } from '../record/read.js'
import { spoolDir } from '../record/spool.js'
import { listLostSpool } from '../record/spool-lost.js'
import { formatVisible } from '../text/visible-text.js'

/**
 * Pure: which sessions gc retires. Gone needs a tmux answer; unknown panes keep a session.
 * Headless runs are never queued, and `claude -p` exits before its async Stop and SessionEnd
 * hooks run, so they count as finished once quiet for the threshold.
 */
export const selectRetired = (items: readonly QueueItem[], olderThanMs: number, now: number): QueueItem[] =>
  items.filter((i) => (i.state === 'ended' || i.state === 'gone' || i.headless) && now - i.record.lastEventAt >= olderThanMs)

const appendLog = (io: Io, line: string): void => {
  try {
    // Never through a link, never into a FIFO or a file of another user.
    appendPrivate(logFile(io.env), `${new Date(io.now()).toISOString()} gc[${process.pid}] ${line}\n`)
  } catch {
    // The log is a courtesy; the same line went to stdout.
  }
}

const retire = async (dir: string, item: QueueItem): Promise<boolean> => {
  const file = recordFile(dir, item.sessionId)
  let release: (() => Promise<void>) | undefined
  try {
    release = await lockNow(file, { realpath: false, stale: LOCK_STALE_MS, retries: { retries: 5, minTimeout: 20, maxTimeout: 200 } })
  } catch {
    return false // busy: an event is arriving, so the session is not done after all
  }
  try {
    // An event may have landed since the queue was read: then leave the session alone.
    const now = fs.existsSync(file) ? await readRecordFile(file, item.sessionId) : null
    if (now !== null && (typeof now === 'string' || now.lastEventAt !== item.record.lastEventAt)) return false
    // Regular files named as ours only, never through a link (lib/fs/own-files.ts).
    removeOwnFile(file)
    removeOwnFolder(pendingDir(dir, item.sessionId), (name) => name.endsWith('.json'))
    unmarkEnded(dir, item.sessionId)
    return true
  } finally {
    await release()
  }
}

interface Leftover {
  path: string
  remove: (path: string) => boolean
}

/**
 * Our own leftovers in the sessions folder, found with lstat: temp files and locks older than
 * their stale time, and marks of records that are gone. A `.tmp` or `.ended` that is a link, a
 * FIFO named like a temp file, a lock folder with something in it: none of them is ours.
 */
const listLeftovers = (dir: string, now: number): Leftover[] => {
  const out: Leftover[] = []
  const old = (path: string, ms: number): boolean => {
    const mtime = ownMtimeMs(path)
    return mtime !== null && now - mtime > ms
  }
  const tdir = tempDir(dir)
  for (const e of listRealDir(tdir)) if (e.isFile() && e.name.endsWith('.tmp') && old(join(tdir, e.name), TEMP_LEFTOVER_MS)) out.push({ path: join(tdir, e.name), remove: removeOwnFile })
  for (const e of listRealDir(dir)) if (e.isDirectory() && e.name.endsWith('.json.lock') && old(join(dir, e.name), LOCK_STALE_MS * 2)) out.push({ path: join(dir, e.name), remove: removeOwnEmptyDir })
  // Marks of records that are gone (removed by hand, or set aside): harmless, but clutter.
  for (const id of readEndedMarks(dir)) if (isValidSessionId(id) && !fs.existsSync(recordFile(dir, id))) out.push({ path: join(endedIndexDir(dir), id), remove: removeOwnFile })
  return out
}

export const runGc = async (args: GcArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const olderThanMs = parseDuration(args.olderThan)
  // proper-lockfile makes its lock folders with the default mode (see hooks/emit.ts).
  process.umask(0o077)
  // A home of another user: nothing of it is ours to remove (loadQueue reads none of it).
  const foreign = deriveHomeProblem(io.env)
  if (foreign) throw new TrailbossError(`${foreign.folder} ${foreign.why}; removed nothing`, FOREIGN_HOME_HINT)
  const view = await loadQueue(io, { ...opts, screens: false, discover: false })
  reportSkipped(view, io)
  const dir = sessionsDir(io.env)
  const verb = args.dryRun ? 'would remove' : 'removed'
  let count = 0
  for (const item of selectRetired(view.items, olderThanMs, view.now)) {
    const what = `${item.key} (${item.state}, ${item.project ?? '?'}, last event ${formatAge(view.now - item.record.lastEventAt)} ago)`
    if (args.dryRun || (await retire(dir, item))) {
      io.stdout.write(`${formatVisible(`${verb} ${what}`)}\n`)
      if (!args.dryRun) {
        appendLog(io, `removed session ${item.sessionId} (${item.state})`)
        // Its seen mark goes with it (a link there is removed, never followed).
        try {
          removeSeenMark(io.env, item.sessionId)
        } catch {
          // A mark left behind is harmless: it names a session that no longer waits.
        }
      }
      count++
    }
  }
  for (const { path, remove } of listLeftovers(dir, view.now)) {
    // A leftover's name is whatever was put in the folder: shown visibly.
    if (args.dryRun) io.stdout.write(`${formatVisible(`${verb} leftover ${path}`)}\n`)
    else if (remove(path)) {
      appendLog(io, `removed leftover ${path}`)
      io.stdout.write(`${formatVisible(`${verb} leftover ${path}`)}\n`)
    }
  }
  // Lost events (the fold logged each when it kept it aside): past the threshold, a person who
  // wanted to look at one has had the time.
  let lost = 0
  for (const f of listLostSpool(spoolDir(dir))) {
    if (view.now - f.mtimeMs < olderThanMs) continue
    const what = `lost event ${f.path} (${f.agent ?? 'no agent named'}, ${formatAge(view.now - f.mtimeMs)} old)`
    if (args.dryRun || removeOwnFile(f.path)) {
      io.stdout.write(`${formatVisible(`${verb} ${what}`)}\n`)
      if (!args.dryRun) appendLog(io, `removed ${f.path} (kept aside from the spool, ${f.agent ?? 'no agent named'}, ${formatAge(view.now - f.mtimeMs)} old)`)
      lost++
    }
  }
  if (lost > 0) io.stdout.write(`${verb} ${lost} lost spool event${lost === 1 ? '' : 's'} older than ${formatVisible(args.olderThan)}\n`)
  if (count === 0 && io.stdout.isTTY) io.stdout.write(`nothing to retire (ended or gone for ${args.olderThan})\n`)
  return EXIT_OK
}
