// What the emitter, the spool fold and readers of the spool give an agent's toHookEvent besides
// the payload: the environment, the stamp, the host, and two small look-ups on disk. Light on
// purpose (node builtins only): the emitter imports it.
import { existsSync, statSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import type { HookContext } from './agent-rules.js'
import { type Env, homeDir } from '../paths.js'

export const fileSize = (file: string): number | null => {
  try {
    return statSync(file).size
  } catch {
    return null
  }
}

/** Basename of the agent's project folder, else of the nearest folder holding .git, else of cwd; home is `~`. */
export const projectLabelIn =
  (env: Env) =>
  (projectDir: string | undefined, cwd: string | null): string | null => {
    const home = homeDir(env)
    const label = (dir: string): string => (resolve(dir) === resolve(home) ? '~' : basename(dir) || dir)
    if (projectDir) return label(projectDir)
    if (!cwd || !isAbsolute(cwd)) return null
    for (let dir = cwd; ; dir = dirname(dir)) {
      if (existsSync(join(dir, '.git'))) return label(dir)
      if (dirname(dir) === dir) return label(cwd)
    }
  }

export const hookContext = (env: Env, stamp: number, host: string): HookContext => ({
  env,
  stamp,
  host,
  fileSize,
  projectLabel: projectLabelIn(env),
})
