// Where a tmux client was before `go` or `next` moved it ($TRAILBOSS_HOME/back/<id>.json), so
// `back` can return it. One small file per client and server, replaced atomically (as the seen
// marks are): a client moves one way at a time, so no lock is needed.
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { type Env, trailbossHome } from '../paths.js'

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

/** Pure: a stored origin, or null when the text is not one. */
export const parseOrigin = (text: string): Origin | null => {
  try {
    const v = JSON.parse(text) as Record<string, unknown>
    if (typeof v !== 'object' || v === null) return null
    const { socket, client, pane, at } = v
    if (typeof socket !== 'string' || typeof client !== 'string' || typeof pane !== 'string' || !/^%\d+$/.test(pane) || typeof at !== 'number') return null
    return { socket, client, pane, at }
  } catch {
    return null
  }
}

export const readOrigin = (env: Env, socket: string, client: string): Origin | null => {
  const got = readRegularFile(originFile(env, socket, client), { cap: READ_CAP.state, ownOnly: true })
  const origin = got.ok ? parseOrigin(got.text) : null
  // A digest clash (or a file put there) must not send this client elsewhere.
  return origin && origin.socket === socket && origin.client === client ? origin : null
}

/** Remembers where the client was; false when it could not (the move itself still counts). */
export const writeOrigin = (env: Env, origin: Origin): boolean =>
  tryWriteHomeFile(env, originDir(env), originFile(env, origin.socket, origin.client), JSON.stringify(origin), '.back')
