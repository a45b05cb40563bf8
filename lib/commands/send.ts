import type { SendArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runSend = async (_args: SendArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('send is not implemented yet')
}
