// Seen marks of waits on other hosts, kept here ($TRAILBOSS_HOME/remote/<hash>.seen.json, 0600):
// a remote session's id holds ':' and cannot name a file in seen/ (lib/queue/seen.ts), and the
// host's own marks are its person's there. One file per host maps the host's own session id to
// the `since` of the wait marked; a wait that began since is not seen (as for a local mark).
import { join } from 'node:path'
import type { Env } from '../paths.js'
import type { QueueItem } from '../queue/derive.js'
import { writeSeenMark } from '../queue/seen.js'
import { readRegularFile } from '../fs/safe-file.js'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { destinationHash } from './host-name.js'
import { remoteDir } from './last-answer.js'

export const REMOTE_SEEN_VERSION = 1
/** Marks kept per host: the newest waits; a host's queue is far shorter. */
export const REMOTE_SEEN_MAX = 500
const FILE_CAP = 256 * 1024

export const remoteSeenFile = (env: Env, destination: string): string => join(remoteDir(env), `${destinationHash(destination)}.seen.json`)

/** The host's marks: its own session id → the `since` of the wait seen; none when the file is not one of ours. */
export const readRemoteSeen = (env: Env, destination: string): Map<string, number> => {
  const out = new Map<string, number>()
  const got = readRegularFile(remoteSeenFile(env, destination), { cap: FILE_CAP, ownOnly: true })
  if (!got.ok) return out
  try {
    const data = JSON.parse(got.text) as { v?: unknown; destination?: unknown; marks?: unknown }
    if (data.v !== REMOTE_SEEN_VERSION || data.destination !== destination || typeof data.marks !== 'object' || data.marks === null)
      return out
    for (const [id, since] of Object.entries(data.marks)) if (typeof since === 'number') out.set(id, since)
  } catch {
    // Not JSON: no marks; the next mark replaces it.
  }
  return out
}

/** Pure: the marks with one more, the newest REMOTE_SEEN_MAX kept. */
export const deriveRemoteSeen = (marks: ReadonlyMap<string, number>, theirId: string, since: number): Map<string, number> => {
  const next = new Map(marks)
  next.set(theirId, since)
  return new Map([...next].sort((a, b) => b[1] - a[1]).slice(0, REMOTE_SEEN_MAX))
}

/** Marks the wait of the host's session `theirId` that began at `since` seen; false when it could not be written. */
export const writeRemoteSeen = (env: Env, destination: string, theirId: string, since: number): boolean => {
  const marks = deriveRemoteSeen(readRemoteSeen(env, destination), theirId, since)
  const data = { v: REMOTE_SEEN_VERSION, destination, marks: Object.fromEntries(marks) }
  return tryWriteHomeFile(env, remoteDir(env), remoteSeenFile(env, destination), JSON.stringify(data), '.remote-seen')
}

/** Pure: the items with those this machine marked seen (their wait's `since` unchanged) as seen. */
export const applyRemoteSeen = (items: QueueItem[], marks: ReadonlyMap<string, number>): QueueItem[] =>
  marks.size === 0 ? items : items.map((i) => (i.remote && !i.seen && marks.get(i.remote.sessionId) === i.since ? { ...i, seen: true } : i))

/** Marks a wait seen, here or on another host (watch's `a`); false when it could not be written. */
export const markWaitSeen = (env: Env, item: QueueItem, now: number): boolean =>
  item.remote
    ? writeRemoteSeen(env, item.remote.destination, item.remote.sessionId, item.since)
    : writeSeenMark(env, item.sessionId, { since: item.since, seenAt: now, activeAt: null })
