// Clocks for code that must not wait on the event loop or load perf_hooks: a short command's
// synchronous waits (the emitter's stdin, a full output pipe) and their deadlines.

/** A monotonic clock in ms; not `performance.now()`, whose first use loads perf_hooks (~1.5 ms). */
export const monotonicMs = (): number => {
  const [s, ns] = process.hrtime()
  return s * 1e3 + ns / 1e6
}

/** Blocks the thread for `ms` (no timer can fire during a synchronous read loop anyway). */
export const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * Pure: whether something stamped `at` (a wall-clock time a cache kept) is younger than
 * `maxAgeMs` at `now`. One stamped after `now` was stamped before the clock stepped back (NTP,
 * a resumed VM): it is stale, never fresh until the clock catches up.
 */
export const isFresh = (at: number, now: number, maxAgeMs: number): boolean => at <= now && now - at < maxAgeMs
