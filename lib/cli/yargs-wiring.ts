// yargs wiring of every command, with help and usage errors. Each command's module is imported
// only when that command runs.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Argv } from 'yargs'
import { findPackageRoot } from '../settings/package-root.js'
import { AGENT_IDS } from '../agents/index.js'
import {
  ANSWER_OPTIONS,
  BACK_OPTIONS,
  DOCTOR_OPTIONS,
  GC_OPTIONS,
  GO_OPTIONS,
  INSTALL_OPTIONS,
  LS_OPTIONS,
  NOTIFY_OPTIONS,
  SEND_OPTIONS,
  SHOW_OPTIONS,
  STATUS_OPTIONS,
  STATUSLINE_OPTIONS,
  toYargsOptions,
  UNINSTALL_OPTIONS,
  WATCH_OPTIONS,
  type AnswerArgs,
  type AckArgs,
  type BackArgs,
  type DoctorArgs,
  type GcArgs,
  type GoArgs,
  type InstallArgs,
  type LsArgs,
  type NotifyArgs,
  type SendArgs,
  type ShowArgs,
  type StatusArgs,
  type StatuslineArgs,
  type WatchArgs,
} from './options.js'
import { TABLE_LEGEND } from '../render/queue-table.js'
import { EXIT_FAILURE, EXIT_USAGE, formatError, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { formatUsageFailure } from './usage-failure.js'

type Handler<A> = (args: A, io: Io) => Promise<number>

/** Put in by the build (scripts/build.mjs): a bundle cannot find package.json the way yargs looks for it. */
declare const __TRAILBOSS_VERSION__: string | undefined
/** From source (tests that import the wiring), the package.json of this checkout. */
const version = (): string => {
  if (typeof __TRAILBOSS_VERSION__ === 'string') return __TRAILBOSS_VERSION__
  const root = findPackageRoot(fileURLToPath(import.meta.url))
  try {
    return root ? String((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown') : 'unknown'
  } catch {
    return 'unknown'
  }
}


const EPILOG = `Exit codes: 0 ok (also for an empty queue), 1 failure, 2 usage error; ls --exit-status: 3 when nothing needs you.
Environment: TRAILBOSS_HOME (default ~/.trailboss), CLAUDE_CONFIG_DIR (default ~/.claude), NO_COLOR, TRAILBOSS_ALLOW_SEND=1.`

/** What a command's <target> may be. */
const TARGET_WORDS = 'wait number (kept while it waits), key, session-id prefix or pane id (%12)'

/** `ok` and `no` take the same target and options: only the key they press differs. */
const answerOptions = (y: Argv) =>
  y
    .positional('target', { type: 'string', demandOption: true, describe: TARGET_WORDS })
    .options(toYargsOptions(ANSWER_OPTIONS))
    .choices('agent', AGENT_IDS)

/** What `ok` and `no` say of themselves, with the dialog's option each presses. */
const answerDescription = (option: string): string =>
  `press a permission dialog's "${option}" from the queue, only if the pane still shows that very dialog and its command is exactly the recorded one (exact match; needs TRAILBOSS_ALLOW_SEND=1)`

const buildParser = async (argv: string[], io: Io, setCode: (code: number) => void): Promise<Argv> => {
  // Loaded here, not at the top: the fast path of ls and status never needs it.
  const { default: yargs } = await import('yargs')
  const run =
    <A>(load: () => Promise<Handler<A>>) =>
    async (args: unknown): Promise<void> => {
      setCode(await (await load())(args as A, io))
    }
  return yargs(argv)
    .scriptName('trailboss')
    .usage('$0 <command> [options]\n\nWho is waiting on me, what do they want, take me there.')
    .command(
      ['ls', 'list'],
      'the queue of sessions waiting on you, oldest first',
      (y) =>
        y
          .options(toYargsOptions(LS_OPTIONS))
          .choices('agent', AGENT_IDS)
          .check((a) => !(a.plain && a.json) || 'choose one of --plain and --json')
          .check((a) => !a.follow || (a.json && !a.exitStatus) || '--follow goes with --json (and not --exit-status)')
          .check((a) => a.untilChange === undefined || (a.json && !a.follow && !a.exitStatus) || '--until-change goes with --json (and not --follow or --exit-status)')
          .check((a) => a.readAt === undefined || (a.untilChange !== undefined && /^\d{1,16}$/.test(String(a.readAt))) || '--read-at goes with --until-change and takes ms since the epoch')
          .example('$0 ls', 'the queue as a table')
          .example("$0 ls --plain | fzf --preview 'trailboss show {1}' | cut -f1 | xargs -r trailboss go", 'pick a wait and jump there')
          .example('$0 ls --json --exit-status', 'for scripts and cron')
          .example('$0 ls --json --follow', 'the queue, then again on each change (one JSON document a line)')
          .example('$0 ls --json --until-change 3f9c0a1b2c3d4e5f', 'wait until the queue differs from the one with that digest, print it, exit')
          .epilog(`The table:\n${TABLE_LEGEND}`),
      run<LsArgs>(async () => {
        const ls = await import('../commands/ls.js')
        return (args, io) =>
          args.follow || args.untilChange !== undefined ? import('../commands/ls-follow.js').then((f) => f.runLsFollow(args, io)) : ls.runLs(args, io)
      }),
    )
    .command(
      'show <target>',
      'everything about one wait: message or tool input, transcript tail, live screen',
      (y) =>
        y
          .positional('target', { type: 'string', demandOption: true, describe: TARGET_WORDS })
          .options(toYargsOptions(SHOW_OPTIONS))
          .choices('agent', AGENT_IDS),
      run<ShowArgs>(async () => (await import('../commands/show.js')).runShow),
    )
    .command(
      'go [target]',
      'take your tmux client to a waiting pane (default: the oldest wait)',
      (y) =>
        y
          .positional('target', { type: 'string', describe: TARGET_WORDS })
          .options(toYargsOptions(GO_OPTIONS))
          .choices('agent', AGENT_IDS),
      run<GoArgs>(async () => (await import('../commands/go.js')).runGo),
    )
    .command(
      'next',
      'go to the next wait after the one you are in (those that need you first, wrapping)',
      (y) =>
        y
          .options(toYargsOptions(GO_OPTIONS))
          .example(`$0 next`, 'from a pane: the wait after this one')
          .example(`tmux bind-key N run-shell "trailboss next --client '#{client_name}' || true"`, 'one key through the queue'),
      run<GoArgs>(async () => (await import('../commands/next.js')).runNext),
    )
    .command(
      'back',
      'return your tmux client to where it was before the last go or next',
      (y) =>
        y
          .options(toYargsOptions(BACK_OPTIONS))
          .example(`tmux bind-key B run-shell "trailboss back --client '#{client_name}' || true"`, 'a key back'),
      run<BackArgs>(async () => (await import('../commands/next.js')).runBack),
    )
    .command(
      'ack <targets..>',
      'mark waits seen without going there: a finished turn leaves the queue until its session waits again; a wait that needs you stays, marked seen',
      (y) =>
        y
          .positional('targets', { type: 'string', array: true, demandOption: true, describe: 'queue numbers, keys or pane ids' })
          .example('$0 ack 2 3', 'waits 2 and 3 are seen'),
      run<AckArgs>(async () => (await import('../commands/next.js')).runAck),
    )
    .command(
      'watch',
      'a live view of the queue; a number or Enter jumps there, y/n answer a permission dialog, a marks a wait seen, q quits',
      (y) =>
        y
          .options(toYargsOptions(WATCH_OPTIONS))
          .choices('agent', AGENT_IDS),
      run<WatchArgs>(async () => {
        const { runWatch } = await import('../commands/watch.js')
        // watch jumps and answers with the commands themselves, loaded when a key first asks.
        return (args, io) =>
          runWatch(args, io, {
            go: async (goArgs, goIo) => (await import('../commands/go.js')).runGo(goArgs, goIo),
            answer: async (answer, answerArgs, answerIo) => (await import('../commands/answer.js')).runAnswer(answer, answerArgs, answerIo),
          })
      }),
    )
    .command(
      'status',
      "a short segment for tmux's status line; prints nothing when nothing waits",
      (y) => y.options(toYargsOptions(STATUS_OPTIONS)).choices('agent', AGENT_IDS),
      run<StatusArgs>(async () => (await import('../commands/status.js')).runStatus),
    )
    .command(
      'statusline',
      "for Claude Code's statusLine setting: the other sessions that wait (stdin: its status-line JSON)",
      (y) => y.options(toYargsOptions(STATUSLINE_OPTIONS)),
      run<StatuslineArgs>(async () => (await import('../commands/statusline.js')).runStatusline),
    )
    .command(
      'notify',
      'tell you about waits that are new since the last call (for cron or a tmux hook)',
      (y) =>
        y
          .options(toYargsOptions(NOTIFY_OPTIONS))
          .choices('agent', AGENT_IDS),
      run<NotifyArgs>(async () => (await import('../commands/notify.js')).runNotify),
    )
    .command(
      'install',
      "add Trail Boss's hooks to an agent's settings (Claude Code unless --agent says otherwise)",
      (y) => y.options(toYargsOptions(INSTALL_OPTIONS)).choices('agent', AGENT_IDS),
      run<InstallArgs>(async () => (await import('../commands/install.js')).runInstall),
    )
    .command(
      'uninstall',
      "remove exactly Trail Boss's hooks from an agent's settings",
      (y) => y.options(toYargsOptions(UNINSTALL_OPTIONS)).choices('agent', AGENT_IDS),
      run<InstallArgs>(async () => (await import('../commands/install.js')).runUninstall),
    )
    .command(
      'doctor',
      'check the whole chain (node, emitter, hooks, records, lost spool events, tmux) and say how to fix it',
      (y) => y.options(toYargsOptions(DOCTOR_OPTIONS)),
      run<DoctorArgs>(async () => (await import('../commands/doctor.js')).runDoctor),
    )
    .command(
      'gc',
      'retire ended and gone sessions older than a threshold, and lost spool events as old',
      (y) =>
        y
          .options(toYargsOptions(GC_OPTIONS)),
      run<GcArgs>(async () => (await import('../commands/gc.js')).runGc),
    )
    // Always listed, so that without the opt-in it says how to turn it on (lib/navigate/input-guard.ts).
    .command(
      'send <target> [text..]',
      'type your text into a waiting pane (needs TRAILBOSS_ALLOW_SEND=1)',
      (y) =>
        y
          // Words are typed as written: `007` stays `007`, not the number 7.
          .parserConfiguration({ 'parse-positional-numbers': false })
          .positional('target', { type: 'string', demandOption: true })
          .positional('text', { type: 'string', array: true })
          .options(toYargsOptions(SEND_OPTIONS))
          .example('$0 send 2 yes', 'type "yes" and Enter into the pane of wait 2')
          .example('$0 send 2 -- -n 3', 'text that starts with - goes after --'),
      run<SendArgs>(async () => (await import('../commands/send.js')).runSend),
    )
    .command(
      'ok <target>',
      answerDescription('allow once'),
      (y) => answerOptions(y).example('$0 ok 2', 'allow the command wait 2 asks to run'),
      run<AnswerArgs>(async () => (await import('../commands/answer.js')).runOk),
    )
    .command(
      'no <target>',
      answerDescription('no'),
      answerOptions,
      run<AnswerArgs>(async () => (await import('../commands/answer.js')).runNo),
    )
    .demandCommand(1, 'name a command; `trailboss ls` shows the queue')
    .strict()
    .epilog(EPILOG)
    .help()
    .alias('help', 'h')
    .version(version())
    .wrap(Math.min(110, io.stdout.columns ?? 100))
}

export const runFull = async (argv: string[], io: Io): Promise<number> => {
  let code = 0
  let helpText = ''
  const parser = (
    await buildParser(argv, io, (c) => {
      code = c
    })
  )
    .exitProcess(false)
    .fail((msg, err) => {
      // yargs reports its own validation failures as YError (and a failed .check() as the
      // string it returned); throwing stops it from running the command anyway.
      if (err instanceof Error && err.name !== 'YError') throw err
      const { what, hint } = formatUsageFailure(msg || (err instanceof Error ? err.message : String(err ?? '')), argv[0])
      throw new TrailbossError(what, hint, EXIT_USAGE)
    })
  try {
    await parser.parseAsync(argv, {}, (_err, _argv, output) => {
      helpText = output
    })
  } catch (err) {
    io.stderr.write(`${formatError(err)}\n`)
    return err instanceof TrailbossError ? err.exitCode : EXIT_FAILURE
  }
  if (helpText) io.stdout.write(`${helpText}\n`)
  return code
}
