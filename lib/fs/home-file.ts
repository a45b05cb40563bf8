// One small file of ours in a folder under $TRAILBOSS_HOME (a seen mark, `back`'s origin,
// notify's memory), written the one way: never into a home that is not ours (lib/fs/home-check.ts),
// in a private folder, replaced atomically so a reader sees the old file or the new one.
import { mkdirSync } from 'node:fs'
import type { Env } from '../paths.js'
import { type AtomicWriteOptions, writeFileAtomic } from './atomic-write.js'
import { deriveHomeProblem, formatHomeProblem } from './home-check.js'
import { PRIVATE_DIR_MODE } from './private-dir.js'

/**
 * Writes `data` to `file`, which lies in `dir` (created 0700 if missing; the temp file goes there
 * too). Throws when it is not written: the home is not ours, or the write failed.
 */
export const writeHomeFile = (
  env: Env,
  dir: string,
  file: string,
  data: string,
  tmpPrefix: string,
  opts: AtomicWriteOptions = {},
): void => {
  const problem = deriveHomeProblem(env)
  if (problem) throw new Error(formatHomeProblem(problem))
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  writeFileAtomic(file, data, dir, tmpPrefix, opts)
}

/** writeHomeFile for a file whose loss costs little: false when it was not written, and nothing else breaks. */
export const tryWriteHomeFile = (env: Env, dir: string, file: string, data: string, tmpPrefix: string): boolean => {
  try {
    writeHomeFile(env, dir, file, data, tmpPrefix)
    return true
  } catch {
    return false
  }
}
