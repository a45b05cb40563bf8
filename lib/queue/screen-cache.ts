// Screen verdicts remembered across runs ($TRAILBOSS_HOME/screens.json), since `status` runs
// every few seconds and a capture costs a tmux run.
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ScreenVerdict } from '../agents/types.js'
import { writeFileAtomic } from '../fs/atomic-write.js'
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js'
import { type Env, trailbossHome } from '../paths.js'

export interface ScreenCacheEntry {
  at: number
  lastEventAt: number
  verdict: ScreenVerdict
}

const screenCacheFile = (env: Env): string => join(trailbossHome(env), 'screens.json')

export const readScreenCache = (env: Env): Record<string, ScreenCacheEntry> => {
  try {
    const v: unknown = JSON.parse(readFileSync(screenCacheFile(env), 'utf8'))
    return typeof v === 'object' && v !== null ? (v as Record<string, ScreenCacheEntry>) : {}
  } catch {
    return {}
  }
}

/** Keeps what this run saw; a cache that cannot be written only costs a capture next time. */
export const writeScreenCache = (env: Env, entries: Record<string, ScreenCacheEntry>): void => {
  try {
    const home = trailbossHome(env)
    mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE })
    writeFileAtomic(screenCacheFile(env), JSON.stringify(entries), home, '.screens')
  } catch {
    // Nothing to do: the next run captures again.
  }
}
