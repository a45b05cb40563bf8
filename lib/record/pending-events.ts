// Pending events: an event whose session lock was busy is kept as its own file, created
// exclusively and never overwritten (docs/design.md §2.4), until a lock holder folds it into the record.
// Readers fold them in memory, without the lock, so a dead lock holder never hides an event.
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { uniqueSuffix } from '../fs/atomic-write.js'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../fs/private-dir.js'
import { listRealDir } from '../fs/own-files.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import type { Logger } from '../logger.js'
import { pendingDir, tempDir } from '../paths.js'
import type { AgentRulesOf } from './agent-rules.js'
import { foldEvents } from './fold.js'
import { looksLikeEvent } from './light-check.js'
import type { HookEvent, SessionRecord } from './types.js'

export interface PendingEvent {
  file: string
  event: HookEvent
}

/**
 * Pending events of a session that are not yet in its record. Readers call this without the
 * lock, so a dead lock holder never keeps an event from view.
 */
export const readPendingEvents = (dir: string, sessionId: string, folded: readonly string[], log: Logger = () => {}): PendingEvent[] => {
  const pdir = pendingDir(dir, sessionId)
  const skip = new Set(folded)
  const out: PendingEvent[] = []
  // Never through a link planted as the folder or as one of its files.
  for (const entry of listRealDir(pdir)) {
    const name = entry.name
    if (!name.endsWith('.json') || skip.has(name)) continue
    const got = readRegularFile(join(pdir, name), { cap: READ_CAP.pending, ownOnly: true })
    if (!got.ok) {
      // Vanished between readdir and read: a lock holder folded it meanwhile.
      if (!got.missing) log(`ignored pending file ${join(pdir, name)}: ${got.why}`)
      continue
    }
    try {
      const event: unknown = JSON.parse(got.text)
      if (looksLikeEvent(event, sessionId)) out.push({ file: name, event })
      else log(`ignored pending file ${join(pdir, name)}: not an event of ${sessionId}`)
    } catch (err) {
      log(`ignored pending file ${join(pdir, name)}: ${(err as Error).message}`)
    }
  }
  return out
}

/** The record as readers should see it: the file with its pending events folded in memory. */
export const withPending = (
  rec: SessionRecord | null,
  pending: readonly PendingEvent[],
  agents: AgentRulesOf,
  now: number = Date.now(),
): SessionRecord | null =>
  pending.length === 0
    ? rec
    : foldEvents(
        rec,
        pending.map((p) => p.event),
        agents,
        now,
      )

/** Saves an event as its own file, created exclusively, never overwritten (docs/design.md §2.4). */
export const writePendingEvent = (dir: string, ev: HookEvent, tmpDir = tempDir(dir)): string => {
  const pdir = pendingDir(dir, ev.sessionId)
  mkdirSync(pdir, { recursive: true, mode: PRIVATE_DIR_MODE })
  mkdirSync(tmpDir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const name = `${ev.stamp.toFixed(3).padStart(18, '0')}-${process.pid}-${uniqueSuffix()}.json`
  // Written beside, then linked in: a reader never sees a half-written pending file, and the
  // link fails rather than replace an existing name.
  const tmp = join(tmpDir, `${ev.sessionId}.${name}.tmp`)
  writeFileSync(tmp, JSON.stringify(ev), { flag: 'wx', mode: PRIVATE_FILE_MODE })
  try {
    linkSync(tmp, join(pdir, name))
  } finally {
    rmSync(tmp, { force: true })
  }
  return name
}
