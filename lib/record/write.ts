// The record store's write path: lock a session's file, fold events in, write it atomically.
// It is the emitter's path too, so it stays free of zod and every other heavy import.
import { mkdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentRulesOf } from './agent-rules.js'
import { applyEvent } from './fold.js'
import type { HookEvent, SessionRecord } from './types.js'
import { pendingDir, recordFile, tempDir } from '../paths.js'
import { listRealDir, ownMtimeMs, removeOwnFile } from '../fs/own-files.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { writeFileAtomic } from '../fs/atomic-write.js'
import { lockNow, shortLockOptions } from '../fs/lock-now.js'
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js'
import type { Logger } from '../logger.js'
import { markAfterWrite, unmarkBeforeWrite } from './ended-index.js'
import { looksLikeRecord } from './light-check.js'
import { readPendingEvents, writePendingEvent } from './pending-events.js'

/** How long an emitter tries for the lock before it drops its event as a pending file. */
export const LOCK_BUDGET_MS = 300
/** A lock older than this belongs to a dead holder; proper-lockfile will not go below 2 s. */
export const LOCK_STALE_MS = 3000
/** A temp file this old was left by a writer that died between write and rename. */
export const TEMP_LEFTOVER_MS = 10_000

/** The record on disk as the lock holder reads it (the light check); one that does not parse is set aside. */
const readRecordOrSetAside = (file: string, sessionId: string, log: Logger): SessionRecord | null => {
  // Never blocks (a FIFO), never follows a link, never reads more than a record can be.
  const got = readRegularFile(file, { cap: READ_CAP.record, ownOnly: true })
  if (!got.ok && got.missing) return null
  let parsed: unknown
  try {
    parsed = got.ok ? JSON.parse(got.text) : undefined
  } catch {
    parsed = undefined
  }
  if (looksLikeRecord(parsed, sessionId)) return parsed
  // Never delete what we cannot read: set it aside for `doctor`, and start afresh.
  const aside = `${file}.corrupt-${Date.now()}`
  renameSync(file, aside)
  log(`record ${file} ${got.ok ? 'did not parse' : `is ${got.why}`}; moved to ${aside}`)
  return null
}

/** Leftovers of writers that died: only a lock holder removes them, and says so (docs/design.md §2.7). */
const removeLeftovers = (dir: string, rec: SessionRecord | null, sessionId: string, now: number, log: Logger): void => {
  const pdir = pendingDir(dir, sessionId)
  for (const name of rec?.foldedPending ?? []) removeOwnFile(join(pdir, name))
  // Only regular files of a real folder: a `.tmp` link leads nowhere (lib/fs/own-files.ts).
  const tdir = tempDir(dir)
  for (const e of listRealDir(tdir)) {
    if (!e.isFile() || !e.name.startsWith(`${sessionId}.`)) continue
    const path = join(tdir, e.name)
    const mtime = ownMtimeMs(path)
    // Gone already (another holder cleaned it), or still being written.
    if (mtime !== null && now - mtime > TEMP_LEFTOVER_MS && removeOwnFile(path)) log(`removed leftover temp file ${path}`)
  }
}

export interface RecordEventOptions {
  /** The rules of the agents whose events the record may hold (the emitter's registry). */
  agents: AgentRulesOf
  lockBudgetMs?: number
  log?: Logger
  now?: () => number
  /** Called the moment the event is on disk, so a caller's own deadline knows it is safe. */
  onSaved?: (outcome: RecordOutcome) => void
  /**
   * Called under the lock once the record is written: the record as it was on disk, then the
   * record after each event folded in (the pending ones in stamp order, then this one). The
   * history (lib/history/) logs the changes from these; the record layer knows nothing of it.
   */
  onFold?: (before: SessionRecord | null, steps: readonly SessionRecord[]) => void
}

export type RecordOutcome = 'written' | 'pending'

/**
 * Applies one event to its session's record under the session's lock, folding in any pending
 * events first. When the lock is not had within the budget (a busy or dead holder), the event
 * is saved as its own pending file instead, so it is never lost and the agent never waits.
 */
export const recordEvent = async (dir: string, ev: HookEvent, opts: RecordEventOptions): Promise<RecordOutcome> => {
  const log = opts.log ?? (() => {})
  const now = opts.now ?? Date.now
  const budget = opts.lockBudgetMs ?? LOCK_BUDGET_MS
  const file = recordFile(dir, ev.sessionId)
  let release: (() => Promise<void>) | undefined
  try {
    release = await lockNow(
      file,
      shortLockOptions(budget, LOCK_STALE_MS, (err) => log(`lock of ${file} compromised: ${err.message}`)),
    )
  } catch (err) {
    // A starved process can spend its whole budget on one attempt: retry then reports a timeout.
    const busy = (err as NodeJS.ErrnoException).code === 'ELOCKED' || /RetryOperation timeout/.test((err as Error).message)
    if (!busy) log(`lock of ${file} failed: ${(err as Error).message}`)
    writePendingEvent(dir, ev)
    opts.onSaved?.('pending')
    return 'pending'
  }
  try {
    const onDisk = readRecordOrSetAside(file, ev.sessionId, log)
    // The clock under the lock: a record stamped ahead of it was stamped before a clock step,
    // and this event, the latest to reach the session, is then applied as the newer (fold.ts).
    const at = now()
    removeLeftovers(dir, onDisk, ev.sessionId, at, log)
    const pending = readPendingEvents(dir, ev.sessionId, [], log)
    // One event at a time, as withPending folds them, keeping each step for onFold.
    const steps: SessionRecord[] = []
    for (const p of [...pending].sort((a, b) => a.event.stamp - b.event.stamp))
      steps.push(applyEvent(steps.at(-1) ?? onDisk, p.event, opts.agents, at))
    const next = applyEvent(steps.at(-1) ?? onDisk, ev, opts.agents, at)
    steps.push(next)
    next.foldedPending = pending.map((p) => p.file)
    mkdirSync(tempDir(dir), { recursive: true, mode: PRIVATE_DIR_MODE })
    unmarkBeforeWrite(dir, ev.sessionId, onDisk?.state ?? null, next.state, log)
    writeFileAtomic(file, JSON.stringify(next), tempDir(dir), ev.sessionId)
    opts.onSaved?.('written')
    markAfterWrite(dir, ev.sessionId, next.state, log)
    try {
      opts.onFold?.(onDisk, steps)
    } catch (err) {
      log(`after the fold of ${ev.sessionId}: ${(err as Error).message}`)
    }
    const pdir = pendingDir(dir, ev.sessionId)
    for (const p of pending) removeOwnFile(join(pdir, p.file))
    return 'written'
  } finally {
    await release().catch((err: Error) => log(`unlock of ${file} failed: ${err.message}`))
  }
}
