// trailboss gc: retire ended and gone sessions whose last event is older than a threshold, remove
// the spool's lost events past that threshold too, and clear our own leftovers (stale temp files,
// folded pending files, stale locks), the kept answers of remote hosts no longer listed, and the
// history's daily files older than --history. It says what it removes, on stdout and in the log;
// nothing else is ever deleted (docs/design.md §2.7, §10.6, §11.6). It also ends the hosts'
// shared ssh connections. What the store holds and what may go is lib/record/gc.ts's and
// gc-plan.ts's (lib/remote/answer-gc-plan.ts's for the answers, lib/history/gc.ts's for the
// history); this parses, asks and says.
import { join } from 'node:path'
import type { GcArgs } from '../options/tables.js'
import { formatAge, parseDuration } from '../duration.js'
import { EXIT_OK, TrailbossError } from '../errors.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { appendPrivate } from '../fs/safe-file.js'
import type { Io } from '../io.js'
import { logFile, sessionsDir } from '../paths.js'
import { type LoadOptions, loadQueue } from '../queue/load.js'
import { removeSeenMark } from '../queue/seen.js'
import { selectRetired } from '../record/gc-plan.js'
import { readGcPlan, removeLeftover, retireSession } from '../record/gc.js'
import { reportSkipped } from '../render/skipped.js'
import { formatVisible } from '../text/visible-text.js'
import { readHistoryGcPlan, removeHistoryDay, removeHistoryMarks } from '../history/gc.js'
import { planAnswerGc } from '../remote/answer-gc-plan.js'
import { closeHostMasters } from '../remote/close-masters.js'
import { readHosts } from '../remote/hosts-file.js'
import { listLastAnswerNames, remoteDir, removeLastAnswer } from '../remote/last-answer.js'

const appendLog = (io: Io, line: string): void => {
  try {
    // Never through a link, never into a FIFO or a file of another user.
    appendPrivate(logFile(io.env), `${new Date(io.now()).toISOString()} gc[${process.pid}] ${line}\n`)
  } catch {
    // The log is a courtesy; the same line went to stdout.
  }
}

/** The history's daily files of days older than `--history`, and their marks (lib/history/gc.ts). */
const gcHistory = (args: GcArgs, io: Io, now: number, say: (what: string) => void): void => {
  const plan = readHistoryGcPlan(io.env, now, parseDuration(args.history))
  for (const day of plan.days) {
    if (!args.dryRun && !removeHistoryDay(io.env, day)) continue
    say(`history of ${day} (older than ${args.history})`)
    if (!args.dryRun) appendLog(io, `removed the history of ${day}`)
  }
  if (!args.dryRun) for (const day of plan.marks) removeHistoryMarks(io.env, day)
}

export const runGc = async (args: GcArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const olderThanMs = parseDuration(args.olderThan)
  // Both durations are checked before anything is removed.
  parseDuration(args.history)
  // proper-lockfile makes its lock folders with the default mode (see hooks/emit.ts).
  process.umask(0o077)
  // A home of another user: nothing of it is ours to remove (loadQueue reads none of it).
  const foreign = deriveHomeProblem(io.env)
  if (foreign) throw new TrailbossError(`${foreign.folder} ${foreign.why}; removed nothing`, FOREIGN_HOME_HINT)
  const view = await loadQueue(io, { ...opts, screens: false, discover: false })
  reportSkipped(view, io)
  const dir = sessionsDir(io.env)
  const verb = args.dryRun ? 'would remove' : 'removed'
  const say = (what: string): void => void io.stdout.write(`${formatVisible(`${verb} ${what}`)}\n`)
  let count = 0
  for (const item of selectRetired(view.items, olderThanMs, view.now)) {
    if (!args.dryRun && !(await retireSession(dir, item.sessionId, item.record.lastEventAt))) continue
    say(`${item.key} (${item.state}, ${item.project ?? '?'}, last event ${formatAge(view.now - item.record.lastEventAt)} ago)`)
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
  // Listed after the retirements: a retired session's mark went with it.
  const plan = readGcPlan(dir, view.now, olderThanMs)
  for (const leftover of plan.leftovers) {
    // A leftover's name is whatever was put in the folder: shown visibly.
    if (args.dryRun) say(`leftover ${leftover.path}`)
    else if (removeLeftover(leftover)) {
      appendLog(io, `removed leftover ${leftover.path}`)
      say(`leftover ${leftover.path}`)
    }
  }
  // Lost events (the fold logged each when it kept it aside).
  let lost = 0
  for (const f of plan.lost) {
    if (!args.dryRun && !removeLeftover({ path: f.path, kind: 'file' })) continue
    const agent = f.agent ?? 'no agent named'
    say(`lost event ${f.path} (${agent}, ${formatAge(view.now - f.mtimeMs)} old)`)
    if (!args.dryRun) appendLog(io, `removed ${f.path} (kept aside from the spool, ${agent}, ${formatAge(view.now - f.mtimeMs)} old)`)
    lost++
  }
  if (lost > 0) io.stdout.write(`${verb} ${lost} lost spool event${lost === 1 ? '' : 's'} older than ${formatVisible(args.olderThan)}\n`)
  // Kept answers of hosts taken off the list; none while the list cannot be read (it would name no host).
  const { hosts, problem } = readHosts(io.env)
  if (problem) io.stderr.write(`${formatVisible(`trailboss: ${problem}; the hosts' kept answers are left as they are`)}\n`)
  else
    for (const name of planAnswerGc(listLastAnswerNames(io.env), hosts)) {
      const path = join(remoteDir(io.env), name)
      if (!args.dryRun && !removeLastAnswer(io.env, name)) continue
      say(`${path} (the last answer of a host no longer listed)`)
      if (!args.dryRun) appendLog(io, `removed ${path} (the last answer of a host no longer listed)`)
    }
  gcHistory(args, io, view.now, say)
  if (!args.dryRun)
    for (const d of await closeHostMasters(io.env)) io.stdout.write(`${formatVisible(`closed the ssh connection to ${d}`)}\n`)
  if (count === 0 && io.stdout.isTTY) io.stdout.write(`nothing to retire (ended or gone for ${args.olderThan})\n`)
  return EXIT_OK
}
