#!/usr/bin/env node
// trailboss-emit: run by the agent's hooks on every event. Reads one event on stdin, adds the
// tmux pane from the environment and folds it into the session's record. It must never hurt the
// agent: it prints nothing, always exits 0, bounds its own run time, and logs problems to
// $TRAILBOSS_HOME/log. Only node builtins and the zod-free write path are on its import graph.
// The hook command names its agent (`trailboss-emit --agent gemini`); none: Claude Code, whose
// hooks were installed before agents were named. `--fold-spool`: started detached by
// hooks/spool.sh (the hook of agents that wait for every hook), it folds the spooled events
// into their records instead of reading one from stdin.
import { lstatSync, mkdirSync, renameSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import * as registry from '../lib/agents/hook-registry.js'
import * as home from '../lib/fs/home-check.js'
import * as paths from '../lib/paths.js'
import * as ownFiles from '../lib/fs/own-files.js'
import * as privateDir from '../lib/fs/private-dir.js'
import * as safeFile from '../lib/fs/safe-file.js'
import * as history from '../lib/history/append.js'
import * as hookContext from '../lib/record/hook-context.js'
import * as pending from '../lib/record/pending-events.js'
import * as spool from '../lib/record/spool.js'
import * as spoolEvents from '../lib/record/spool-events.js'
import type * as types from '../lib/record/types.js'
import * as write from '../lib/record/write.js'
import * as agentProcess from '../lib/proc/agent-process.js'
import * as lockNow from '../lib/fs/lock-now.js'
import * as stdin from '../lib/fs/read-stdin.js'

/** Payloads above this are drained unread (docs/design.md §6.6); a PostToolUse after a big read is normal. */
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024
/** Once its event is read, the emitter is gone after this long (SessionEnd hooks get 1.5 s). */
const HARD_DEADLINE_MS = 1200
/**
 * Reading stdin has its own, longer bound: on a CPU-starved machine merely getting to the read
 * can take seconds, and an event never read is lost. It only guards against a stdin never closed.
 */
const STDIN_DEADLINE_MS = 10_000
/** The log is cut back to its newer half once it grows past this. */
const LOG_CAP_BYTES = 256 * 1024

// The order of events is the order their emitters started (docs/design.md §2.6). With async hooks Claude
// Code starts PreToolUse and PermissionRequest milliseconds apart, and Node's own start-up
// (30-60 ms, more under load) reorders a stamp taken in this script; the process's time
// origin, taken before that start-up, kept the order (0 swaps in 40 trials, against 7). The
// origin is the clock now less process.uptime(), which counts from the process's start (within
// a millisecond of performance.timeOrigin, whose first use loads perf_hooks: 2-3 ms a start).
const stamp = Date.now() - process.uptime() * 1000
const env = process.env

/**
 * Whether $TRAILBOSS_HOME is ours, checked once before the first write. A home of another user
 * gets nothing from us, not even a log line: it could hold a `log` link into one of our files.
 */
let homeUsable: boolean | null = null
const mayWrite = (): boolean => (homeUsable ??= home.deriveHomeProblem(env) === null)

const log = (line: string): void => {
  try {
    if (!mayWrite()) return
    const file = paths.logFile(env)
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    try {
      // lstat: the size of a link's target is no reason to rename anything.
      const st = lstatSync(file)
      if (st.isFile() && st.size > LOG_CAP_BYTES) renameSync(file, `${file}.1`)
    } catch {
      // No log yet.
    }
    const text = line.replace(/[\r\n]+/g, ' ').slice(0, 1000)
    // Never through a link, never into a FIFO or a file of another user.
    safeFile.appendPrivate(file, `${new Date().toISOString()} emit[${process.pid}] ${text}\n`)
  } catch {
    // Nowhere to say it: staying silent beats disturbing the agent.
  }
}

/** Logs a line unless the log already holds it: a newer agent's event type would repeat it on every event. */
const logOnce = (line: string): void => {
  // Never blocks on a planted FIFO, never reads past the cap: a refusal counts as "not there".
  const text = safeFile.readRegularIfExists(paths.logFile(env), { cap: 2 * LOG_CAP_BYTES, ownOnly: true })
  if (typeof text === 'string' && text.includes(line)) return
  log(line)
}

/** Stdin through Node's stream: for a terminal or a socket, or where /proc is missing. */
const readStdinStream = (): Promise<stdin.StdinText> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = []
    let bytes = 0
    process.stdin.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= MAX_PAYLOAD_BYTES) chunks.push(chunk)
      else chunks.length = 0
    })
    process.stdin.on('end', () => resolve({ text: bytes <= MAX_PAYLOAD_BYTES ? Buffer.concat(chunks).toString('utf8') : null, bytes }))
    process.stdin.on('error', () => resolve({ text: null, bytes }))
  })

const readStdin = async (): Promise<stdin.StdinText> => {
  const read = stdin.readStdinSync(MAX_PAYLOAD_BYTES, stdinUntil)
  // No timer fires during a synchronous read: the deadline the timer keeps, kept by hand.
  if (read === 'deadline') giveUp(STDIN_DEADLINE_MS, false)
  return read === null || read === 'deadline' ? readStdinStream() : read
}

/** `--agent <id>` from the hook command; the default agent when it names none. */
const agentArg = (argv: readonly string[]): string => {
  const at = argv.indexOf('--agent')
  return at >= 0 ? (argv[at + 1] ?? '') : registry.DEFAULT_AGENT
}

/** The event while it is not yet on disk: what the deadline saves as a pending event. */
let unsaved: { dir: string; ev: types.HookEvent; spooled: boolean } | null = null

const giveUp = (ms: number, read: boolean): void => {
  // On a loaded machine the lock wait can outlast the deadline: keep the event, then go.
  const left = unsaved
  // A spooled event stays in the spool, claimed: readers see it, a later fold takes it over.
  if (left?.spooled) log(`fold gave up after ${ms} ms; ${left.ev.name} of ${left.ev.sessionId} stays in the spool`)
  else if (left) {
    try {
      pending.writePendingEvent(left.dir, left.ev)
      log(`gave up waiting after ${ms} ms; saved ${left.ev.name} as a pending event`)
    } catch (err) {
      log(`gave up after ${ms} ms and lost ${left.ev.name}: ${(err as Error).message}`)
    }
  } else log(`gave up after ${ms} ms${read ? '' : ', before its event was read (nothing recorded)'}`)
  process.exit(0)
}

const armDeadline = (ms: number, read: boolean): NodeJS.Timeout => {
  const timer = setTimeout(() => giveUp(ms, read), ms)
  timer.unref()
  return timer
}

let deadline = armDeadline(STDIN_DEADLINE_MS, false)
const stdinUntil = Date.now() + STDIN_DEADLINE_MS

/** Folding the spool takes at most this long; what is left waits for the next fold, and readers see it meanwhile. */
const FOLD_BUDGET_MS = 5000

/** The fold's lock, inside the spool (a name listSpool never takes for an event). */
const FOLD_LOCK = '.fold.lock'

/**
 * `--fold-spool`: every spooled event into its record, oldest first. One fold at a time: folds
 * started together (one per event) would otherwise write one session's events out of order, a
 * PermissionRequest before the PreToolUse it takes its tool from. A fold that finds the lock
 * held leaves its event to the holder, which looks again once it lets go.
 */
const foldSpool = async (): Promise<void> => {
  clearTimeout(deadline)
  deadline = armDeadline(FOLD_BUDGET_MS + HARD_DEADLINE_MS, true)
  // The same rule for the home as every other writer's (lib/fs/home-check.ts).
  if (!mayWrite()) return
  const dir = paths.sessionsDir(env)
  const sdir = spool.spoolDir(dir)
  if (!ownFiles.isRealDir(sdir)) return
  privateDir.ensurePrivateDir(paths.trailbossHome(env), log)
  privateDir.ensurePrivateDir(dir, log)
  const until = Date.now() + FOLD_BUDGET_MS
  for (;;) {
    // Nothing left (an earlier fold took this event too): no lock to make.
    if (spool.listSpool(sdir).length === 0) return
    let release: lockNow.Release
    try {
      release = await lockNow.lockNow(sdir, {
        lockfilePath: join(sdir, FOLD_LOCK),
        realpath: false,
        stale: write.LOCK_STALE_MS,
        update: write.LOCK_STALE_MS / 2,
        retries: 0,
        onCompromised: (err) => log(`spool lock compromised: ${err.message}`),
      })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') log(`spool lock failed: ${(err as Error).message}`)
      return
    }
    let pass: FoldPass
    try {
      pass = await foldAll(dir, sdir, until)
    } finally {
      await release().catch((err: Error) => log(`spool unlock failed: ${err.message}`))
    }
    // Events spooled while the lock was held, whose own folds found it busy and left. A file
    // still being written is its hook's fold's, which starts once it is whole: looked at again
    // only when it is whole by now (that fold may have found the lock busy).
    if (!pass.finished) return
    const whole = (f: spool.SpoolFile): boolean => !pass.writing.has(f.name) || !spool.isIncomplete(spool.readSpoolFile(join(sdir, f.name)))
    if (!spool.listSpool(sdir).some((f) => !f.claimed && whole(f))) return
  }
}

interface FoldPass {
  /** False when the budget ran out first. */
  finished: boolean
  /** Files passed over because they are still being written. */
  writing: Set<string>
}

/** Folds what the spool holds now, oldest first. */
const foldAll = async (dir: string, sdir: string, until: number): Promise<FoldPass> => {
  const host = hostname()
  const writing = new Set<string>()
  for (const f of spool.listSpool(sdir)) {
    if (Date.now() > until) {
      log('fold ran out of time; the rest stays in the spool for the next fold')
      return { finished: false, writing }
    }
    // Read before it is claimed: a file still being written keeps its name.
    const entry = spool.readSpoolFile(join(sdir, f.name))
    if (entry === 'missing') continue
    if (spool.isIncomplete(entry) && !spool.isLostSpoolFile(entry, Date.now())) {
      writing.add(f.name)
      continue
    }
    const claimed = spool.claimSpoolFile(sdir, f, Date.now())
    if (!claimed) continue
    if (spool.isIncomplete(entry)) {
      keepLost(sdir, f, claimed, entry)
      continue
    }
    const ev = typeof entry === 'string' ? entry : spoolEvents.spoolToEvent(entry, env, host, registry.hooksFor)
    if (typeof ev === 'string') {
      log(`dropped spool file ${f.name}: ${ev}`)
      ownFiles.removeOwnFile(claimed)
      continue
    }
    unsaved = { dir, ev, spooled: true }
    await write.recordEvent(dir, ev, {
      agents: registry.hooksFor,
      log,
      onFold: history.foldLogger(env, log),
      onSaved: () => {
        unsaved = null
      },
    })
    ownFiles.removeOwnFile(claimed)
  }
  return { finished: true, writing }
}

/** A file its hook never finished: said in the log and kept aside, out of the spool's names. */
const keepLost = (sdir: string, f: spool.SpoolFile, claimed: string, entry: spool.SpoolIncomplete): void => {
  const aside = join(sdir, spool.lostNameOf(f.base))
  const why = spool.describeLost(entry, Date.now())
  try {
    renameSync(claimed, aside)
    log(`lost event: spool file ${f.base}: ${why}; kept as ${aside}`)
  } catch (err) {
    log(`lost event: spool file ${f.base}: ${why}; not kept aside: ${(err as Error).message}`)
  }
}

const main = async (): Promise<void> => {
  if (env.TRAILBOSS_DISABLE === '1') return
  if (process.argv.includes('--fold-spool')) {
    process.umask(0o077)
    await foldSpool()
    return
  }
  const agentId = agentArg(process.argv.slice(2))
  const agent = registry.hooksFor(agentId)
  if (!agent) {
    log(
      `unknown agent ${JSON.stringify(agentId.slice(0, 40))} (this version knows ${registry.AGENT_HOOKS.map((a) => a.id).join(', ')}); nothing recorded`,
    )
    return
  }
  // The agent's umask may be permissive, and proper-lockfile makes its lock folder with the
  // default mode: nothing this process creates may be readable by others.
  process.umask(0o077)
  const { text, bytes } = await readStdin()
  clearTimeout(deadline)
  deadline = armDeadline(HARD_DEADLINE_MS, true)
  let payload: unknown
  if (text === null) {
    log(`payload of ${bytes} bytes is over ${MAX_PAYLOAD_BYTES}; recording only what the environment gives`)
    payload = agent.oversizedPayload(env)
  } else {
    try {
      payload = JSON.parse(text)
    } catch {
      log(`stdin is not JSON (${bytes} bytes)`)
      return
    }
  }
  const ev = agent.toHookEvent(payload, hookContext.hookContext(env, stamp, hostname()))
  if (typeof ev === 'string') {
    log(`rejected event: ${ev}`)
    return
  }
  const notice = agent.notice?.(ev)
  if (notice) logOnce(notice)
  // Which process ran this hook, so `send` can tell that its pane still runs that agent.
  if (!ev.headless) ev.agentProcess = agentProcess.findAgentProcess(process.ppid)
  // A home of another user is refused before anything is written (lib/fs/home-check.ts).
  if (!mayWrite()) return
  const dir = paths.sessionsDir(env)
  privateDir.ensurePrivateDir(paths.trailbossHome(env), log)
  privateDir.ensurePrivateDir(dir, log)
  unsaved = { dir, ev, spooled: false }
  const outcome = await write.recordEvent(dir, ev, {
    agents: registry.hooksFor,
    log,
    // The changes this event (and the pending ones folded with it) made, to the history.
    onFold: history.foldLogger(env, log),
    onSaved: () => {
      unsaved = null
    },
  })
  if (outcome === 'pending') log(`lock of ${ev.sessionId} busy; saved ${ev.name} as a pending event`)
}

main()
  .catch((err: unknown) => log(`failed: ${err instanceof Error ? err.message : String(err)}`))
  .finally(() => {
    process.exitCode = 0
  })
