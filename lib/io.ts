// The one seam to the process: streams, environment, working directory and clock. Commands
// take an Io so tests run them in-process with their own env and captured output.
import type { Env } from './paths.js'

export interface OutStream {
  write(text: string): unknown
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

export const processIo = (): Io => ({
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  // Opening stdin costs a few ms at start-up, and only watch, go and send read it.
  get stdin() {
    return process.stdin
  },
  now: Date.now,
})

/** Colour only on a TTY, and never with NO_COLOR (https://no-color.org) or TERM=dumb. */
export const useColour = (io: Pick<Io, 'env' | 'stdout'>): boolean =>
  io.stdout.isTTY === true && !io.env.NO_COLOR && io.env.TERM !== 'dumb'
