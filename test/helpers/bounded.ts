// Runs the built CLI or emitter with a bound: a run that hangs (a FIFO read, a lock retried for
// ever) is killed with SIGKILL (a blocked read can outlive SIGTERM) and reported as hung, so
// the test fails instead of stalling the suite.
import { spawn } from 'node:child_process'
import { CLI } from './cli.js'
import { EMITTER, type ChildEnv } from './emitter.js'

export interface BoundedResult {
  code: number | null
  stdout: string
  stderr: string
  hung: boolean
  ms: number
}

/** Generous for a loaded two-core machine, far below tap's own 120 s per file. */
export const HANG_BOUND_MS = Number(process.env.TRAILBOSS_TEST_HANG_MS) || 20_000

/** Runs `command` with `args`; a run still going after `boundMs` is killed and marked hung. */
export const runBounded = (
  command: string,
  args: readonly string[],
  env: ChildEnv,
  stdin = '',
  boundMs = HANG_BOUND_MS,
): Promise<BoundedResult> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let hung = false
    const timer = setTimeout(() => {
      hung = true
      child.kill('SIGKILL')
    }, boundMs)
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => err.push(c))
    child.stdin.on('error', () => {})
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        hung,
        ms: performance.now() - started,
      })
    })
    child.stdin.end(stdin)
  })

export const cliBounded = (args: readonly string[], env: ChildEnv, stdin = '', boundMs = HANG_BOUND_MS): Promise<BoundedResult> =>
  runBounded(process.execPath, [CLI, ...args], env, stdin, boundMs)

export const emitBounded = (payload: string, env: ChildEnv, boundMs = HANG_BOUND_MS): Promise<BoundedResult> =>
  runBounded(process.execPath, [EMITTER], env, payload, boundMs)
