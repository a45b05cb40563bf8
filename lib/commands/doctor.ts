import type { DoctorArgs } from '../cli.js'
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const runDoctor = async (_args: DoctorArgs, _io: Io): Promise<number> => {
  throw new TrailbossError('doctor is not implemented yet')
}
