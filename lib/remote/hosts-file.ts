// The person's list of remote hosts: $TRAILBOSS_HOME/hosts.json, `{ "v": 1, "hosts": [...] }`
// (docs/design.md §10.2). Unlike a cache it is never repaired: a file we cannot read is said and
// left as it is, and no edit is written over it. Held to lib/schemas/caches.ts's hostsSchema by
// its compiled check (zod stays off the path of `ls`, which reads this list), and each name by
// checkDestination. Edits run under a lock and replace the file atomically.
import { checkHosts } from '../cache/check.generated.js'
import { EXIT_USAGE, TrailbossError } from '../errors.js'
import { deriveCacheProblem } from '../fs/cache-file.js'
import { deriveHomeProblem, FOREIGN_HOME_HINT } from '../fs/home-check.js'
import { writeHomeFile } from '../fs/home-file.js'
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../fs/private-dir.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { type Env, hostsFile, trailbossHome } from '../paths.js'

export { hostsFile }
import { checkDestination } from './host-name.js'

export const HOSTS_FILE_VERSION = 1
/** A holder refreshes its lock every half of this; a killed one's lock is taken over after it. */
export const HOSTS_LOCK_STALE_MS = 10_000
/** How long an edit waits for another one before giving up. */
export const HOSTS_LOCK_WAIT_MS = 10_000

export interface HostEntry {
  destination: string
  /** When `hosts add` listed it (ISO 8601). */
  addedAt: string
}

interface HostsDocument {
  v: typeof HOSTS_FILE_VERSION
  hosts: HostEntry[]
}

/** A name as an error quotes it: a refused one may be long. */
const quote = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s)

/** Pure: the hosts a file's text lists (each once, in its order), or why the text is not a list of ours. */
export const parseHostsFile = (text: string): HostEntry[] | string => {
  const got = deriveCacheProblem(text, checkHosts)
  if (got === 'not JSON') return got
  if (typeof got === 'string') return `not a hosts list of version ${HOSTS_FILE_VERSION}`
  const hosts: HostEntry[] = []
  for (const h of (got.data as HostsDocument).hosts) {
    // Written by hand, perhaps: a name ssh would take for an option never reaches it.
    const why = checkDestination(h.destination)
    if (why) return `lists ${quote(h.destination)}, which is not an ssh destination (${why})`
    if (!hosts.some((x) => x.destination === h.destination)) hosts.push({ destination: h.destination, addedAt: h.addedAt })
  }
  return hosts
}

/** The listed hosts with when each was added; a file that cannot be used gives none and says why. Never throws. */
export const readHostEntries = (env: Env): { hosts: HostEntry[]; problem: string | null } => {
  const file = hostsFile(env)
  try {
    // Only a regular file of our own, never through a link.
    const got = readRegularFile(file, { cap: READ_CAP.state, ownOnly: true })
    if (!got.ok) return { hosts: [], problem: got.missing ? null : `${file}: ${got.why}` }
    const hosts = parseHostsFile(got.text)
    return typeof hosts === 'string' ? { hosts: [], problem: `${file}: ${hosts}` } : { hosts, problem: null }
  } catch (err) {
    return { hosts: [], problem: `${file}: ${(err as Error).message}` }
  }
}

/** The listed destinations; a file that cannot be used gives none and says why. Never throws. */
export const readHosts = (env: Env): { hosts: string[]; problem: string | null } => {
  const { hosts, problem } = readHostEntries(env)
  return { hosts: hosts.map((h) => h.destination), problem }
}

const refuseBadName = (destination: string): void => {
  const why = checkDestination(destination)
  if (why) {
    throw new TrailbossError(
      `${quote(destination)} is not an ssh destination (${why})`,
      'give it as ssh takes it: host, user@host, or a Host of your ssh config',
      EXIT_USAGE,
    )
  }
}

/**
 * Runs `edit` on the listed hosts under the file's lock and writes the list it returns (null:
 * nothing to write). A file that cannot be used is refused, never written over. `undone` says
 * what did not happen, for errors.
 */
const editHosts = async <T>(
  env: Env,
  undone: string,
  edit: (hosts: HostEntry[]) => { next: HostEntry[] | null; result: T },
): Promise<T> => {
  const home = trailbossHome(env)
  const file = hostsFile(env)
  const foreign = deriveHomeProblem(env)
  if (foreign) throw new TrailbossError(`${foreign.folder} ${foreign.why}; ${undone}`, FOREIGN_HOME_HINT)
  // Loaded here: readHosts is on the path of `ls`, which has no use for proper-lockfile.
  const { describeWriteError, lockNow } = await import('../fs/lock-now.js')
  let release: () => Promise<void>
  try {
    ensurePrivateDir(home)
    release = await lockNow(file, {
      realpath: false,
      stale: HOSTS_LOCK_STALE_MS,
      update: HOSTS_LOCK_STALE_MS / 2,
      retries: { retries: 1000, factor: 1.3, minTimeout: 5, maxTimeout: 200, randomize: true, maxRetryTime: HOSTS_LOCK_WAIT_MS },
    })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new TrailbossError(`another trailboss has held ${file}.lock for over ${HOSTS_LOCK_WAIT_MS / 1000} s; ${undone}`, 'try again')
    }
    throw new TrailbossError(`cannot write in ${home} (${describeWriteError(err)}); ${undone}`, 'point TRAILBOSS_HOME at a writable folder')
  }
  try {
    const got = readHostEntries(env)
    if (got.problem) throw new TrailbossError(`${got.problem}; ${undone}`, `the file is left as it is: fix it or move it away`)
    const { next, result } = edit(got.hosts)
    if (next) {
      const doc: HostsDocument = { v: HOSTS_FILE_VERSION, hosts: next }
      // The person's own list: flushed to disk, like their settings.
      writeHomeFile(env, home, file, `${JSON.stringify(doc, null, 2)}\n`, '.hosts', { mode: PRIVATE_FILE_MODE, durable: true })
    }
    return result
  } finally {
    await release().catch(() => {})
  }
}

/** Lists `destination` (checked first: a bad name is a usage error); 'present' when it was already. */
export const addHost = async (env: Env, destination: string, now: number = Date.now()): Promise<'added' | 'present'> => {
  refuseBadName(destination)
  return editHosts(env, `${destination} was not added`, (hosts) =>
    hosts.some((h) => h.destination === destination)
      ? { next: null, result: 'present' as const }
      : { next: [...hosts, { destination, addedAt: new Date(now).toISOString() }], result: 'added' as const },
  )
}

/** Takes `destination` off the list; 'absent' when it was not on it. */
export const removeHost = async (env: Env, destination: string): Promise<'removed' | 'absent'> => {
  refuseBadName(destination)
  return editHosts(env, `${destination} was not removed`, (hosts) =>
    hosts.some((h) => h.destination === destination)
      ? { next: hosts.filter((h) => h.destination !== destination), result: 'removed' as const }
      : { next: null, result: 'absent' as const },
  )
}
