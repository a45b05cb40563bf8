// Screen verdicts remembered across runs ($TRAILBOSS_HOME/screens.json), since `status` runs
// every few seconds and a capture costs a tmux run.
import { join } from 'node:path'
import type { ScreenVerdict } from '../agents/types.js'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { type Env, trailbossHome } from '../paths.js'

export interface ScreenCacheEntry {
  at: number
  lastEventAt: number
  verdict: ScreenVerdict
}

const screenCacheFile = (env: Env): string => join(trailbossHome(env), 'screens.json')

export const readScreenCache = (env: Env): Record<string, ScreenCacheEntry> => {
  // Never blocks on a FIFO, never follows a link, never reads past a state file's cap.
  const got = readRegularFile(screenCacheFile(env), { cap: READ_CAP.state, ownOnly: true })
  if (!got.ok) return {}
  try {
    const v: unknown = JSON.parse(got.text)
    return typeof v === 'object' && v !== null ? (v as Record<string, ScreenCacheEntry>) : {}
  } catch {
    return {}
  }
}

/** Keeps what this run saw; a cache that cannot be written only costs a capture next time. */
export const writeScreenCache = (env: Env, entries: Record<string, ScreenCacheEntry>): void => {
  // A home of another user gets no cache from us (readStore says so once); a failed write costs a capture.
  tryWriteHomeFile(env, trailbossHome(env), screenCacheFile(env), JSON.stringify(entries), '.screens')
}
