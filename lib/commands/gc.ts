// trailboss gc: retire ended and gone sessions whose last event is older than a threshold, and
// clear our own leftovers (stale temp files, folded pending files, stale locks). It says what
// it removes, on stdout and in the log; nothing else is ever deleted (docs/design.md §2.7).
import * as fs from 'node:fs'
import { join } from 'node:path'
import type { GcArgs } from '../cli/options.js'
import { formatAge, parseDuration } from '../duration.js'
import { lockNow } from '../fs/lock-now.js'
import { EXIT_OK } from '../errors.js'
import type { Io } from '../io.js'
import { endedIndexDir, logFile, pendingDir, recordFile, sessionsDir, tempDir } from '../paths.js'
import type { QueueItem } from '../queue/derive.js'
import { type LoadOptions, loadQueue } from '../queue/load.js'
import { reportSkipped } from '../render/skipped.js'
import { readEndedMarks, unmarkEnded } from '../record/ended-index.js'
import { LOCK_STALE_MS, TEMP_LEFTOVER_MS } from '../record/write.js'
import { readRecordFile } from '../record/read.js'
import { formatVisible } from '../render/visible-text.js'

/**
 * Pure: which sessions gc retires. Gone needs a tmux answer; unknown panes keep a session.
 * Headless runs are never queued, and `claude -p` exits before its async Stop and SessionEnd
 * hooks run, so they count as finished once quiet for the threshold.
 */
export const selectRetired = (items: readonly QueueItem[], olderThanMs: number, now: number): QueueItem[] =>
  items.filter((i) => (i.state === 'ended' || i.state === 'gone' || i.headless) && now - i.record.lastEventAt >= olderThanMs)

const appendLog = (io: Io, line: string): void => {
  try {
    fs.appendFileSync(logFile(io.env), `${new Date(io.now()).toISOString()} gc[${process.pid}] ${line}\n`, { mode: 0o600 })
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
    fs.rmSync(file, { force: true })
    fs.rmSync(pendingDir(dir, item.sessionId), { recursive: true, force: true })
    unmarkEnded(dir, item.sessionId)
    return true
  } finally {
    await release()
  }
}

/** Our own leftovers in the sessions folder: temp files and locks older than their stale time. */
const listLeftovers = (dir: string, now: number): string[] => {
  const out: string[] = []
  const old = (path: string, ms: number): boolean => {
    try {
      return now - fs.statSync(path).mtimeMs > ms
    } catch {
      return false
    }
  }
  const tdir = tempDir(dir)
  for (const name of fs.existsSync(tdir) ? fs.readdirSync(tdir) : []) if (name.endsWith('.tmp') && old(join(tdir, name), TEMP_LEFTOVER_MS)) out.push(join(tdir, name))
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) if (name.endsWith('.json.lock') && old(join(dir, name), LOCK_STALE_MS * 2)) out.push(join(dir, name))
  // Marks of records that are gone (removed by hand, or set aside): harmless, but clutter.
  for (const id of readEndedMarks(dir)) if (!fs.existsSync(recordFile(dir, id))) out.push(join(endedIndexDir(dir), id))
  return out
}

export const runGc = async (args: GcArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const olderThanMs = parseDuration(args.olderThan)
  // proper-lockfile makes its lock folders with the default mode (see hooks/emit.cts).
  process.umask(0o077)
  const view = await loadQueue(io, { ...opts, screens: false })
  reportSkipped(view, io)
  const dir = sessionsDir(io.env)
  const verb = args.dryRun ? 'would remove' : 'removed'
  let count = 0
  for (const item of selectRetired(view.items, olderThanMs, view.now)) {
    const what = `${item.key} (${item.state}, ${item.project ?? '?'}, last event ${formatAge(view.now - item.record.lastEventAt)} ago)`
    if (args.dryRun || (await retire(dir, item))) {
      io.stdout.write(`${formatVisible(`${verb} ${what}`)}\n`)
      if (!args.dryRun) appendLog(io, `removed session ${item.sessionId} (${item.state})`)
      count++
    }
  }
  for (const path of listLeftovers(dir, view.now)) {
    if (!args.dryRun) fs.rmSync(path, { recursive: true, force: true })
    if (!args.dryRun) appendLog(io, `removed leftover ${path}`)
    // A leftover's name is whatever was put in the folder: shown visibly.
    io.stdout.write(`${formatVisible(`${verb} leftover ${path}`)}\n`)
  }
  if (count === 0 && io.stdout.isTTY) io.stdout.write(`nothing to retire (ended or gone for ${args.olderThan})\n`)
  return EXIT_OK
}
