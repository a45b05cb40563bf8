// Where Claude Code keeps its settings and transcripts. Read from the environment when called.
import { join, resolve, sep } from 'node:path'
import { type Env, homeDir } from '../../paths.js'

export const claudeConfigDir = (env: Env = process.env): string => resolve(env.CLAUDE_CONFIG_DIR || join(homeDir(env), '.claude'))

export const claudeProjectsDir = (env: Env = process.env): string => join(claudeConfigDir(env), 'projects')

/**
 * A transcript path comes from the hook payload, so it is read only when it is a `.jsonl`
 * file under Claude Code's projects folder (docs/design.md §2.8): a payload must never make us read
 * an arbitrary file.
 */
export const isReadableTranscriptPath = (path: unknown, env: Env = process.env): path is string => transcriptPathCheck(env)(path)

/**
 * An empty, `.` or `..` segment: what path.resolve would change in a path under the (resolved)
 * projects folder. A pattern instead of resolve() itself, which walks every character in
 * script for each of a hundred records on every `ls`.
 */
const UNRESOLVED_SEGMENT = /\/\.{0,2}(?:\/|$)/

/** isReadableTranscriptPath for many paths: the projects folder is resolved once. */
export const transcriptPathCheck = (env: Env = process.env): ((path: unknown) => path is string) => {
  const root = claudeProjectsDir(env) + sep
  return (path: unknown): path is string =>
    typeof path === 'string' && path.endsWith('.jsonl') && !path.includes('\0') && path.startsWith(root) && !UNRESOLVED_SEGMENT.test(path)
}
