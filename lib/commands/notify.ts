import type { NotifyArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runNotify = async (_args: NotifyArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('notify is not implemented yet')
}
