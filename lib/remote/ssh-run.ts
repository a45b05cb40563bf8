// STUB (replaced by the real module at merge)
import { execFile } from 'node:child_process'
import type { Env } from '../paths.js'
export type SshResult =
  | { ok: true; stdout: string; stderr: string; ms: number }
  | {
      ok: false
      reason: 'connect' | 'timeout' | 'too-big' | 'exit' | 'no-ssh'
      message: string
      code: number | null
      stderr: string
      ms: number
    }
export const runSsh = (
  env: Env,
  destination: string,
  remote: readonly string[],
  opts: { timeoutMs?: number; maxBytes?: number; input?: string } = {},
): Promise<SshResult> =>
  new Promise((resolve) => {
    const t = Date.now()
    const cfg = env.TRAILBOSS_SSH_CONFIG ? ['-F', env.TRAILBOSS_SSH_CONFIG] : []
    execFile(
      'ssh',
      [...cfg, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=2', '--', destination, ...remote],
      { env: { ...env }, timeout: opts.timeoutMs ?? 3000, maxBuffer: opts.maxBytes ?? 4194304 },
      (err, stdout, stderr) => {
        if (!err) resolve({ ok: true, stdout, stderr, ms: Date.now() - t })
        else
          resolve({
            ok: false,
            reason: 'exit',
            message: String(stderr).split('\n')[0] ?? '',
            code: null,
            stderr: String(stderr),
            ms: Date.now() - t,
          })
      },
    )
  })
export const closeMaster = async (env: Env, destination: string): Promise<boolean> => env === undefined && destination === ""
