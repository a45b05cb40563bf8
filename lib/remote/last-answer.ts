// The last good answer of each host ($TRAILBOSS_HOME/remote/<hash>.json, 0600): what a host that
// does not answer now is shown as (stale), and what `status` and `statusline` read between
// refreshes. It is the host's checked listing and when it came; it is checked again on read.
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

/** The host's last good answer, or null (none, or a file that is not one: it is replaced by the next). */
export const readLastAnswer = (env: Env, destination: string): LastAnswer | null => {
  const got = readRegularFile(lastAnswerFile(env, destination), { cap: SSH_MAX_ANSWER_BYTES + 4096, ownOnly: true })
  if (!got.ok) return null
  try {
    const data = JSON.parse(got.text) as { v?: unknown; destination?: unknown; at?: unknown; listing?: unknown }
    if (data.v !== LAST_ANSWER_VERSION || data.destination !== destination || typeof data.at !== 'number') return null
    const checked = checkRemoteAnswer(JSON.stringify(data.listing))
    return checked.ok ? { at: data.at, listing: checked.listing } : null
  } catch {
    return null
  }
}

/** Keeps a host's answer; false when it could not be written (a cache: nothing else breaks). */
export const writeLastAnswer = (env: Env, destination: string, answer: LastAnswer): boolean =>
  tryWriteHomeFile(
    env,
    remoteDir(env),
    lastAnswerFile(env, destination),
    JSON.stringify({ v: LAST_ANSWER_VERSION, destination, at: answer.at, listing: answer.listing }),
    '.remote',
  )

/** The names of the regular files in the folder of kept answers (never through a link); none when it is not a real folder. */
export const listLastAnswerNames = (env: Env): string[] => listRealDir(remoteDir(env)).flatMap((e) => (e.isFile() ? [e.name] : []))

/** Removes one kept answer by its name in that folder (a regular file only); whether it did. */
export const removeLastAnswer = (env: Env, name: string): boolean => removeOwnFile(join(remoteDir(env), name))
