// Wait numbers that stay put ($TRAILBOSS_HOME/numbers.json, docs/queue.md): like a shell's job
// numbers, a wait keeps its number for as long as it waits, in every command and surface, and a
// number freed by a wait that ended is not given to another wait for NUMBER_HOLD_MS, so a number
// read from a listing can name another wait only once that listing is older than that.
// A wait is a session's wait that began at `since`: a new wait of the same session is another
// wait and gets another number. The pure part (deriveNumbering) decides; the book is read
// without a lock, and written only when it changed, under a lock held at most LOCK_BUDGET_MS.
import { join } from 'node:path'
import { checkNumbers } from '../cache/check.generated.js'
import { type CacheFile, deriveCacheProblem, readCache } from '../fs/cache-file.js'
import { type Env, trailbossHome } from '../paths.js'

/** A number freed by a wait that ended is given to no other wait for this long. */
export const NUMBER_HOLD_MS = 10 * 60_000
/** The book's format; a book of another version is none. */
export const NUMBERS_VERSION = 1

export interface NumberEntry {
  n: number
  sessionId: string
  /** The `since` of the wait that holds (or held) the number. */
  since: number
  /** When a reader found the wait ended; null while it waits. */
  freedAt: number | null
}

/** A wait as the numbering sees it. */
export interface NumberedWait {
  sessionId: string
  since: number
}

export interface Numbering {
  /** The number of each wait, by waitKey. */
  numbers: Map<string, number>
  /** The book after this look, to write when `changed`. */
  entries: NumberEntry[]
  changed: boolean
}

export const numbersFile = (env: Env): string => join(trailbossHome(env), 'numbers.json')

/** The identity of a wait: the session and when this wait of it began. */
export const waitKey = (w: NumberedWait): string => `${w.sessionId}\n${w.since}`

/** Pure: the entries of a book that passed its check; a number held twice is kept once (the first). */
const toEntries = (book: { waits: NumberEntry[] } | null): NumberEntry[] => {
  const used = new Set<number>()
  return (book?.waits ?? []).filter((e) => !used.has(e.n) && used.add(e.n))
}

/** Pure: the book's entries, or none for a file that is not a book of this version (it is then rewritten). */
export const parseNumbers = (text: string): NumberEntry[] => {
  const got = deriveCacheProblem(text, checkNumbers)
  return toEntries(typeof got === 'object' ? (got.data as { waits: NumberEntry[] }) : null)
}

export const formatNumbers = (entries: readonly NumberEntry[]): string =>
  JSON.stringify({ v: NUMBERS_VERSION, waits: [...entries].sort((a, b) => a.n - b.n) })

/**
 * Pure: numbers for `waits` (in queue order: a new wait takes the lowest free number, so waits
 * first seen together are numbered in their order). A wait in the book keeps its number (an entry
 * freed by a reader that missed it is taken back); a held number whose wait is not among `waits`
 * is freed now; a freed number is given to no other wait until NUMBER_HOLD_MS after it was freed.
 * An entry stamped after `now` was stamped before the clock stepped back: its hold is over.
 * `unread` names the sessions of hosts this run did not read (lib/remote/): their entries stay
 * as they are.
 */
export const deriveNumbering = (
  book: readonly NumberEntry[],
  waits: readonly NumberedWait[],
  now: number,
  holdMs = NUMBER_HOLD_MS,
  unread: (sessionId: string) => boolean = () => false,
): Numbering => {
  const current = new Set(waits.map(waitKey))
  const entries: NumberEntry[] = []
  let changed = false
  for (const e of book) {
    // A wait of a host this run did not read is not over because it is not among `waits`.
    if (!current.has(waitKey(e)) && unread(e.sessionId)) entries.push(e)
    else if (current.has(waitKey(e))) {
      if (e.freedAt !== null) changed = true
      entries.push(e.freedAt === null ? e : { ...e, freedAt: null })
    } else if (e.freedAt === null) {
      changed = true
      entries.push({ ...e, freedAt: now })
    } else if (e.freedAt <= now && now - e.freedAt < holdMs) entries.push(e)
    else changed = true
  }
  const numbers = new Map(entries.filter((e) => e.freedAt === null).map((e) => [waitKey(e), e.n]))
  const taken = new Set(entries.map((e) => e.n))
  let next = 1
  for (const w of waits) {
    const key = waitKey(w)
    if (numbers.has(key)) continue
    while (taken.has(next)) next++
    taken.add(next)
    numbers.set(key, next)
    entries.push({ n: next, sessionId: w.sessionId, since: w.since, freedAt: null })
    changed = true
  }
  return { numbers, entries, changed }
}

const numbersCache = (env: Env): CacheFile => ({
  file: numbersFile(env),
  dir: trailbossHome(env),
  check: checkNumbers,
  tmpPrefix: '.numbers',
})

/**
 * The book as it is on disk (no lock: it is replaced atomically); none when missing or not ours.
 * A bad book is said once (by the reader without the lock) and rewritten by its one writer,
 * under the lock (numbers-write.ts): `bad` tells it to.
 */
export const readNumbers = (env: Env, opts: { underLock?: boolean } = {}): { entries: NumberEntry[]; bad: boolean } => {
  const got = readCache<{ waits: NumberEntry[] }>(env, numbersCache(env), { repair: false, log: opts.underLock !== true })
  return { entries: toEntries(got.value), bad: got.bad !== null }
}

/** The host a numbered session belongs to: `devbox` of `devbox:<id>`; null for this machine's. */
export const numberedHost = (sessionId: string): string | null => {
  const at = sessionId.lastIndexOf(':')
  return at < 0 ? null : sessionId.slice(0, at)
}

/** Pure: `unread` for deriveNumbering: the sessions of every host but those read (`read`). */
export const unreadHosts =
  (read: readonly string[]): ((sessionId: string) => boolean) =>
  (sessionId) => {
    const host = numberedHost(sessionId)
    return host !== null && !read.includes(host)
  }
