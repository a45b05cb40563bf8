// Pure: the order of two dotted versions (`v20.10.0`, `2.1.332`), by number. Shared by doctor's
// check of Node and the agents' checks of their own builds (lib/agents/<agent>/doctor.ts).

const versionTuple = (v: string): number[] =>
  v
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0)

/** Negative when `a` is older than `b`, 0 when the same, positive when newer (major.minor.patch). */
export const compareVersions = (a: string, b: string): number => {
  const x = versionTuple(a)
  const y = versionTuple(b)
  for (let i = 0; i < 3; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}
