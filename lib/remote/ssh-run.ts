// Placeholder until the ssh transport lands: `hosts rm` closes a host's ssh master through this.
import type { Env } from '../paths.js'

/** Ends the ssh master kept for `destination`; true when one was running. */
export const closeMaster = async (env: Env, destination: string): Promise<boolean> => {
  void env
  void destination
  return false
}
