// Where Codex keeps its config, hooks and rollouts. Read from the environment when called.
import { join, resolve, sep } from 'node:path'
import { type Env, homeDir } from '../../paths.js'

export const codexHome = (env: Env = process.env): string => resolve(env.CODEX_HOME || join(homeDir(env), '.codex'))

export const codexHooksFile = (env: Env = process.env): string => join(codexHome(env), 'hooks.json')

export const codexConfigFile = (env: Env = process.env): string => join(codexHome(env), 'config.toml')

export const codexSessionsDir = (env: Env = process.env): string => join(codexHome(env), 'sessions')

/**
 * A rollout path comes from the hook payload, so it is read only when it is a `.jsonl` file
 * under Codex's sessions folder: a payload must never make us read an arbitrary file.
 */
export const rolloutPathCheck = (env: Env = process.env): ((path: unknown) => path is string) => {
  const root = codexSessionsDir(env) + sep
  return (path: unknown): path is string =>
    typeof path === 'string' && path.endsWith('.jsonl') && !path.includes('\0') && path.startsWith(root) && resolve(path) === path
}
