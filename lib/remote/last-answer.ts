// The last good answer of each host ($TRAILBOSS_HOME/remote/<hash>.json, 0600): what a host that
// does not answer now is shown as (stale), and what `status` and `statusline` read between
// refreshes. It is the host's checked listing and when it came; it is checked again on read.
// The same file keeps when a read of the host last failed, so that the surfaces that run every
// few seconds do not try a dead host again within their refresh gap (cached-fleet.ts).
import { join } from 'node:path'
import { type Env, trailbossHome } from '../paths.js'
import { listRealDir, removeOwnFile } from '../fs/own-files.js'
import { readRegularFile } from '../fs/safe-file.js'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { checkRemoteAnswer, type RemoteListing } from './answer.js'
import { destinationHash } from './host-name.js'
import { SSH_MAX_ANSWER_BYTES } from './ssh-args.js'

export const LAST_ANSWER_VERSION = 1

export interface LastAnswer {
  /** When the host gave it (ms since the epoch, this machine's clock). */
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

/** The host's last good answer and last failure; a file that is not one holds neither (the next write replaces it). */
export const readHostCache = async (env: Env, destination: string): Promise<HostCache> => {
  const none: HostCache = { answer: null, failed: null }
  const got = readRegularFile(lastAnswerFile(env, destination), { cap: SSH_MAX_ANSWER_BYTES + 4096, ownOnly: true })
  if (!got.ok) return none
  try {
    const data = JSON.parse(got.text) as { v?: unknown; destination?: unknown; at?: unknown; listing?: unknown; failed?: unknown }
    if (data.v !== LAST_ANSWER_VERSION || data.destination !== destination) return none
    const f = data.failed as { at?: unknown; why?: unknown } | null | undefined
    const failed = f && typeof f.at === 'number' && typeof f.why === 'string' ? { at: f.at, why: f.why.slice(0, 500) } : null
    if (typeof data.at !== 'number') return { answer: null, failed }
    const checked = await checkRemoteAnswer(JSON.stringify(data.listing))
    return { answer: checked.ok ? { at: data.at, listing: checked.listing } : null, failed }
  } catch {
    return none
  }
}

/** The host's last good answer, or null (none, or a file that is not one: it is replaced by the next). */
export const readLastAnswer = async (env: Env, destination: string): Promise<LastAnswer | null> =>
  (await readHostCache(env, destination)).answer

const writeHostCache = (env: Env, destination: string, cache: HostCache): boolean =>
  tryWriteHomeFile(
    env,
    remoteDir(env),
    lastAnswerFile(env, destination),
    JSON.stringify({
      v: LAST_ANSWER_VERSION,
      destination,
      ...(cache.answer ? { at: cache.answer.at, listing: cache.answer.listing } : {}),
      ...(cache.failed ? { failed: cache.failed } : {}),
    }),
    '.remote',
  )

/** Keeps a host's answer (and forgets its last failure); false when it could not be written (a cache: nothing else breaks). */
export const writeLastAnswer = (env: Env, destination: string, answer: LastAnswer): boolean =>
  writeHostCache(env, destination, { answer, failed: null })

/** Notes a read that gave no answer, keeping the last good one to show meanwhile. */
export const writeFailedRead = (env: Env, destination: string, failed: FailedRead, answer: LastAnswer | null): boolean =>
  writeHostCache(env, destination, { answer, failed })

/** The names of the regular files in the folder of kept answers (never through a link); none when it is not a real folder. */
export const listLastAnswerNames = (env: Env): string[] => listRealDir(remoteDir(env)).flatMap((e) => (e.isFile() ? [e.name] : []))

/** Removes one kept answer by its name in that folder (a regular file only); whether it did. */
export const removeLastAnswer = (env: Env, name: string): boolean => removeOwnFile(join(remoteDir(env), name))
