// The queue, live: chokidar watches the sessions folder and the transcripts of live sessions;
// every event only means "rescan soon" (chokidar throttles repeated renames of one file,
// docs/design.md §5), and a rescan is the same checked read as `ls`. A 1 s tick re-renders ages; every
// PANE_RECHECK_MS a full rescan re-checks panes and, as §4 limits them, screens. `watch`'s
// screen and log (lib/commands/watch.ts) are its two users; close() releases everything.
import { agentFor } from '../agents/index.js'
import { ensurePrivateDir } from '../fs/private-dir.js'
import type { Io } from '../io.js'
import { isSessionsNoise, sessionsDir } from '../paths.js'
import { seenDir } from './seen.js'
import type { TmuxExec } from '../tmux/exec.js'
import { loadQueue, type QueueView } from './load.js'

/** A burst of events (a record and its temp file, several hooks at once) makes one rescan. */
export const RESCAN_DEBOUNCE_MS = 15
/** A streaming transcript changes many times a second; its rescans are spaced this far apart. */
export const TRANSCRIPT_RESCAN_GAP_MS = 250
/** Ages move once a second. */
export const TICK_MS = 1000
/** Panes (and, as docs/design.md §4.3 limits them, screens) are re-checked this often while idle. */
export const PANE_RECHECK_MS = 5000

const LIVE_STATES = new Set(['working', 'permission', 'waiting'])

export interface Live {
  close: () => Promise<void>
  rescanNow: () => void
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
  clock: () => number = Date.now,
): Promise<Live> => {
  const { watch } = await import('chokidar')
  const dir = sessionsDir(io.env)
  ensurePrivateDir(dir)
  // Seen marks change the queue too (`go`, `next`, `ack` from another shell).
  const seen = seenDir(io.env)
  ensurePrivateDir(seen)
  const sessions = watch([dir, seen], { ignoreInitial: true, depth: 1, atomic: false, ignored: isSessionsNoise })
  const transcripts = watch([], { ignoreInitial: true, atomic: false })
  let watched = new Set<string>()

  let timer: NodeJS.Timeout | undefined
  let fireAt = Infinity
  let lastScanAt = 0
  let scanning = false
  let again = false
  let closed = false

  const schedule = (delay: number): void => {
    if (closed) return
    const at = clock() + delay
    if (timer && at >= fireAt) return
    if (timer) clearTimeout(timer)
    fireAt = at
    timer = setTimeout(() => {
      timer = undefined
      fireAt = Infinity
      void rescan()
    }, delay)
  }

  const follow = (view: QueueView): void => {
    const want = new Set<string>()
    for (const i of view.items) {
      const path = LIVE_STATES.has(i.state) && !i.headless ? agentFor(i.agent)?.watchedFile(i.record, io.env) : null
      if (path) want.add(path)
    }
    const add = [...want].filter((p) => !watched.has(p))
    const drop = [...watched].filter((p) => !want.has(p))
    if (add.length > 0) transcripts.add(add)
    if (drop.length > 0) transcripts.unwatch(drop)
    watched = want
  }

  const rescan = async (): Promise<void> => {
    if (closed) return
    if (scanning) {
      again = true
      return
    }
    scanning = true
    try {
      const view = await loadQueue(io, { exec })
      if (closed) return
      follow(view)
      onView(view)
    } catch (err) {
      onError(err)
    } finally {
      scanning = false
      lastScanAt = clock()
      if (again) {
        again = false
        schedule(RESCAN_DEBOUNCE_MS)
      }
    }
  }

  sessions.on('all', () => schedule(RESCAN_DEBOUNCE_MS))
  transcripts.on('change', () => schedule(Math.max(RESCAN_DEBOUNCE_MS, lastScanAt + TRANSCRIPT_RESCAN_GAP_MS - clock())))
  sessions.on('error', onError)
  transcripts.on('error', onError)

  let ticks = 0
  const tick = setInterval(() => {
    ticks++
    if ((ticks * TICK_MS) % PANE_RECHECK_MS === 0) void rescan()
    else onTick()
  }, TICK_MS)

  await rescan()
  return {
    rescanNow: () => schedule(0),
    close: async () => {
      closed = true
      clearInterval(tick)
      if (timer) clearTimeout(timer)
      await Promise.all([sessions.close(), transcripts.close()])
    },
  }
}
