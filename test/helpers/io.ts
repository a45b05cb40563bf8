// An in-process Io for running a command core in a test: this env and cwd, captured output,
// no terminal.
import { PassThrough } from 'node:stream'
import type { Env } from '../../lib/paths.js'
import type { Io } from '../../lib/io.js'

export type CapturedIo = Io & { out: () => string; err: () => string }

export const captureIo = (env: Env, cwd: string = process.cwd()): CapturedIo => {
  let out = ''
  let err = ''
  return {
    env,
    cwd,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: new PassThrough(),
    now: Date.now,
    out: () => out,
    err: () => err,
  }
}
