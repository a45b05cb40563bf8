// The exec seam to tmux: runs it with argument arrays, never a shell string.
import { closeSync, constants, fstatSync, openSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { uniqueSuffix } from '../fs/atomic-write.js'
import { readRange } from '../fs/safe-file.js'
import { type HandleExit, spawnOnHandle } from './spawn-handle.js'

const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_NOCTTY } = constants

/** No tmux call of ours may hang a command (a wedged server must not freeze `ls`). */
export const TMUX_TIMEOUT_MS = 2000

export interface TmuxResult {
  stdout: string
  stderr: string
  code: number
}

export interface TmuxCall {
  /** The server's socket path (`-S`); absent: tmux's own default (or $TMUX). */
  socket?: string
  timeoutMs?: number
  env?: NodeJS.ProcessEnv
}

/** The exec seam: tests pass a real tmux on a private socket; nothing mocks this module. */
export type TmuxExec = (args: readonly string[], call?: TmuxCall) => Promise<TmuxResult>

/**
 * execTmux in an Io's environment: its PATH finds tmux and its TMUX_TMPDIR names the default
 * server, as for a command run as its own process; a call's own env still wins. Commands take
 * their tmux this way, so one run in-process (a test's Io) sees the environment it was given.
 */
export const execTmuxIn =
  (env: NodeJS.ProcessEnv): TmuxExec =>
  (args, call = {}) =>
    execTmux(args, { ...call, env: call.env ?? env })

/** tmux is not installed, or not on this PATH (cron's PATH often lacks it). */
export class TmuxUnavailable extends Error {
  constructor(override readonly cause?: unknown) {
    super('tmux is not installed or not on PATH')
    this.name = 'TmuxUnavailable'
  }
}

/** tmux's output is never kept past this (execFile's maxBuffer before). */
const MAX_OUTPUT = 16 * 1024 * 1024

/**
 * A file for a child's output, unlinked as soon as it is made (only our descriptor names it),
 * or null when none can be made here. Created exclusively and never through a link, 0600.
 */
const scratchFile = (): number | null => {
  const path = join(process.env.TMPDIR || '/tmp', `.trailboss-tmux.${process.pid}.${uniqueSuffix()}`)
  let fd: number
  try {
    fd = openSync(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, 0o600)
  } catch {
    return null
  }
  try {
    unlinkSync(path)
    return fd
  } catch {
    closeSync(fd)
    return null
  }
}

/** Everything the child wrote to a scratch file (null past MAX_OUTPUT); closes it. */
const drain = (fd: number): string | null => {
  try {
    const size = fstatSync(fd).size
    return size > MAX_OUTPUT ? null : readRange(fd, 0, size).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** The pipes execFile makes: only when no scratch file can be made. */
const execViaPipes = (argv: string[], call: TmuxCall): Promise<TmuxResult> => {
  const { execFile } = process.getBuiltinModule('node:child_process')
  return new Promise((resolve, reject) => {
    execFile(
      'tmux',
      argv,
      { timeout: call.timeoutMs ?? TMUX_TIMEOUT_MS, env: call.env ?? process.env, maxBuffer: MAX_OUTPUT, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(new TmuxUnavailable(err))
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolve({ stdout, stderr, code })
      },
    )
  })
}

/** Errors child_process reports as an 'error' event rather than a throw: the call fails, `ls` goes on. */
const REPORTED_SPAWN_ERRORS = new Set(['EACCES', 'EAGAIN', 'EMFILE', 'ENFILE', 'ENOENT'])

/** What a failed start means for the caller, as execFile reported it: unavailable, a failure, or a throw. */
const spawnFailure = (e: NodeJS.ErrnoException): TmuxResult => {
  if (e.code === 'ENOENT') throw new TmuxUnavailable(e)
  if (e.code !== undefined && REPORTED_SPAWN_ERRORS.has(e.code)) return { stdout: '', stderr: e.message, code: 1 }
  // Refused before it started (an argument list too long): as execFile, a throw.
  throw e
}

/** Both scratch files read once tmux has exited (killed by the timeout: code 1). */
const collect = (out: number, err: number, exitCode: number | null): TmuxResult => {
  const stdout = drain(out)
  const stderr = drain(err) ?? ''
  // Killed (the timeout) or too much output: a failure, as execFile reported them.
  return stdout === null ? { stdout: '', stderr, code: 1 } : { stdout, stderr, code: exitCode ?? 1 }
}

/** child_process's spawn onto the scratch files: where this Node gives no process handle. */
const execViaSpawn = (argv: string[], call: TmuxCall, out: number, err: number): Promise<TmuxResult> => {
  const { spawn } = process.getBuiltinModule('node:child_process')
  return new Promise((resolve, reject) => {
    let settled = false
    const settle = (then: () => void): void => {
      if (settled) return
      settled = true
      then()
    }
    let child: ReturnType<typeof spawn>
    try {
      child = spawn('tmux', argv, { stdio: ['ignore', out, err], env: call.env ?? process.env, timeout: call.timeoutMs ?? TMUX_TIMEOUT_MS })
    } catch (e) {
      closeSync(out)
      closeSync(err)
      throw e
    }
    child.on('error', (e: NodeJS.ErrnoException) =>
      settle(() => {
        closeSync(out)
        closeSync(err)
        // A timeout's kill that fails reports here too: only a missing tmux is TmuxUnavailable.
        if (e.code === 'ENOENT') reject(new TmuxUnavailable(e))
        else resolve({ stdout: '', stderr: e.message, code: 1 })
      }),
    )
    child.on('close', (exitCode: number | null) => settle(() => resolve(collect(out, err, exitCode))))
  })
}

/**
 * Runs tmux with its stdout and stderr going to two unlinked scratch files, read once it has
 * exited. Pipes would do the same, but making them costs `ls` about a tenth of a Node start
 * (a net.Socket and its stream for each), where a file descriptor costs an open and an unlink;
 * and it starts on libuv's process handle (./spawn-handle.ts), because loading child_process
 * costs about as much again.
 */
export const execTmux: TmuxExec = async (args, call = {}) => {
  const argv = call.socket ? ['-S', call.socket, ...args] : [...args]
  const out = scratchFile()
  const err = out === null ? null : scratchFile()
  if (out === null || err === null) {
    if (out !== null) closeSync(out)
    return execViaPipes(argv, call)
  }
  let started: Promise<HandleExit> | null
  try {
    started = spawnOnHandle('tmux', argv, {
      env: call.env ?? process.env,
      stdout: out,
      stderr: err,
      timeoutMs: call.timeoutMs ?? TMUX_TIMEOUT_MS,
    })
  } catch (e) {
    closeSync(out)
    closeSync(err)
    throw e
  }
  if (started === null) return execViaSpawn(argv, call, out, err)
  let exit: HandleExit
  try {
    exit = await started
  } catch (e) {
    closeSync(out)
    closeSync(err)
    return spawnFailure(e as NodeJS.ErrnoException)
  }
  return collect(out, err, exit.code)
}
