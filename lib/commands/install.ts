import type { InstallArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runInstall = async (_args: InstallArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('install is not implemented yet')
}
export const runUninstall = async (_args: InstallArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('uninstall is not implemented yet')
}
