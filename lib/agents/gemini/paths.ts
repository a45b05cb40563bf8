// Where Gemini CLI keeps its settings and chat files. Read from the environment when called.
// Gemini CLI 0.61.0 puts `.gemini` under `$GEMINI_CLI_HOME` when set, else the home folder.
import { readdirSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import { READ_CAP, readRegularFile } from '../../fs/safe-file.js'
import { type Env, homeDir } from '../../paths.js'

export const geminiDir = (env: Env = process.env): string => resolve(env.GEMINI_CLI_HOME || homeDir(env), '.gemini')

export const geminiSettingsFile = (env: Env = process.env): string => join(geminiDir(env), 'settings.json')

/** Project path → short name; the short name names the project's folder under tmp/. */
export const projectsFile = (env: Env = process.env): string => join(geminiDir(env), 'projects.json')

export const geminiTmpDir = (env: Env = process.env): string => join(geminiDir(env), 'tmp')

/**
 * A chat path comes from the hook payload, so it is read only when it is a `.jsonl` file in a
 * `chats` folder under Gemini CLI's tmp folder (docs/design.md §2.8): a payload must never make us read an
 * arbitrary file.
 */
export const chatPathCheck = (env: Env = process.env): ((path: unknown) => path is string) => {
  const root = geminiTmpDir(env) + sep
  return (path: unknown): path is string =>
    typeof path === 'string' &&
    path.endsWith('.jsonl') &&
    !path.includes('\0') &&
    path.startsWith(root) &&
    resolve(path) === path &&
    path.split(sep).at(-2) === 'chats'
}

export const isReadableChatPath = (path: unknown, env: Env = process.env): path is string => chatPathCheck(env)(path)

/** Pure: the short name projects.json gives a project folder, or null. */
export const parseProjectShortName = (json: string, cwd: string): string | null => {
  try {
    const projects = (JSON.parse(json) as { projects?: unknown }).projects
    if (typeof projects !== 'object' || projects === null) return null
    const name = (projects as Record<string, unknown>)[cwd]
    // It names a folder: one plain path segment only.
    return typeof name === 'string' && /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..' ? name : null
  } catch {
    return null
  }
}

/**
 * The short name projects.json gives `cwd`, or null. Read like every file we did not write: a
 * FIFO or a device in its place is refused at once, a huge file unread (lib/fs/safe-file.ts).
 */
export const readProjectShortName = (env: Env, cwd: string): string | null => {
  // follow: a dotfiles repository often links ~/.gemini's files.
  const got = readRegularFile(projectsFile(env), { cap: READ_CAP.settings, follow: true })
  return got.ok ? parseProjectShortName(got.text, cwd) : null
}

/** Pure: among chat file names, the newest of this session (`session-<start>-<first 8 of id>.jsonl`). */
export const pickChatFile = (names: readonly string[], sessionId: string): string | null => {
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`
  const mine = names.filter((n) => n.startsWith('session-') && n.endsWith(suffix)).sort()
  return mine.at(-1) ?? null
}

/**
 * The chat file of a session without a usable transcript_path: the project's short name from
 * projects.json, then the session's file in its chats folder. Null when any step fails.
 */
export const findChatFile = (env: Env, cwd: string | null, sessionId: string): string | null => {
  if (!cwd) return null
  const short = readProjectShortName(env, cwd)
  if (!short) return null
  const dir = join(geminiTmpDir(env), short, 'chats')
  try {
    const name = pickChatFile(readdirSync(dir), sessionId)
    return name ? join(dir, name) : null
  } catch {
    return null
  }
}
