// Durations as people type them (`90s`, `10m`, `2h`, `7d`) and as the queue shows them (`3m`).
import { TrailbossError, EXIT_USAGE } from './errors.js'

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** Parses `10m`, `1h30m`, `45s` or a bare number of seconds into milliseconds. */
export const parseDuration = (text: string): number => {
  const t = text.trim()
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy
  let total = 0
  let end = 0
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1000)
    end = re.lastIndex
  }
  if (end === 0 || end !== t.length) {
    throw new TrailbossError(`not a duration: ${JSON.stringify(text)}`, 'use a number with a unit, e.g. 90s, 10m, 2h, 7d', EXIT_USAGE)
  }
  return total
}

/**
 * A short age for tables: `12s`, `3m`, `2h`, `4d`. Its twin, formatAge in plugin/hooks/queue-view.ts,
 * is a copy on purpose: Claude Code copies the plugin's folder alone into its plugin cache
 * (docs/install.md), so an import out of plugin/ would not resolve there. Change both together.
 */
export const formatAge = (ms: number): string => {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86_400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86_400)}d`
}

/** A span of time as people read it: `42s`, `6m 10s`, `3h 12m`, `2d 4h`. */
export const formatSpan = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m ${s % 60}s`
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`
  const d = Math.floor(h / 24)
  return h % 24 === 0 ? `${d}d` : `${d}d ${h % 24}h`
}
