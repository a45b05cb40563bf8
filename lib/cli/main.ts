// The entry: main(argv, io) returns the exit code; bin/main.ts turns it into the process exit.
// `ls`, `status` and `statusline` with plain arguments run from here (fast-args.ts); every other command
// line goes to the yargs wiring in yargs-wiring.ts, which the build keeps in a bundle of its
// own, so the frequent commands never load yargs, chokidar or the settings code.
import { EXIT_FAILURE, formatError, TrailbossError } from '../errors.js'
import { processIo, type Io } from '../io.js'
import { parseFast } from './fast-args.js'
import { LS_OPTIONS, STATUS_OPTIONS, STATUSLINE_OPTIONS } from '../options/tables.js'

/** `--agent`'s choices are the registered agents: an unknown one is yargs's to explain. */
const knownAgents = async (agents: readonly string[] | undefined): Promise<boolean> => {
  if (!agents?.length) return true
  const { AGENT_IDS } = await import('../agents/index.js')
  return agents.every((a) => AGENT_IDS.includes(a))
}

/** `ls` and `status` with plain arguments skip yargs (see fast-args.ts); null: use yargs. */
const runFast = async (argv: string[], io: Io): Promise<number | null> => {
  const [command, ...rest] = argv
  if (command === 'ls' || command === 'list') {
    const args = parseFast(rest, LS_OPTIONS)
    if (
      !args ||
      (args.plain && args.json) ||
      args.follow ||
      (args.readAt !== undefined && args.untilChange === undefined) ||
      (args.returnDigest && (!args.json || args.untilChange !== undefined)) ||
      !(await knownAgents(args.agent))
    )
      return null
    if (args.untilChange !== undefined) {
      // Claude Code's mod runs it again after each change: it skips yargs too, and loads only the
      // file watcher apart (dist/bin/full/chokidar.js), with --read-at not even that until the
      // folder is written. Misuse is yargs's to explain.
      if (!args.json || args.exitStatus || (args.readAt !== undefined && !/^\d{1,16}$/.test(args.readAt))) return null
      return (await import('../commands/ls-follow.js')).runLsFollow(args, io)
    }
    return (await import('../commands/ls.js')).runLs(args, io)
  }
  if (command === 'status') {
    const args = parseFast(rest, STATUS_OPTIONS)
    return args && (await knownAgents(args.agent)) ? (await import('../commands/status.js')).runStatus(args, io) : null
  }
  if (command === 'statusline') {
    const args = parseFast(rest, STATUSLINE_OPTIONS)
    return args ? (await import('../commands/statusline.js')).runStatusline(args, io) : null
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
  return (await import('./yargs-wiring.js')).runFull(argv, io)
}
