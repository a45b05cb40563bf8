// Screen verdicts remembered across runs ($TRAILBOSS_HOME/screens.json), since `status` runs
// every few seconds and a capture costs a tmux run.
import { join } from 'node:path'
import type { ScreenVerdict } from '../agents/types.js'
import { checkScreens } from '../cache/check.generated.js'
import { type CacheFile, readCache, writeCache } from '../fs/cache-file.js'
import { type Env, trailbossHome } from '../paths.js'

/** Bumped when what the file holds changes: a file of another version is none (lib/schemas/caches.ts). */
export const SCREENS_VERSION = 1

export interface ScreenCacheEntry {
  at: number
  lastEventAt: number
  verdict: ScreenVerdict
}

const screenCache = (env: Env): CacheFile => ({
  file: join(trailbossHome(env), 'screens.json'),
  dir: trailbossHome(env),
  check: checkScreens,
  tmpPrefix: '.screens',
})

export const readScreenCache = (env: Env): Record<string, ScreenCacheEntry> =>
  readCache<{ entries: Record<string, ScreenCacheEntry> }>(env, screenCache(env)).value?.entries ?? {}

/** Keeps what this run saw; a cache that cannot be written only costs a capture next time. */
export const writeScreenCache = (env: Env, entries: Record<string, ScreenCacheEntry>): void => {
  // A home of another user gets no cache from us (readStore says so once); a failed write costs a capture.
  writeCache(env, screenCache(env), JSON.stringify({ v: SCREENS_VERSION, entries }))
}
