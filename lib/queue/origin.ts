// Where a tmux client was before `go` or `next` moved it ($TRAILBOSS_HOME/back/<id>.json), so
// `back` can return it. One small file per client and server, replaced atomically (as the seen
// marks are): a client moves one way at a time, so no lock is needed.
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { checkOrigin } from '../cache/check.generated.js'
import { type CacheFile, deriveCacheProblem, readCache, writeCache } from '../fs/cache-file.js'
import { type Env, trailbossHome } from '../paths.js'

/** Bumped when what the file holds changes: a file of another version is none (lib/schemas/caches.ts). */
export const ORIGIN_VERSION = 1

export interface Origin {
  socket: string
  client: string
  /** The pane the client showed before it moved. */
  pane: string
  at: number
}

export const originDir = (env: Env): string => join(trailbossHome(env), 'back')

/** A client's name is a tty path: the file is named by a digest of it and its server, never by it. */
const originFile = (env: Env, socket: string, client: string): string =>
  join(originDir(env), `${createHash('sha256').update(`${socket}\n${client}`).digest('hex').slice(0, 24)}.json`)

const toOrigin = (file: (Origin & { v: number }) | null): Origin | null =>
  file && { socket: file.socket, client: file.client, pane: file.pane, at: file.at }

/** Pure: a stored origin, or null when the text is not one of this version. */
export const parseOrigin = (text: string): Origin | null => {
  const got = deriveCacheProblem(text, checkOrigin)
  return typeof got === 'object' ? toOrigin(got.data as Origin & { v: number }) : null
}

const originCache = (env: Env, socket: string, client: string): CacheFile => ({
  file: originFile(env, socket, client),
  dir: originDir(env),
  check: checkOrigin,
  tmpPrefix: '.back',
})

export const readOrigin = (env: Env, socket: string, client: string): Origin | null => {
  const origin = toOrigin(readCache<Origin & { v: number }>(env, originCache(env, socket, client)).value)
  // A digest clash (or a file put there) must not send this client elsewhere.
  return origin && origin.socket === socket && origin.client === client ? origin : null
}

/** Remembers where the client was; false when it could not (the move itself still counts). */
export const writeOrigin = (env: Env, origin: Origin): boolean =>
  writeCache(env, originCache(env, origin.socket, origin.client), JSON.stringify({ v: ORIGIN_VERSION, ...origin }))
