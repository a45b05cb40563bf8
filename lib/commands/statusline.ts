// `trailboss statusline`: the command for Claude Code's `statusLine` setting. Claude Code runs it
// with its status-line JSON on stdin (whose `session_id` names this session, left out of the
// count) whenever the session's state changes; it prints how many *other* sessions wait, e.g.
// `2 others wait · oldest 4m`, after the output of the person's own status-line command when it
// wraps one (`--wrap`). On the fast path like `status`: nothing heavy is imported, and other
// hosts' waits come from their caches as for `status`, refreshed after the line is out.
import type { StatuslineArgs } from '../options/tables.js'
import { EXIT_OK } from '../errors.js'
import { endChildInput, type Io } from '../io.js'
import { readBlockedToday } from '../history/today.js'
import type { LoadOptions } from '../queue/load.js'
import { loadFleetView, refreshAfterOutput } from '../navigate/fleet-view.js'
import { deriveSummary, formatOthers, formatSegment } from '../render/status-segment.js'

/** Claude Code's status-line JSON is a few KB; more is not its input. */
const MAX_INPUT_BYTES = 1024 * 1024
/** Claude Code closes stdin at once; a terminal never does, so a person's test run does not hang. */
const STDIN_WAIT_MS = 1000
/** The person's own status-line command gets as long as Claude Code would wait for ours. */
export const WRAPPED_TIMEOUT_MS = 5000
/** A command that ignores SIGTERM gets SIGKILL this much later (ours is printed meanwhile). */
const WRAPPED_KILL_AFTER_MS = 100
/** Once `sh` has exited, how long its output may still take to drain before a held pipe is let go. */
const WRAPPED_EXIT_GRACE_MS = 100

/**
 * The input, read at once where the process's stdin allows (a pipe or a socket read through its
 * stream loads `net` and the stream classes: a tenth of a Node start); else through the stream.
 */
const readInput = async (io: Io): Promise<string> => {
  const read = io.readStdinNow?.(MAX_INPUT_BYTES, Date.now() + STDIN_WAIT_MS)
  if (read === 'deadline') return ''
  if (read) return read.text ?? ''
  return readInputStream(io)
}

const readInputStream = (io: Io): Promise<string> =>
  new Promise((resolve) => {
    if (io.stdin.isTTY) return resolve('')
    let text = ''
    const done = (): void => {
      clearTimeout(timer)
      io.stdin.removeAllListeners('data')
      io.stdin.removeAllListeners('end')
      if ('destroy' in io.stdin && typeof io.stdin.destroy === 'function') io.stdin.destroy()
      resolve(text)
    }
    const timer = setTimeout(done, STDIN_WAIT_MS)
    io.stdin.on('data', (d: Buffer | string) => {
      text += d.toString()
      if (text.length > MAX_INPUT_BYTES) done()
    })
    io.stdin.on('end', done)
    io.stdin.on('error', done)
  })

/** This session's id: the input's `session_id`, else the environment Claude Code gives the command. */
export const parseSessionId = (input: string, env: Io['env']): string | undefined => {
  try {
    const doc = JSON.parse(input) as unknown
    if (typeof doc === 'object' && doc !== null && typeof (doc as { session_id?: unknown }).session_id === 'string')
      return (doc as { session_id: string }).session_id
  } catch {
    // Not JSON (run by hand): fall back on the environment.
  }
  return env.CLAUDE_CODE_SESSION_ID || undefined
}

/**
 * The person's own status-line command, through sh as Claude Code runs it, with the same input.
 * It runs in a process group of its own, so that it can be ended whole: `sh` alone is not what
 * hangs (a child of it does, or a background child keeps the pipe open after `sh` exits).
 */
const runWrapped = (command: string, input: string, io: Io): Promise<string> => {
  // getBuiltinModule, not import(): the build allows no other dynamic import in the fast path's bundle.
  const { spawn } = process.getBuiltinModule('node:child_process')
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      env: io.env as NodeJS.ProcessEnv,
      cwd: io.cwd,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    })
    let out = ''
    let done = false
    const timers: NodeJS.Timeout[] = []
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal)
      } catch {
        // The group is gone already.
      }
    }
    /** Takes what it printed so far; a group still running is ended (SIGKILL soon after SIGTERM, which it may ignore). */
    const finish = (end: boolean): void => {
      if (done) return
      done = true
      for (const timer of timers) clearTimeout(timer)
      if (end) {
        signalGroup('SIGTERM')
        setTimeout(() => signalGroup('SIGKILL'), WRAPPED_KILL_AFTER_MS)
      }
      // Nothing of theirs may keep this process alive: the pipes are let go.
      child.stdout.destroy()
      child.stdin.destroy()
      child.unref()
      resolve(out)
    }
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.on('error', () => {
      out = ''
      finish(false)
    })
    child.on('close', () => finish(false))
    // `sh` is gone but a background child of it holds the pipe: what was printed has been read
    // by now, and the child is the command's, ended with it.
    child.on('exit', () => done || timers.push(setTimeout(() => finish(true), WRAPPED_EXIT_GRACE_MS)))
    timers.push(setTimeout(() => finish(true), WRAPPED_TIMEOUT_MS))
    endChildInput(child.stdin, input)
  })
}

/** Their output, then ours on its last line. */
export const joinStatus = (theirs: string, ours: string): string => {
  const text = theirs.replace(/\n+$/, '')
  if (!ours) return text
  return text ? `${text} · ${ours}` : ours
}

export const runStatusline = async (args: StatuslineArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const input = await readInput(io)
  const sessionId = parseSessionId(input, io.env)
  const [theirs, fleet] = await Promise.all([
    args.wrap ? runWrapped(args.wrap, input, io) : Promise.resolve(''),
    loadFleetView(io, { cached: 'refresh-after' }, { skipEnded: true, ...opts }),
  ])
  const view = fleet.view
  const summary = deriveSummary(view.items, view.now, {
    all: args.all,
    hosts: fleet.hosts,
    ...(sessionId === undefined ? {} : { excludeSessionId: sessionId }),
  })
  const blockedMs = args.format?.includes('{blocked}') ? readBlockedToday(io.env, view.now) : undefined
  const ours =
    args.format === undefined ? formatOthers(summary) : formatSegment(summary, args.format, blockedMs === undefined ? {} : { blockedMs })
  const text = joinStatus(theirs, ours)
  if (text) io.stdout.write(`${text}\n`)
  await refreshAfterOutput(io, fleet.refreshDue)
  return EXIT_OK
}
