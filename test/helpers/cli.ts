// Runs the CLI two ways. runCli: the built CLI as a person or a script would, a child process with
// its own environment (start-up, the bundle, exit codes of the executable, signals). runInProcess:
// the same command line through main(argv, io) in this process, with that environment as the
// command's Io and its output captured: where a separate process proves nothing more, it spares a
// Node start and a bundle load per run.
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { main } from '../../lib/cli/main.js'
import type { ChildEnv } from './emitter.js'

export const CLI = fileURLToPath(new URL('../../dist/bin/trailboss.cjs', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the built CLI once and resolves when it has exited and its output closed; `onStdoutEnd`
 * runs when its stdout ends (with the child, still unreaped if it has exited). Never rejects (a
 * hung run is killed after 60 s).
 */
const spawnCli = (args: readonly string[], env: ChildEnv, stdin: string, onStdoutEnd?: (child: ChildProcess) => void): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 60_000,
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    if (onStdoutEnd) child.stdout.on('end', () => onStdoutEnd(child))
    child.stderr.on('data', (c: Buffer) => err.push(c))
    child.stdin.on('error', () => {})
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }))
    child.stdin.end(stdin)
  })

/** Runs the built CLI once; never rejects (a hung run is killed after 60 s). */
export const runCli = (args: readonly string[], env: ChildEnv, stdin = ''): Promise<CliResult> => spawnCli(args, env, stdin)

export interface CliEndResult extends CliResult {
  /** Date.now() when its stdout ended (every process holding it had let it go). */
  endAt: number
  /** Whether the process was still running then: not exited, and not a zombie waiting to be reaped. */
  runningAtEnd: boolean
}

/** Whether `pid` is a live process (/proc: not gone, not a zombie). */
const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The state is the first field after the command name, which may hold spaces and parentheses.
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return false
  }
}

/** As runCli, noting when its stdout ended and whether the process still ran at that moment (Linux). */
export const runCliSeeingEnd = async (args: readonly string[], env: ChildEnv, stdin = ''): Promise<CliEndResult> => {
  let endAt = 0
  let runningAtEnd = false
  const result = await spawnCli(args, env, stdin, (child) => {
    endAt = Date.now()
    runningAtEnd = child.exitCode === null && child.signalCode === null && child.pid !== undefined && isRunning(child.pid)
  })
  return { ...result, endAt, runningAtEnd }
}

/**
 * Runs one command line in this process, as runCli runs it in a child: `env` is all the
 * environment the command sees, `stdin` its whole input (a pipe: no terminal anywhere), `cwd` its
 * working directory (this process's unless given). A crash is reported as bin/main.ts reports
 * it, exit 1.
 */
export const runInProcess = async (args: readonly string[], env: ChildEnv, stdin = '', cwd = process.cwd()): Promise<CliResult> => {
  let stdout = ''
  let stderr = ''
  const input = new PassThrough()
  input.end(stdin)
  const io = {
    env,
    cwd,
    stdout: { isTTY: false, write: (s: string) => (stdout += s) },
    stderr: { isTTY: false, write: (s: string) => (stderr += s) },
    stdin: input,
    now: Date.now,
  }
  const code = await main([...args], io).catch((err: unknown) => {
    stderr += `trailboss: ${err instanceof Error ? err.message : String(err)} — this is a bug; please report it\n`
    return 1
  })
  return { code, stdout, stderr }
}
