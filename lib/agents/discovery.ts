// The pieces each agent's discovery (lib/agents/<id>/discovery.ts) is made of: how its process
// looks, and the newest of its transcripts that a process may be writing.
import { basename } from 'node:path'
import type { RecentFile } from '../fs/find-recent.js'

/**
 * Pure: a process is the agent when it calls itself `name`, runs a `…/bin/<name>` launcher, or
 * has Node run the agent package's entry (`packageEntry`, matched against the first arguments).
 */
export const isProcessNamed = (name: string, packageEntry: RegExp): ((comm: string, argv: readonly string[]) => boolean) => {
  // Agent names are plain words: nothing in them to escape.
  const launcher = new RegExp(`/bin/${name}$`)
  return (comm, argv) =>
    comm === name || basename(argv[0] ?? '') === name || argv.slice(0, 3).some((a) => packageEntry.test(a) || launcher.test(a))
}

/**
 * The first of the files under `dir` matching `patterns`, modified since `since`, newest first,
 * that `pick` makes something of. fast-glob is loaded here only, when a process has no record.
 */
export const findNewestFile = async <T>(
  dir: string,
  patterns: readonly string[],
  since: number,
  deep: number | undefined,
  pick: (file: RecentFile) => T | null,
): Promise<T | null> => {
  const { findRecentFiles } = await import('../fs/find-recent.js')
  for (const f of await findRecentFiles(dir, patterns, since, deep)) {
    const found = pick(f)
    if (found !== null) return found
  }
  return null
}
