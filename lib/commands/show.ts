import type { ShowArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runShow = async (_args: ShowArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('show is not implemented yet')
}
