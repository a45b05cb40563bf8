import type { WatchArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runWatch = async (_args: WatchArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('watch is not implemented yet')
}
