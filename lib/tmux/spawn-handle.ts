// Starts a program on libuv's process handle, the one child_process drives, without loading
// child_process: that module brings net, dgram and the stream classes with it, about 6 ms of a
// 50 ms Node start, which `ls` would pay for one `tmux list-panes`. Only what the tmux seam
// needs: no stdin, output to descriptors of the caller's, a timeout. The handle's spawn is
// internal and has changed shape (one options object up to Node 22, positional arguments from
// Node 24), and a call of the wrong shape aborts the process: it is used only on the majors it
// was tried on, in the shape the binding shows; any other Node gets null, and the caller uses
// child_process.
import { getSystemErrorName } from 'node:util'
import { nodeBinding } from '../node-binding.js'

/** How the program ended: its exit code, or null when a signal ended it (the timeout's). */
export interface HandleExit {
  code: number | null
}

export interface HandleSpawn {
  env: NodeJS.ProcessEnv
  /** Descriptors the program writes its stdout and stderr to. */
  stdout: number
  stderr: number
  /** Past this, SIGTERM (as child_process's `timeout`). */
  timeoutMs: number
}

type Stdio = Array<{ type: 'ignore' } | { type: 'fd'; fd: number }>

/** What a spawn needs, whatever the shape the handle takes it in. */
interface RawSpawn {
  file: string
  /** With the program's own name first (argv[0]). */
  args: string[]
  envPairs: string[]
  stdio: Stdio
}

interface ProcessHandle {
  pid?: number
  onexit: (exitCode: number, signalCode: string | null) => void
  spawn(...args: unknown[]): number
  close(): void
}

/** Node 24 added `constants` (the spawn flags) with the positional spawn. */
type ProcessBinding = { Process: new () => ProcessHandle; constants?: { kProcessFlagDetached?: unknown } }

/** The Node majors whose process handle this was run against (test/node-majors.test.ts). */
export const HANDLE_TRIED_MAJORS: ReadonlySet<number> = new Set([20, 22, 24])

/**
 * Pure: how to call this Node's handle, by its major and the binding's shape; null for a Node
 * it was not tried on or a shape not known here.
 */
export const deriveSpawnShape = (major: number, binding: Pick<ProcessBinding, 'constants'>): 'options' | 'positional' | null => {
  if (!HANDLE_TRIED_MAJORS.has(major)) return null
  if (binding.constants === undefined) return major <= 22 ? 'options' : null
  return typeof binding.constants.kProcessFlagDetached === 'number' ? 'positional' : null
}

/** One call of the handle's spawn in the shape this Node takes: the options object child_process builds, or its positional arguments. */
const spawnIn = (shape: 'options' | 'positional', handle: ProcessHandle, s: RawSpawn): number =>
  shape === 'options'
    ? handle.spawn({
        file: s.file,
        args: s.args,
        envPairs: s.envPairs,
        stdio: s.stdio,
        detached: false,
        windowsHide: false,
        windowsVerbatimArguments: false,
      })
    : handle.spawn(s.file, s.args, undefined, s.envPairs, s.stdio, 0, undefined, undefined)

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
  const shape = deriveSpawnShape(Number(process.versions.node.split('.')[0]), b)
  if (shape === null) return null
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
      resolve({ code: signalCode ? null : exitCode })
    }
    const err = spawnIn(shape, handle, {
      file,
      args: [file, ...args],
      envPairs: deriveEnvPairs(opts.env),
      stdio: [{ type: 'ignore' }, { type: 'fd', fd: opts.stdout }, { type: 'fd', fd: opts.stderr }],
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
