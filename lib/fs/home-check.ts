// Whether $TRAILBOSS_HOME may be used at all. A folder of another user may hold whatever they
// planted (a `log` link into one of our files, records that put commands on our screen), and
// what we write there they could read: such a home is refused for every read of records and
// every write, the log included. Light: the emitter checks it before its first write.
import { sessionsDir, trailbossHome, type Env } from '../paths.js'
import { checkOwnFolder } from './safe-file.js'

/** What the person should do about a refused home. */
export const FOREIGN_HOME_HINT =
  'nothing is read or written there; point TRAILBOSS_HOME at a folder of your own (trailboss doctor explains)'

export interface HomeProblem {
  folder: string
  why: string
}

/** Why $TRAILBOSS_HOME (or its sessions folder) may not be used, or null when it may. */
export const deriveHomeProblem = (env: Env): HomeProblem | null => {
  for (const folder of [trailbossHome(env), sessionsDir(env)]) {
    const why = checkOwnFolder(folder)
    if (why) return { folder, why }
  }
  return null
}

/** The one line that says so. */
export const formatHomeProblem = (p: HomeProblem): string => `${p.folder} ${p.why} — ${FOREIGN_HOME_HINT}`
