import type { GoArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runGo = async (_args: GoArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('go is not implemented yet')
}
