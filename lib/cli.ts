// The entry: main(argv, io) returns the exit code; bin/trailboss.ts turns it into the process
// exit. `ls` and `status` with plain arguments run from here (fast-args.ts); every other
// command line goes to the yargs wiring in cli-full.ts, which the build keeps in a bundle of
// its own, so the frequent commands never load yargs, chokidar or the settings code.
import { EXIT_FAILURE, formatError, TrailbossError } from './errors.js'
import { processIo, type Io } from './io.js'

import { KINDS, LS_OPTIONS, SORTS, STATUS_OPTIONS } from './cli-options.js'
import { parseFast } from './fast-args.js'

export { KINDS, SORTS }
export const SCOPES = ['user', 'project', 'local'] as const

export interface LsArgs {
  all: boolean
  plain: boolean
  json: boolean
  kind: string[] | undefined
  project: string[] | undefined
  olderThan: string | undefined
  sort: (typeof SORTS)[number]
  exitStatus: boolean
}
export interface ShowArgs {
  target: string
  json: boolean
  screen: boolean
  lines: number
}
export interface GoArgs {
  target: string | undefined
  client: string | undefined
  print: boolean
}
export interface SendArgs {
  target: string
  text: string[]
  enter: boolean
}
export interface WatchArgs {
  all: boolean
  once: boolean
}
export interface StatusArgs {
  format: string | undefined
  tmux: boolean
}
export interface NotifyArgs {
  exec: string | undefined
  olderThan: string | undefined
  via: string[] | undefined
  dryRun: boolean
}
export interface InstallArgs {
  scope: (typeof SCOPES)[number]
  dryRun: boolean
}
export interface DoctorArgs {
  json: boolean
}
export interface GcArgs {
  olderThan: string
  dryRun: boolean
}

/** `ls` and `status` with plain arguments skip yargs (see fast-args.ts); null: use yargs. */
const runFast = async (argv: string[], io: Io): Promise<number | null> => {
  const [command, ...rest] = argv
  if (command === 'ls' || command === 'list') {
    const args = parseFast(rest, LS_OPTIONS)
    if (!args || (args.plain && args.json)) return null
    return (await import('./commands/ls.js')).runLs(args as unknown as LsArgs, io)
  }
  if (command === 'status') {
    const args = parseFast(rest, STATUS_OPTIONS)
    return args ? (await import('./commands/status.js')).runStatus(args as unknown as StatusArgs, io) : null
  }
  return null
}

export const main = async (argv: string[], io: Io = processIo()): Promise<number> => {
  try {
    const fast = await runFast(argv, io)
    if (fast !== null) return fast
  } catch (err) {
    io.stderr.write(`${formatError(err)}\n`)
    return err instanceof TrailbossError ? err.exitCode : EXIT_FAILURE
  }
  // Everything else goes through yargs, in its own bundle (dist/bin/full/), loaded only here.
  return (await import('./cli-full.js')).runFull(argv, io)
}
