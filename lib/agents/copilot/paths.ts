// Where GitHub Copilot CLI keeps its hook files and session folders. Read from the environment
// when called: `$COPILOT_HOME` when set, else `~/.copilot`.
import { join, resolve, sep } from 'node:path'
import { type Env, homeDir } from '../../paths.js'

export const copilotHome = (env: Env = process.env): string => resolve(env.COPILOT_HOME || join(homeDir(env), '.copilot'))

/** User-level hook files: every `*.json` here is loaded; ours is one file of its own. */
export const copilotHooksDir = (env: Env = process.env): string => join(copilotHome(env), 'hooks')

export const copilotSessionStateDir = (env: Env = process.env): string => join(copilotHome(env), 'session-state')

/**
 * An events file path comes from the hook payload (agentStop's `transcriptPath`), so it is read
 * only when it is `<session-state>/<one folder>/events.jsonl`: a payload must never make us read
 * an arbitrary file.
 */
export const eventsPathCheck = (env: Env = process.env): ((path: unknown) => path is string) => {
  const root = copilotSessionStateDir(env) + sep
  return (path: unknown): path is string =>
    typeof path === 'string' &&
    !path.includes('\0') &&
    path.startsWith(root) &&
    resolve(path) === path &&
    path.slice(root.length).split(sep).length === 2 &&
    path.endsWith(`${sep}events.jsonl`)
}
