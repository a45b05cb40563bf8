// gc's plan (lib/record/gc-plan.ts), one row per rule; what gc removes on disk, links and
// FIFOs included, is test/gc.test.ts's and test/hostile-gc.test.ts's.
import t from 'tap'
import { type GcPlan, planGc, selectRetired, type StoreListing } from '../lib/record/gc-plan.js'
import type { LostSpoolFile } from '../lib/record/spool-lost.js'

const NOW = 1_000_000
const AGES = { tempMs: 10_000, lockMs: 6_000 }
const DAY = 86_400_000
const none: StoreListing = { temps: [], locks: [], marks: [], lost: [] }
const lostAt = (mtimeMs: number): LostSpoolFile => ({
  path: `/s/.spool/x-${mtimeMs}.lost`,
  name: `x-${mtimeMs}.lost`,
  mtimeMs,
  agent: null,
})

t.test('planGc: [listing, threshold] → what goes', async (t) => {
  const rows: [string, Partial<StoreListing>, number, GcPlan][] = [
    ['nothing listed, nothing goes', {}, DAY, { leftovers: [], lost: [] }],
    [
      'a temp file past its stale time goes',
      { temps: [{ path: '/t/a.tmp', mtimeMs: NOW - 10_001 }] },
      DAY,
      { leftovers: [{ path: '/t/a.tmp', kind: 'file' }], lost: [] },
    ],
    [
      'a temp file just at its stale time stays (a writer may be on it)',
      { temps: [{ path: '/t/a.tmp', mtimeMs: NOW - 10_000 }] },
      DAY,
      { leftovers: [], lost: [] },
    ],
    ['a temp file gone meanwhile stays out', { temps: [{ path: '/t/a.tmp', mtimeMs: null }] }, DAY, { leftovers: [], lost: [] }],
    [
      'a lock past twice its stale time goes, as a folder that must be empty',
      { locks: [{ path: '/s/a.json.lock', mtimeMs: NOW - 6_001 }] },
      DAY,
      { leftovers: [{ path: '/s/a.json.lock', kind: 'empty-dir' }], lost: [] },
    ],
    ['a fresh lock stays', { locks: [{ path: '/s/a.json.lock', mtimeMs: NOW - 5_000 }] }, DAY, { leftovers: [], lost: [] }],
    ['a lock gone meanwhile stays out', { locks: [{ path: '/s/a.json.lock', mtimeMs: null }] }, DAY, { leftovers: [], lost: [] }],
    [
      'a mark whose record is gone goes',
      { marks: [{ id: 'abc', path: '/s/.ended/abc', recordExists: false }] },
      DAY,
      { leftovers: [{ path: '/s/.ended/abc', kind: 'file' }], lost: [] },
    ],
    [
      'a mark whose record is there stays',
      { marks: [{ id: 'abc', path: '/s/.ended/abc', recordExists: true }] },
      DAY,
      { leftovers: [], lost: [] },
    ],
    [
      'a file named as no session id is no mark of ours',
      { marks: [{ id: 'a.b', path: '/s/.ended/a.b', recordExists: null }] },
      DAY,
      { leftovers: [], lost: [] },
    ],
    ['a lost event past the threshold goes', { lost: [lostAt(NOW - DAY)] }, DAY, { leftovers: [], lost: [lostAt(NOW - DAY)] }],
    ['a younger lost event stays', { lost: [lostAt(NOW - DAY + 1)] }, DAY, { leftovers: [], lost: [] }],
    ['the threshold is the one asked for', { lost: [lostAt(NOW - 60_000)] }, 60_000, { leftovers: [], lost: [lostAt(NOW - 60_000)] }],
  ]
  for (const [what, listing, olderThanMs, plan] of rows) t.same(planGc({ ...none, ...listing }, NOW, olderThanMs, AGES), plan, what)
})

t.test('planGc keeps the listing order: temp files, locks, marks', async (t) => {
  const listing: StoreListing = {
    temps: [{ path: 't', mtimeMs: 0 }],
    locks: [{ path: 'l', mtimeMs: 0 }],
    marks: [{ id: 'm', path: 'm', recordExists: false }],
    lost: [],
  }
  t.same(
    planGc(listing, NOW, DAY, AGES).leftovers.map((l) => l.path),
    ['t', 'l', 'm'],
  )
})

t.test('selectRetired: [state, headless, quiet for] → retired', async (t) => {
  const rows: [string, boolean, number, boolean][] = [
    ['ended', false, DAY, true],
    ['gone', false, DAY, true],
    ['ended', false, DAY - 1, false],
    ['waiting', false, 10 * DAY, false],
    ['working', false, 10 * DAY, false],
    ['idle', false, 10 * DAY, false],
    ['working', true, DAY, true],
    ['working', true, DAY - 1, false],
  ]
  for (const [state, headless, quietMs, retired] of rows) {
    const item = { state, headless, record: { lastEventAt: NOW - quietMs } }
    t.equal(selectRetired([item], DAY, NOW).length === 1, retired, `${state}${headless ? ' headless' : ''}, quiet ${quietMs} ms`)
  }
})
