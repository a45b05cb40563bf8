// The exec seam to tmux: runs it with argument arrays, never a shell string.

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

/** tmux is not installed, or not on this PATH (cron's PATH often lacks it). */
export class TmuxUnavailable extends Error {
  constructor(override readonly cause?: unknown) {
    super('tmux is not installed or not on PATH')
    this.name = 'TmuxUnavailable'
  }
}

export const execTmux: TmuxExec = async (args, call = {}) => {
  // Loaded on first use: `ls` over sessions without tmux, and `status` with nothing waiting,
  // never pay for compiling child_process. getBuiltinModule, not import(): a dynamic import
  // starts the ESM loader, a few ms of a CommonJS entry's start-up.
  const { execFile } = process.getBuiltinModule('node:child_process')
  return new Promise((resolve, reject) => {
    const argv = call.socket ? ['-S', call.socket, ...args] : [...args]
    execFile(
      'tmux',
      argv,
      { timeout: call.timeoutMs ?? TMUX_TIMEOUT_MS, env: call.env ?? process.env, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(new TmuxUnavailable(err))
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolve({ stdout, stderr, code })
      },
    )
  })
}
