import type { GcArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runGc = async (_args: GcArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('gc is not implemented yet')
}
