import t from 'tap'
import { formatWallStamp, formatWallTime, wallClockIn } from '../lib/render/wall-clock.js'

// 2026-12-02 23:45:07.500 UTC.
const AT = Date.UTC(2026, 11, 2, 23, 45, 7, 500)

t.test("a zone's wall clock, in whole and in parts", async (t) => {
  t.same(wallClockIn('UTC')(AT), { year: 2026, month: 12, day: 2, hour: 23, minute: 45, second: 7 })
  // Half an hour ahead and across midnight: the day and the month move too.
  t.same(wallClockIn('Asia/Kolkata')(AT), { year: 2026, month: 12, day: 3, hour: 5, minute: 15, second: 7 })
  t.equal(formatWallStamp(wallClockIn('Asia/Kolkata')(AT)), '2026-12-03 05:15')
  t.equal(formatWallTime(wallClockIn('America/New_York')(AT)), '18:45')
  // Midnight is 00, never 24.
  t.equal(formatWallStamp(wallClockIn('UTC')(Date.UTC(2027, 0, 1))), '2027-01-01 00:00')
})

t.test('an unknown zone fails at once, not at the first reading', async (t) => {
  t.throws(() => wallClockIn('Nowhere/Atlantis'), RangeError)
})
