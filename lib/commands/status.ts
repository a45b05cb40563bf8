import type { StatusArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runStatus = async (_args: StatusArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('status is not implemented yet')
}
