// Ends the shared ssh connection of every listed host (`ssh -O exit`), for `gc` and `uninstall`:
// a master is the one process of ours that may outlive a command (docs/design.md §10.1), and
// a person cleaning up or leaving should not have to wait for it to end by itself.
import type { Env } from '../paths.js'
import { readHosts } from './hosts-file.js'
import { closeMaster } from './ssh-run.js'

/** All at once; the destinations whose master ran and was ended, in the list's order. Never throws. */
export const closeHostMasters = async (env: Env): Promise<string[]> => {
  const { hosts } = readHosts(env)
  const closed = await Promise.all(hosts.map(async (d) => ((await closeMaster(env, d)) ? d : null)))
  return closed.filter((d): d is string => d !== null)
}
