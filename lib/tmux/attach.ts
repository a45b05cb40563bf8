// Running a go plan: plain tmux calls, or `tmux attach` with this process's terminal.
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { execTmux, type TmuxExec, TmuxUnavailable } from './exec.js'
import type { Step } from './go-plan.js'

export type AttachFn = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>

/**
 * Runs the steps in order, stopping at the first failure (its stderr becomes the error).
 * Returns the exit code: 0, or the code of an `attach` step (the tmux client's own).
 */
export const runPlan = async (
  steps: readonly Step[],
  deps: { exec?: TmuxExec; attach?: AttachFn; env?: NodeJS.ProcessEnv } = {},
): Promise<number> => {
  const exec = deps.exec ?? execTmux
  for (const step of steps) {
    if (step.mode === 'attach') {
      // A TMUX left in the environment would make tmux refuse to nest; we are outside by now.
      const { TMUX: _tmux, TMUX_PANE: _pane, ...env } = deps.env ?? process.env
      return (deps.attach ?? attachTmux)(['-S', step.socket, ...step.args], env)
    }
    const r = await exec(step.args, { socket: step.socket })
    if (r.code !== 0) throw new Error(`tmux ${step.args[0]} failed: ${r.stderr.trim() || `exit ${r.code}`}`)
  }
  return 0
}

/** Signals a terminal or a supervisor sends us that belong to the tmux client we stand in for. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']

/**
 * A program with this process's terminal (`tmux attach`, an interactive `ssh`). Node 20 has no
 * execve, so it is a child with inherited stdio; signals sent to us are passed on, and its exit
 * code becomes ours (128 + signal number when a signal ended it, as shells report it).
 */
export const runInTerminal = (file: string, argv: string[], env: NodeJS.ProcessEnv): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: 'inherit', env })
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal)
    }
    for (const s of FORWARDED_SIGNALS) process.on(s, forward)
    const done = (): void => {
      for (const s of FORWARDED_SIGNALS) process.off(s, forward)
    }
    child.on('error', (err) => {
      done()
      reject(err)
    })
    child.on('exit', (code, signal) => {
      done()
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0))
    })
  })

/** `tmux attach` with this process's terminal. */
export const attachTmux: AttachFn = (argv, env) =>
  runInTerminal('tmux', argv, env).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ENOENT' ? new TmuxUnavailable(err) : err
  })
