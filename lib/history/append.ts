// Appending to the history, each change exactly once (docs/design.md §11.3). Several writers
// can establish the same change at the same moment (readers running side by side, an emitter
// retried after a crash): the first to create the change's mark, an empty file named by the
// session, the change's time and its state, created with O_EXCL, writes the line; the others
// find the mark and write nothing. The line goes in one write(2) on an O_APPEND descriptor,
// so concurrent writers never interleave within a line. On the emitter's path: builtins only.
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDir } from '../fs/private-dir.js'
import { appendPrivate } from '../fs/safe-file.js'
import type { Logger } from '../logger.js'
import { type Env, isValidSessionId } from '../paths.js'
import { dayFile, dayOf, historyDir, marksDir } from './files.js'
import type { SessionRecord } from '../record/types.js'
import { deriveFoldChanges } from './changes.js'
import type { HistoryEntry } from './types.js'

export type AppendOutcome = 'logged' | 'logged-already' | 'refused'

/** The mark's name: the session, when (ms), and the state it went to. */
export const markName = (e: Pick<HistoryEntry, 'sessionId' | 'at' | 'to'>): string => `${e.sessionId}.${Math.round(e.at)}.${e.to}`

/** Creates the mark; false when it exists (the change is logged already). */
const claimMark = (dir: string, e: HistoryEntry): boolean => {
  const path = join(marksDir(dir, dayOf(e.at)), markName(e))
  const create = (): boolean => {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE))
    return true
  }
  try {
    return create()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code !== 'ENOENT') throw err
  }
  // The day's first mark: its folder first (0700, as every folder of the home).
  mkdirSync(marksDir(dir, dayOf(e.at)), { recursive: true, mode: PRIVATE_DIR_MODE })
  try {
    return create()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
}

/**
 * Appends a change unless it was logged already. A session id that could not name a file is
 * refused. The mark comes first: a writer that dies between the two loses the line (a change
 * nobody saw, which the report counts as unaccounted) rather than write it twice.
 */
export const appendEntry = (env: Env, e: HistoryEntry): AppendOutcome => {
  if (!isValidSessionId(e.sessionId) || !Number.isFinite(e.at)) return 'refused'
  const dir = historyDir(env)
  ensurePrivateDir(dir)
  if (!claimMark(dir, e)) return 'logged-already'
  // Never through a link, never into a FIFO or a file of another user; created 0600.
  appendPrivate(dayFile(dir, dayOf(e.at)), `${JSON.stringify(e)}\n`)
  return 'logged'
}

/** Appends each change; a failure is logged, never thrown: the history must not cost a record. */
export const appendEntries = (env: Env, entries: readonly HistoryEntry[], log: Logger = () => {}): void => {
  for (const e of entries) {
    try {
      appendEntry(env, e)
    } catch (err) {
      log(`history: could not log ${e.sessionId}'s change to ${e.to}: ${(err as Error).message}`)
    }
  }
}

/** The record store's onFold (lib/record/write.ts): logs the changes a fold made. */
export const foldLogger =
  (env: Env, log: Logger = () => {}) =>
  (before: SessionRecord | null, steps: readonly SessionRecord[]): void =>
    appendEntries(env, deriveFoldChanges(before, steps), log)
