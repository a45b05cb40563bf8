// The last good answer of each host ($TRAILBOSS_HOME/remote/<hash>.json, 0600): what a host that
// does not answer now is shown as (stale), and what `status` and `statusline` read between
// refreshes. It is the host's checked listing and when it came; it is checked again on read.
// The same file keeps when a read of the host last failed, so that the surfaces that run every
// few seconds do not try a dead host again within their refresh gap (cached-fleet.ts).
// An answer like the one kept is not written again: the file's mtime is moved to the new answer's
// time instead, and is when the kept queue was last confirmed (every `ls` would rewrite up to
// 4 MB per host otherwise).
import { futimesSync } from 'node:fs'
import { join } from 'node:path'
import { type Env, trailbossHome } from '../paths.js'
import { listRealDir, removeOwnFile } from '../fs/own-files.js'
import { readRange, readRegularFile, withRegularFile } from '../fs/safe-file.js'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { checkRemoteAnswer, type RemoteListing } from './answer.js'
import { destinationHash } from './host-name.js'
import { SSH_MAX_ANSWER_BYTES } from './ssh-args.js'

export const LAST_ANSWER_VERSION = 1

export interface LastAnswer {
  /** When the host last gave it (ms since the epoch, this machine's clock). */
  at: number
  listing: RemoteListing
}

export const remoteDir = (env: Env): string => join(trailbossHome(env), 'remote')

export const lastAnswerFile = (env: Env, destination: string): string => join(remoteDir(env), `${destinationHash(destination)}.json`)

/** A read of the host that gave no answer: when, and why (plain text). */
export interface FailedRead {
  at: number
  why: string
}

/** What the file holds for a host: its last good answer and its last failed read, each or neither. */
export interface HostCache {
  answer: LastAnswer | null
  failed: FailedRead | null
}

const FILE_CAP = SSH_MAX_ANSWER_BYTES + 4096

interface KeptFile {
  v?: unknown
  destination?: unknown
  at?: unknown
  sum?: unknown
  listing?: unknown
  failed?: unknown
}

// node:crypto is loaded when the first answer comes, not before ssh starts (it costs a few ms).
/** Pure: a short sum of a listing as written, to tell the same answer again without comparing it whole. */
export const deriveListingSum = (listingText: string): string =>
  process.getBuiltinModule('node:crypto').createHash('sha256').update(listingText).digest('hex').slice(0, 16)

/**
 * Pure: when the kept answer was last given. Without a failure noted, the file is untouched since
 * its last answer, whose time its mtime holds (set on every answer, written or not); a failure
 * rewrites the file, and then `at` in it says (the failure wrote the answer's time there).
 */
export const deriveAnswerAt = (at: number, mtimeMs: number, failed: boolean): number => (failed ? at : Math.round(mtimeMs))

/** The host's last good answer and last failure; a file that is not one holds neither (the next write replaces it). */
export const readHostCache = async (env: Env, destination: string): Promise<HostCache> => {
  const none: HostCache = { answer: null, failed: null }
  const got = readRegularFile(lastAnswerFile(env, destination), { cap: FILE_CAP, ownOnly: true })
  if (!got.ok) return none
  try {
    const data = JSON.parse(got.text) as KeptFile
    if (data.v !== LAST_ANSWER_VERSION || data.destination !== destination) return none
    const f = data.failed as { at?: unknown; why?: unknown } | null | undefined
    const failed = f && typeof f.at === 'number' && typeof f.why === 'string' ? { at: f.at, why: f.why.slice(0, 500) } : null
    if (typeof data.at !== 'number') return { answer: null, failed }
    const checked = await checkRemoteAnswer(JSON.stringify(data.listing))
    const at = deriveAnswerAt(data.at, got.st.mtimeMs, failed !== null)
    return { answer: checked.ok ? { at, listing: checked.listing } : null, failed }
  } catch {
    return none
  }
}

/** The host's last good answer, or null (none, or a file that is not one: it is replaced by the next). */
export const readLastAnswer = async (env: Env, destination: string): Promise<LastAnswer | null> =>
  (await readHostCache(env, destination)).answer

/** Sets the file's times to `at` (through the descriptor: never through a link); whether it did. */
const touchAt = (fd: number, at: number): boolean => {
  try {
    futimesSync(fd, at / 1000, at / 1000)
    return true
  } catch {
    return false
  }
}

const writeHostCache = (env: Env, destination: string, cache: HostCache, listingText?: string): boolean => {
  const file = lastAnswerFile(env, destination)
  const text = cache.answer ? (listingText ?? JSON.stringify(cache.answer.listing)) : null
  const written = tryWriteHomeFile(
    env,
    remoteDir(env),
    file,
    JSON.stringify({
      v: LAST_ANSWER_VERSION,
      destination,
      ...(cache.answer && text !== null ? { at: cache.answer.at, sum: deriveListingSum(text), listing: cache.answer.listing } : {}),
      ...(cache.failed ? { failed: cache.failed } : {}),
    }),
    '.remote',
  )
  // The mtime of a file with only an answer is that answer's time (deriveAnswerAt), on this clock.
  if (written && cache.answer && !cache.failed) withRegularFile(file, { ownOnly: true }, (fd) => touchAt(fd, cache.answer?.at ?? 0))
  return written
}

/**
 * When the file already keeps this very answer (same sum) and no failure since, moves its mtime to
 * `at` and says true; the file is then left as it is.
 */
const confirmKept = (env: Env, destination: string, sum: string, at: number): boolean => {
  const got = withRegularFile(lastAnswerFile(env, destination), { ownOnly: true }, (fd, st) => {
    if (st.size > FILE_CAP) return false
    const data = JSON.parse(readRange(fd, 0, st.size).toString('utf8')) as KeptFile
    const same =
      data.v === LAST_ANSWER_VERSION &&
      data.destination === destination &&
      typeof data.at === 'number' &&
      data.sum === sum &&
      (data.failed === undefined || data.failed === null)
    return same && touchAt(fd, at)
  })
  return got === true
}

/**
 * Keeps a host's answer (and forgets its last failure); false when it could not be written (a
 * cache: nothing else breaks). The same answer as the one kept only moves the file's mtime.
 */
export const writeLastAnswer = (env: Env, destination: string, answer: LastAnswer): boolean => {
  const listingText = JSON.stringify(answer.listing)
  try {
    if (confirmKept(env, destination, deriveListingSum(listingText), answer.at)) return true
  } catch {
    // A file that is not JSON is replaced below.
  }
  return writeHostCache(env, destination, { answer, failed: null }, listingText)
}

/** Notes a read that gave no answer, keeping the last good one to show meanwhile. */
export const writeFailedRead = (env: Env, destination: string, failed: FailedRead, answer: LastAnswer | null): boolean =>
  writeHostCache(env, destination, { answer, failed })

/** The names of the regular files in the folder of kept answers (never through a link); none when it is not a real folder. */
export const listLastAnswerNames = (env: Env): string[] => listRealDir(remoteDir(env)).flatMap((e) => (e.isFile() ? [e.name] : []))

/** Removes one kept answer by its name in that folder (a regular file only); whether it did. */
export const removeLastAnswer = (env: Env, name: string): boolean => removeOwnFile(join(remoteDir(env), name))
