// Starts a program on libuv's process handle, the one child_process drives, without loading
// child_process: that module brings net, dgram and the stream classes with it, about 6 ms of a
// 50 ms Node start, which `ls` would pay for one `tmux list-panes`. Only what the tmux seam
// needs: no stdin, output to descriptors of the caller's, a timeout. A Node that gives no such
// handle gets null, and the caller uses child_process.
import { getSystemErrorName } from 'node:util'
import { nodeBinding } from '../node-binding.js'

/** How the program ended: its exit code, or the signal that ended it. */
export interface HandleExit {
  code: number | null
  signal: string | null
}

export interface HandleSpawn {
  env: NodeJS.ProcessEnv
  /** Descriptors the program writes its stdout and stderr to. */
  stdout: number
  stderr: number
  /** Past this, SIGTERM (as child_process's `timeout`). */
  timeoutMs: number
}

/** The options ProcessWrap::Spawn reads: child_process's own after its normalising. */
interface RawOptions {
  file: string
  args: string[]
  envPairs: string[]
  stdio: Array<{ type: 'ignore' } | { type: 'fd'; fd: number }>
  detached: boolean
  windowsHide: boolean
  windowsVerbatimArguments: boolean
}

interface ProcessHandle {
  pid?: number
  onexit: (exitCode: number, signalCode: string | null) => void
  spawn(options: RawOptions): number
  close(): void
}

type ProcessBinding = { Process: new () => ProcessHandle }

/** Pure: the environment as `KEY=value` pairs, as child_process passes it (unset values left out). */
export const deriveEnvPairs = (env: NodeJS.ProcessEnv): string[] => {
  const out: string[] = []
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out.push(`${k}=${v}`)
  return out
}

/**
 * Runs `file` (looked up on the env's PATH) with `args`, never through a shell. Null when this
 * Node has no process handle to give. Rejects with an error whose `code` names the errno
 * (ENOENT: not installed) when it cannot start; resolves when it has exited.
 */
export const spawnOnHandle = (file: string, args: readonly string[], opts: HandleSpawn): Promise<HandleExit> | null => {
  const b = nodeBinding<ProcessBinding>('process_wrap')
  if (typeof b?.Process !== 'function') return null
  let handle: ProcessHandle
  try {
    handle = new b.Process()
  } catch {
    return null
  }
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    handle.onexit = (exitCode, signalCode) => {
      if (timer) clearTimeout(timer)
      handle.close()
      resolve(signalCode ? { code: null, signal: signalCode } : { code: exitCode, signal: null })
    }
    const err = handle.spawn({
      file,
      args: [file, ...args],
      envPairs: deriveEnvPairs(opts.env),
      stdio: [{ type: 'ignore' }, { type: 'fd', fd: opts.stdout }, { type: 'fd', fd: opts.stderr }],
      detached: false,
      windowsHide: false,
      windowsVerbatimArguments: false,
    })
    if (err !== 0) {
      handle.close()
      const code = getSystemErrorName(err)
      reject(Object.assign(new Error(`spawn ${file} ${code}`), { code, errno: err, syscall: `spawn ${file}` }))
      return
    }
    const pid = handle.pid
    timer = setTimeout(() => {
      try {
        if (pid !== undefined) process.kill(pid, 'SIGTERM')
      } catch {
        // Gone between its exit and the exit's report.
      }
    }, opts.timeoutMs)
  })
}
