// The shared rescan (lib/queue/rescan.ts): debounce, single flight, one more run for what came
// during a run. A hand-driven clock and timer list stand in for Node's (passed in, as the module
// takes them); one test runs on Node's own timers.
import t from 'tap'
import { deriveDelay, type RescanTimers, startRescan } from '../lib/queue/rescan.js'

/** A clock that moves only when told, and the timers due by then. */
const manualTime = () => {
  let now = 1000
  let next = 0
  const timers = new Map<number, { at: number; fn: () => void }>()
  const api: RescanTimers = {
    clock: () => now,
    setTimer: (fn, ms) => {
      const id = ++next
      timers.set(id, { at: now + ms, fn })
      return id
    },
    clearTimer: (id) => {
      timers.delete(id as number)
    },
  }
  /** Moves the clock by `ms`, firing each timer due on the way, in order. */
  const advance = (ms: number): void => {
    const end = now + ms
    for (;;) {
      const due = [...timers.entries()].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
      if (!due) break
      timers.delete(due[0])
      now = due[1].at
      due[1].fn()
    }
    now = end
  }
  return { api, advance, pending: () => [...timers.values()].map((x) => x.at - now), now: () => now }
}

/** A scan that records when it started and ends only when told. */
const gatedScan = (clock: () => number) => {
  const starts: number[] = []
  const ends: (() => void)[] = []
  const scan = (): Promise<void> =>
    new Promise((resolve) => {
      starts.push(clock())
      ends.push(resolve)
    })
  const finish = async (): Promise<void> => {
    ends.shift()?.()
    // The run's `finally` runs on the next microtasks.
    await new Promise((r) => setImmediate(r))
  }
  return { scan, starts, finish }
}

t.test('deriveDelay: the debounce, or what is left of the gap since the last run', async (t) => {
  const rows: [number, number | undefined, number, number, number][] = [
    // debounce, gap, now, last run ended, delay
    [15, undefined, 1000, 990, 15],
    [15, 250, 1000, Number.NEGATIVE_INFINITY, 15],
    [15, 250, 1000, 900, 150],
    [15, 250, 1000, 990, 240],
    [15, 250, 1000, 760, 15],
    [25, 1000, 5000, 4990, 990],
    [0, undefined, 1000, 999, 0],
  ]
  for (const [debounceMs, gapMs, now, last, delay] of rows)
    t.equal(deriveDelay({ debounceMs, gapMs }, now, last), delay, `${debounceMs}/${gapMs} at ${now - last} ms after the last run`)
})

t.test('a burst of requests makes one run, after the debounce', async (t) => {
  const time = manualTime()
  let runs = 0
  const r = startRescan(async () => void runs++, { debounceMs: 15 }, time.api)
  r.soon({ debounceMs: 15 })
  time.advance(10)
  r.soon({ debounceMs: 15 })
  t.same(time.pending(), [5], 'a later request keeps the earlier run')
  r.soon({ debounceMs: 0 })
  t.same(time.pending(), [0], 'an earlier one brings it forward')
  time.advance(1)
  await new Promise((r) => setImmediate(r))
  t.equal(runs, 1)
  t.same(time.pending(), [])
})

t.test('runs never overlap; requests during a run make exactly one more, after `again`', async (t) => {
  const time = manualTime()
  const g = gatedScan(time.api.clock)
  const r = startRescan(g.scan, { debounceMs: 15 }, time.api)
  const first = r.run()
  t.same(g.starts, [1000])
  void r.run()
  r.soon({ debounceMs: 0 })
  time.advance(5)
  t.same(g.starts, [1000], 'a second run waits for the first')
  time.advance(5)
  await g.finish()
  await first
  t.same(time.pending(), [15], 'one more run, `again` after the end')
  time.advance(15)
  t.same(g.starts, [1000, 1025])
  await g.finish()
  t.same(time.pending(), [], 'nothing came during it: no run after')
})

t.test('the gap spaces runs from the end of the last one', async (t) => {
  const time = manualTime()
  const g = gatedScan(time.api.clock)
  const r = startRescan(g.scan, { debounceMs: 25, gapMs: 1000 }, time.api)
  const first = r.run()
  time.advance(100)
  await g.finish()
  await first
  r.soon({ debounceMs: 25, gapMs: 1000 })
  t.same(time.pending(), [1000], 'a second read a full gap after the first ended')
  time.advance(2000)
  t.same(g.starts, [1000, 2100])
  await g.finish()
  r.soon({ debounceMs: 25, gapMs: 1000 })
  t.same(time.pending(), [1000], 'again a full gap after that one ended')
  time.advance(0)
  r.close()
  const later = startRescan(g.scan, { debounceMs: 25, gapMs: 1000 }, time.api)
  void later.run()
  await g.finish()
  time.advance(5000)
  later.soon({ debounceMs: 25, gapMs: 1000 })
  t.same(time.pending(), [25], 'long after the last run: only the debounce')
})

t.test('close: no run starts, a pending one is dropped, the one under way ends', async (t) => {
  const time = manualTime()
  const g = gatedScan(time.api.clock)
  const r = startRescan(g.scan, { debounceMs: 15 }, time.api)
  const first = r.run()
  void r.run()
  r.soon({ debounceMs: 0 })
  r.close()
  t.same(time.pending(), [], 'the pending run is dropped')
  await g.finish()
  await first
  t.same(time.pending(), [], 'no run after the one under way')
  await r.run()
  r.soon({ debounceMs: 0 })
  time.advance(100)
  t.same(g.starts, [1000], 'nothing runs after close')
})

t.test("on Node's own timers: one run for a burst", async (t) => {
  let runs = 0
  const r = startRescan(async () => void runs++, { debounceMs: 5 })
  for (let i = 0; i < 10; i++) r.soon({ debounceMs: 5 })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(runs, 1)
  r.close()
})
