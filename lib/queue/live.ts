// The queue, live: chokidar watches the sessions folder and the transcripts of live sessions;
// every event only means "rescan soon" (chokidar throttles repeated renames of one file,
// docs/design.md §5; the debounce and single flight are lib/queue/rescan.ts's), and a rescan
// is the same checked read as `ls`. A 1 s tick re-renders ages; every
// PANE_RECHECK_MS a full rescan re-checks panes and, as §4 limits them, screens. `watch`'s
// screen and log (lib/commands/watch.ts) are its two users; close() releases everything.
import { agentFor } from '../agents/index.js'
import { ensurePrivateDir } from '../fs/private-dir.js'
import type { FSWatcher } from 'chokidar'
import type { Io } from '../io.js'
import { type Env, isSessionsNoise, sessionsDir } from '../paths.js'
import type { QueueItem } from './derive.js'
import { seenDir } from './seen.js'
import type { TmuxExec } from '../tmux/exec.js'
import { loadQueue, type QueueView } from './load.js'
import { type RescanWhen, startRescan } from './rescan.js'

/** A burst of events (a record and its temp file, several hooks at once) makes one rescan. */
export const RESCAN_DEBOUNCE_MS = 15
/** A streaming transcript changes many times a second; its rescans are spaced this far apart. */
export const TRANSCRIPT_RESCAN_GAP_MS = 250
/** Ages move once a second. */
export const TICK_MS = 1000
/** Panes (and, as docs/design.md §4.3 limits them, screens) are re-checked this often while idle. */
export const PANE_RECHECK_MS = 5000

const SOON: RescanWhen = { debounceMs: RESCAN_DEBOUNCE_MS }
const TRANSCRIPT_SOON: RescanWhen = { debounceMs: RESCAN_DEBOUNCE_MS, gapMs: TRANSCRIPT_RESCAN_GAP_MS }

const LIVE_STATES = new Set(['working', 'permission', 'waiting'])

export interface Live {
  close: () => Promise<void>
  rescanNow: () => void
}

/** Pure: the transcripts to watch, those of live sessions in a terminal (a headless run has no one to show them to). */
export const deriveWatchedFiles = (items: readonly QueueItem[], env: Env): Set<string> => {
  const want = new Set<string>()
  for (const i of items) {
    const path = LIVE_STATES.has(i.state) && !i.headless ? agentFor(i.agent)?.watchedFile(i.record, env) : null
    if (path) want.add(path)
  }
  return want
}

/** Keeps a watcher on exactly the files it is given each time. */
const followFiles = (watcher: FSWatcher): ((want: Set<string>) => void) => {
  let watched = new Set<string>()
  return (want) => {
    const add = [...want].filter((p) => !watched.has(p))
    const drop = [...watched].filter((p) => !want.has(p))
    if (add.length > 0) watcher.add(add)
    if (drop.length > 0) watcher.unwatch(drop)
    watched = want
  }
}

/** Each second onTick, and every PANE_RECHECK_MS a full rescan instead. */
const startTick = (rescan: () => void, onTick: () => void): NodeJS.Timeout => {
  let ticks = 0
  return setInterval(() => {
    ticks++
    if ((ticks * TICK_MS) % PANE_RECHECK_MS === 0) rescan()
    else onTick()
  }, TICK_MS)
}

export interface LiveOptions {
  clock?: () => number
  /**
   * Other hosts' waits as last heard (lib/remote/fleet-follow.ts), merged into each read and
   * numbered with this machine's; the caller asks for a rescan when they change.
   */
  remote?: () => readonly QueueItem[]
  /** The hosts `remote` follows (load.ts `remoteHosts`): their numbers are this run's to give. */
  remoteHosts?: readonly string[]
}

/**
 * The live part, shared by the screen and the log: watchers, debounced rescans, the tick.
 * `onView` gets every fresh view; `onTick` fires each second.
 */
export const startLive = async (
  io: Pick<Io, 'env' | 'now'>,
  exec: TmuxExec,
  onView: (v: QueueView) => void,
  onTick: () => void,
  onError: (e: unknown) => void,
  opts: LiveOptions = {},
): Promise<Live> => {
  const clock = opts.clock ?? Date.now
  const { watch } = await import('chokidar')
  const dir = sessionsDir(io.env)
  ensurePrivateDir(dir)
  // Seen marks change the queue too (`go`, `next`, `ack` from another shell).
  const seen = seenDir(io.env)
  ensurePrivateDir(seen)
  const sessions = watch([dir, seen], { ignoreInitial: true, depth: 1, atomic: false, ignored: isSessionsNoise })
  const transcripts = watch([], { ignoreInitial: true, atomic: false })
  const follow = followFiles(transcripts)
  let closed = false
  const rescan = startRescan(
    async () => {
      try {
        const remote = opts.remote?.()
        const view = await loadQueue(io, {
          exec,
          ...(remote ? { remote: Promise.resolve(remote), remoteHosts: opts.remoteHosts ?? [] } : {}),
        })
        if (closed) return
        follow(deriveWatchedFiles(view.items, io.env))
        onView(view)
      } catch (err) {
        onError(err)
      }
    },
    SOON,
    { clock },
  )
  sessions.on('all', () => rescan.soon(SOON))
  transcripts.on('change', () => rescan.soon(TRANSCRIPT_SOON))
  sessions.on('error', onError)
  transcripts.on('error', onError)
  const tick = startTick(() => void rescan.run(), onTick)

  await rescan.run()
  return {
    rescanNow: () => rescan.soon({ debounceMs: 0 }),
    close: async () => {
      closed = true
      clearInterval(tick)
      rescan.close()
      await Promise.all([sessions.close(), transcripts.close()])
    },
  }
}
