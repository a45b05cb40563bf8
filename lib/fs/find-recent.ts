// Recent files matching glob patterns (agents' transcripts), newest first: fast-glob, loaded
// only when discovery looks for a transcript (a chunk of its own in the build, since `ls` and
// `status` must not parse it on every run).
import fg from 'fast-glob'

export interface RecentFile {
  path: string
  mtimeMs: number
  size: number
}

/** Files under `cwd` matching `patterns`, modified at or after `since`, newest first. Never throws. */
export const findRecentFiles = async (cwd: string, patterns: readonly string[], since: number, deep?: number): Promise<RecentFile[]> => {
  const found = await fg([...patterns], {
    cwd,
    absolute: true,
    stats: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    ...(deep ? { deep } : {}),
  }).catch(() => [])
  return found
    .map((f) => ({ path: f.path, mtimeMs: f.stats?.mtimeMs ?? 0, size: f.stats?.size ?? 0 }))
    .filter((f) => f.mtimeMs >= since)
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
}
