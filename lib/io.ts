// The one seam to the process: streams, environment, working directory and clock. Commands
// take an Io so tests run them in-process with their own env and captured output.
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs'
import { monotonicMs, sleepSync } from './clock.js'
import { readStdinSync, type StdinRead } from './fs/read-stdin.js'
import type { Env } from './paths.js'

export interface OutStream {
  write(text: string): unknown
  /** True once the reader went away (`| head`): a command that would write on stops. */
  readonly readerGone?: boolean
  isTTY?: boolean
  columns?: number
  rows?: number
}

export interface Io {
  env: Env
  cwd: string
  stdout: OutStream
  stderr: OutStream
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  /**
   * All of stdin without its stream (lib/fs/read-stdin.ts): null when it is a kind only the
   * stream reads (a terminal). Absent where there is no process's stdin behind the Io.
   */
  readStdinNow?: (maxBytes: number, until: number) => StdinRead
  now: () => number
  /**
   * Lets go of the process's stdout and stderr once all written has gone out, for a command with
   * work left that prints nothing more (releaseStandardOutput). Absent where no process's
   * streams are behind the Io.
   */
  releaseOutput?: () => Promise<void>
}

/** A pipe, a file or a socket: never a terminal (a character device may be one). */
const isPlainOutput = (fd: number): boolean => {
  try {
    const s = fstatSync(fd)
    return s.isFIFO() || s.isFile() || s.isSocket()
  } catch {
    return false
  }
}

// Read at load, before any write can stall: a parent that has gone since then leaves the
// process orphaned (Node reads process.ppid afresh from the kernel on each access).
const parentAtStart = process.ppid

export interface StallLimits {
  /** How long a full non-blocking output may take no byte before its reader counts as gone. */
  stallMs: number
  /** The parent at start: once another process is the parent, nobody waits for this output. */
  parentPid: number
}

// A minute: far longer than any reader that still reads needs to drain a socket's buffer.
const defaultLimits: StallLimits = { stallMs: 60_000, parentPid: parentAtStart }
const firstBackoffMs = 1
const longestBackoffMs = 50

/**
 * Output to a pipe or a file, written straight to its descriptor: Node's stream for it costs a
 * few ms of a 30 ms start-up, and reports a reader that went away (`trailboss ls | head -1`)
 * as an unhandled error. Here that reader ends the output quietly, as with any Unix filter.
 * A non-blocking output that stays full is waited on with a growing pause, and given up as
 * gone once the process is orphaned or no byte went through for `stallMs`: a socket whose
 * reader stopped reading while another process holds its end open never reports EPIPE.
 */
export const descriptorOut = (fd: number, limits: StallLimits = defaultLimits): OutStream => {
  let readerGone = false
  return {
    isTTY: false,
    get readerGone() {
      return readerGone
    },
    write(text: string): boolean {
      if (readerGone) return false
      const bytes = Buffer.from(text)
      let backoffMs = firstBackoffMs
      let lastProgress = monotonicMs()
      for (let done = 0; done < bytes.length;) {
        try {
          done += writeSync(fd, bytes, done)
          backoffMs = firstBackoffMs
          lastProgress = monotonicMs()
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code
          const stalled = code === 'EAGAIN' && (process.ppid !== limits.parentPid || monotonicMs() - lastProgress >= limits.stallMs)
          if (code === 'EPIPE' || stalled) {
            readerGone = true
            return false
          }
          if (code !== 'EAGAIN') throw err
          // A non-blocking output is full: give its reader time, waking less the longer it takes.
          sleepSync(backoffMs)
          backoffMs = Math.min(backoffMs * 2, longestBackoffMs)
        }
      }
      return true
    },
  }
}

/** A pipe or a socket: its reader sees the output end only once every process holding it has let go. */
const isSharedEnd = (fd: number): boolean => {
  try {
    const s = fstatSync(fd)
    return s.isFIFO() || s.isSocket()
  } catch {
    return false
  }
}

/**
 * Puts /dev/null in place of stdout and stderr where they are a pipe or a socket: whoever reads
 * them (tmux's `#()`, a status-line runner, a script reading to the end) gets the end of the
 * output now, while this process goes on with work that prints nothing (`status` refreshing a
 * host's cache, bounded by the read's 3 s). A later write goes to /dev/null rather than failing.
 * Called once every write has gone out (descriptorOut writes synchronously; Node's own stream
 * on a pipe may not, see processIo) and while nothing else opens a file, so /dev/null takes the
 * lowest free descriptor, the one just closed (or first 0, when stdin was closed).
 */
export const releaseStandardOutput = (): void => {
  for (const fd of [1, 2]) {
    if (!isSharedEnd(fd)) continue
    closeSync(fd)
    let got = openSync('/dev/null', 'r+')
    while (got < fd) got = openSync('/dev/null', 'r+')
    // Another descriptor took its place meanwhile: that one is left alone, and ours is not needed.
    if (got > fd) closeSync(got)
  }
}

/**
 * Ends a child's stdin with `input`. A program that does not read its stdin may close the pipe
 * before the write (it exits at once, it refuses): that is its right, and the write's EPIPE must
 * not end this process; what the child did is told by its exit and its output.
 */
export const endChildInput = (stdin: NodeJS.WritableStream | null, input: string | undefined): void => {
  if (!stdin) return
  stdin.on('error', () => {})
  stdin.end(input ?? '')
}

/** Resolves once a Node stream has passed on all it was given: on POSIX a write to a pipe may wait for it. */
const flushed = (stream: NodeJS.WriteStream | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (!stream || stream.writableLength === 0 || stream.destroyed) return resolve()
    stream.once('error', () => resolve())
    // Writes go out in order: this one's callback comes after every write before it.
    stream.write('', () => resolve())
  })

export const processIo = (): Io => {
  let stdout: OutStream | undefined
  let stderr: NodeJS.WriteStream | undefined
  return {
    env: process.env,
    cwd: process.cwd(),
    // Each of Node's standard streams costs a few ms to open, and most runs need one at most.
    get stdout() {
      stdout ??= isPlainOutput(1) ? descriptorOut(1) : process.stdout
      return stdout
    },
    get stderr() {
      stderr ??= process.stderr
      return stderr
    },
    get stdin() {
      return process.stdin
    },
    readStdinNow: readStdinSync,
    now: Date.now,
    // stdout, where it is let go (a pipe or a socket), is written by descriptorOut, synchronously.
    releaseOutput: async () => {
      await flushed(stderr)
      releaseStandardOutput()
    },
  }
}

/** Colour only on a TTY, and never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export const useColour = (io: Pick<Io, 'env' | 'stdout'>): boolean => io.stdout.isTTY === true && !io.env.NO_COLOR && io.env.TERM !== 'dumb'
