// What discovery of hook-less sessions learnt, remembered across runs ($TRAILBOSS_HOME/discovery.json):
// registry files by mtime, which process each pane runs, the session each agent process runs,
// and screen verdicts. `status` runs every few seconds: none of it is worked out twice.
import { join } from 'node:path'
import type { ScreenVerdict } from '../agents/types.js'
import type { LiveState, ToolCall, WaitKind } from '../record/types.js'
import { checkDiscovery } from '../cache/check.generated.js'
import { type CacheFile, readCache, writeCache } from '../fs/cache-file.js'
import { type Env, trailbossHome } from '../paths.js'

/** Bumped when what the file holds changes: a file of another version is none (lib/schemas/caches.ts). */
export const DISCOVERY_VERSION = 1

/** What a pane runs: the agent process found under it, and that process's session. */
export interface PaneMemo {
  panePid: number
  command: string
  agent: string | null
  pid: number | null
  startTicks: number | null
  cwd: string | null
  /**
   * The project label of `cwd` (the nearest folder holding .git), worked out with the memo:
   * a walk up the folders per session per run otherwise. Absent in a cache written before it.
   */
  project?: string | null
  sessionId: string | null
  transcriptPath: string | null
  hadTurn: boolean
  /** When the session was last looked up (a new one after /new or /clear). */
  lookedAt: number
  /**
   * The agent's session folders as they were at that lookup (their mtimes), or null when
   * they could not vouch for it (unknown, or changed too recently to tell a later change).
   */
  folders?: string | null
}

export interface ScreenMemo {
  pid: number
  at: number
  /** The transcript's size at the capture: a changed size means a new look. */
  size: number
  verdict: ScreenVerdict
  /** When the screen began to show this verdict. */
  since: number
}

/** What a hook-less wait asks (lib/queue/hookless-ask.ts), as of its transcript's size. */
export interface AskMemo {
  size: number
  tool: ToolCall | null
  message: string | null
}

/**
 * The last state discovery gave a session without hooks, kept while its first record may
 * continue that wait (lib/queue/hookless-wait.ts).
 */
export interface WaitMemo {
  state: LiveState
  kind: WaitKind | null
  since: number
  /** The transcript's size when it was last seen without hooks (-1: none). */
  size: number
  /** Whether the record whose first event came at `firstEventAt` continues this wait. */
  record?: { firstEventAt: number; continues: boolean }
}

export interface DiscoveryCache {
  registry: Record<string, Record<string, unknown>>
  panes: Record<string, PaneMemo>
  screens: Record<string, ScreenMemo>
  asks: Record<string, AskMemo>
  waits: Record<string, WaitMemo>
}

const discoveryCache = (env: Env): CacheFile => ({
  file: join(trailbossHome(env), 'discovery.json'),
  dir: trailbossHome(env),
  check: checkDiscovery,
  tmpPrefix: '.discovery',
})

export const emptyDiscoveryCache = (): DiscoveryCache => ({ registry: {}, panes: {}, screens: {}, asks: {}, waits: {} })

export const readDiscoveryCache = (env: Env): { cache: DiscoveryCache; text: string } => {
  const got = readCache<DiscoveryCache & { v: number }>(env, discoveryCache(env))
  if (!got.value) return { cache: emptyDiscoveryCache(), text: '' }
  const { v: _v, ...cache } = got.value
  return { cache, text: got.text }
}

/** Pure: the file's text for a cache. */
export const formatDiscoveryCache = (cache: DiscoveryCache): string => JSON.stringify({ v: DISCOVERY_VERSION, ...cache })

/** Written only when it changed; one that cannot be written costs a look next time. */
export const writeDiscoveryCache = (env: Env, cache: DiscoveryCache, before: string): void => {
  const text = formatDiscoveryCache(cache)
  if (text !== before) writeCache(env, discoveryCache(env), text)
}
