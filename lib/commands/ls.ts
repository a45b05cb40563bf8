import type { LsArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runLs = async (_args: LsArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('ls is not implemented yet')
}
