// One rescan, asked for by many events: `watch`'s live queue (lib/queue/live.ts) and `ls --json
// --follow` (lib/commands/ls-follow.ts). A burst of requests makes one run (debounced), runs
// never overlap (single flight), and a request that came while a run was under way makes one
// more run after it, so no change is missed. The clock and the timer are parameters.

/** The timer functions, Node's by default. */
export interface RescanTimers {
  clock: () => number
  setTimer: (fn: () => void, ms: number) => unknown
  clearTimer: (handle: unknown) => void
}

/** How soon a requested run goes: at least `debounceMs` from now, and `gapMs` after the last run ended. */
export interface RescanWhen {
  debounceMs: number
  gapMs?: number
}

export interface Rescan {
  /** A run soon; an earlier pending run is kept, a later one brought forward. */
  soon: (when: RescanWhen) => void
  /** A run now; while one is under way, one more after it. Resolves when this call is done with. */
  run: () => Promise<void>
  /** No run starts from here on; the one under way finishes. */
  close: () => void
}

const nodeTimers: RescanTimers = {
  clock: Date.now,
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/** Pure: the delay before a run asked for at `now`, when the last run ended at `lastRunAt`. */
export const deriveDelay = (when: RescanWhen, now: number, lastRunAt: number): number =>
  Math.max(when.debounceMs, lastRunAt + (when.gapMs ?? 0) - now)

/**
 * `scan` must handle its own errors (a watcher's event has no one to tell). `again` is when
 * the run that follows a busy one goes.
 */
export const startRescan = (scan: () => Promise<void>, again: RescanWhen, timers: Partial<RescanTimers> = {}): Rescan => {
  const { clock, setTimer, clearTimer } = { ...nodeTimers, ...timers }
  let timer: unknown
  let fireAt = Infinity
  let lastRunAt = Number.NEGATIVE_INFINITY
  let running = false
  let pending = false
  let closed = false

  const soon = (when: RescanWhen): void => {
    if (closed) return
    const now = clock()
    const delay = deriveDelay(when, now, lastRunAt)
    const at = now + delay
    if (timer !== undefined && at >= fireAt) return
    if (timer !== undefined) clearTimer(timer)
    fireAt = at
    timer = setTimer(() => {
      timer = undefined
      fireAt = Infinity
      void run()
    }, delay)
  }

  const run = async (): Promise<void> => {
    if (closed) return
    if (running) {
      pending = true
      return
    }
    running = true
    try {
      await scan()
    } finally {
      running = false
      lastRunAt = clock()
      if (pending) {
        pending = false
        soon(again)
      }
    }
  }

  const close = (): void => {
    closed = true
    if (timer !== undefined) clearTimer(timer)
    timer = undefined
  }

  return { soon, run, close }
}
