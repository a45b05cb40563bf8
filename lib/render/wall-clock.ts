// Pure: what a zone's wall clock reads at a moment, for the report's text and its page alike.

/** A wall clock's reading: month 1–12, hour 0–23. */
export interface WallTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

/**
 * A reader of the wall clock in `timeZone`. Throws Intl's RangeError on a zone it does not
 * know, here rather than at the first reading, so a caller can fall back at once.
 */
export const wallClockIn = (timeZone: string): ((at: number) => WallTime) => {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  })
  return (at) => {
    const out: WallTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
    for (const p of format.formatToParts(at)) if (p.type in out) out[p.type as keyof WallTime] = Number(p.value)
    return out
  }
}

const two = (n: number): string => String(n).padStart(2, '0')

/** `2026-12-02 14:05`. */
export const formatWallStamp = (w: WallTime): string => `${w.year}-${two(w.month)}-${two(w.day)} ${formatWallTime(w)}`

/** `14:05`. */
export const formatWallTime = (w: WallTime): string => `${two(w.hour)}:${two(w.minute)}`
