// The one seam to the process: streams, environment, working directory and clock. Commands
// take an Io so tests run them in-process with their own env and captured output.
import { fstatSync, writeSync } from 'node:fs'
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
  now: () => number
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

const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * Output to a pipe or a file, written straight to its descriptor: Node's stream for it costs a
 * few ms of a 30 ms start-up, and reports a reader that went away (`trailboss ls | head -1`)
 * as an unhandled error. Here that reader ends the output quietly, as with any Unix filter.
 */
export const descriptorOut = (fd: number): OutStream => {
  let readerGone = false
  return {
    isTTY: false,
    get readerGone() {
      return readerGone
    },
    write(text: string): boolean {
      if (readerGone) return false
      const bytes = Buffer.from(text)
      for (let done = 0; done < bytes.length; ) {
        try {
          done += writeSync(fd, bytes, done)
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code
          // A pipe another process set non-blocking is full: wait for its reader.
          if (code === 'EAGAIN') pause(1)
          else if (code === 'EPIPE') {
            readerGone = true
            return false
          } else throw err
        }
      }
      return true
    },
  }
}

export const processIo = (): Io => {
  let stdout: OutStream | undefined
  return {
    env: process.env,
    cwd: process.cwd(),
    // Each of Node's standard streams costs a few ms to open, and most runs need one at most.
    get stdout() {
      stdout ??= isPlainOutput(1) ? descriptorOut(1) : process.stdout
      return stdout
    },
    get stderr() {
      return process.stderr
    },
    get stdin() {
      return process.stdin
    },
    now: Date.now,
  }
}

/** Colour only on a TTY, and never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export const useColour = (io: Pick<Io, 'env' | 'stdout'>): boolean =>
  io.stdout.isTTY === true && !io.env.NO_COLOR && io.env.TERM !== 'dumb'
