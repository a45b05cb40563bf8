// yargs wiring of every command, with help and usage errors. Each command's module is imported
// only when that command runs.
import { fileURLToPath } from 'node:url'
import type { Argv, PositionalOptions } from 'yargs'
import { packageVersion } from '../settings/package-root.js'
import { AGENT_IDS } from '../agents/index.js'
import {
  ANSWER_OPTIONS,
  BACK_OPTIONS,
  DOCTOR_OPTIONS,
  GC_OPTIONS,
  GO_OPTIONS,
  NEXT_OPTIONS,
  HOSTS_LS_OPTIONS,
  INSTALL_OPTIONS,
  LS_OPTIONS,
  NOTIFY_OPTIONS,
  REPORT_OPTIONS,
  SEND_OPTIONS,
  SHOW_OPTIONS,
  STATUS_OPTIONS,
  STATUSLINE_OPTIONS,
  type OptionSpec,
  toYargsOptions,
  UNINSTALL_OPTIONS,
  VIEW_OPTIONS,
  WATCH_OPTIONS,
  type AnswerArgs,
  type AckArgs,
  type BackArgs,
  type DoctorArgs,
  type GcArgs,
  type GoArgs,
  type NextArgs,
  type HostsArgs,
  type HostsLsArgs,
  type InstallArgs,
  type LsArgs,
  type NotifyArgs,
  type ReportArgs,
  type SendArgs,
  type ShowArgs,
  type StatusArgs,
  type StatuslineArgs,
  type ViewArgs,
  type WatchArgs,
} from '../options/tables.js'
import { TABLE_LEGEND } from '../render/queue-table.js'
import { EXIT_FAILURE, EXIT_USAGE, formatError, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { formatUsageFailure } from './usage-failure.js'

type Handler<A> = (args: A, io: Io) => Promise<number>

const version = (): string => packageVersion(fileURLToPath(import.meta.url))

const EPILOG = `Exit codes: 0 ok (also for an empty queue), 1 failure, 2 usage error; ls --exit-status: 3 when nothing needs you.
Environment: TRAILBOSS_HOME (default ~/.trailboss), CLAUDE_CONFIG_DIR (default ~/.claude), NO_COLOR, TRAILBOSS_ALLOW_SEND=1.`

/** What a command's <target> may be. */
const TARGET_WORDS = 'wait number (kept while it waits), key, session-id prefix or pane id (%12)'

/** What `ok` and `no` say of themselves, with the dialog's option each presses. */
const answerDescription = (option: string): string =>
  `press a permission dialog's "${option}" from the queue, only if the pane still shows that very dialog and its command is exactly the recorded one (exact match; needs TRAILBOSS_ALLOW_SEND=1). A wait of another host (host:key) is answered by the trailboss there, under its own guard and opt-in`

/** What `ok` and `no` take: a wait of this machine or of another host. */
const ANSWER_TARGET_WORDS = `${TARGET_WORDS}, or host:key for a wait of another host`

/**
 * One command as data: its yargs name, its line in the command list, what its builder sets
 * (in this order: parser settings, positionals, options, subcommands, --agent's choices, checks,
 * examples, epilog) and how its handler is loaded, only when it runs.
 */
interface CommandSpec<A> {
  command: string | string[]
  describe: string
  parserConfiguration?: Record<string, boolean>
  positionals?: [string, PositionalOptions][]
  options?: Record<string, OptionSpec>
  /** A command of subcommands (`hosts add`): one of them must be named, and it runs instead. */
  subcommands?: { commands: CommandSpec<unknown>[]; missing: string }
  /** --agent takes the registered agents (lib/agents/index.ts). */
  agentChoices?: boolean
  checks?: ((args: A) => true | string)[]
  examples?: [string, string][]
  epilog?: string
  /** Absent for a command of subcommands. */
  load?: () => Promise<Handler<A>>
}

/** Runs a loaded handler on the parsed arguments (with the run's Io) and keeps its exit code. */
type RunHandler = (handler: Handler<unknown>, args: unknown) => Promise<void>

/** Adds `spec` to `parser`, its handler loaded only when it runs. */
const addCommand = (parser: Argv, spec: CommandSpec<unknown>, run: RunHandler): Argv => {
  const load = spec.load
  const handler = load && (async (args: unknown) => run(await load(), args))
  return parser.command(spec.command, spec.describe, buildCommand(spec, run), handler)
}

/** The spec's builder: the calls yargs wants, in the spec's order. */
const buildCommand =
  <A>(spec: CommandSpec<A>, run: RunHandler) =>
  (y: Argv): Argv => {
    let b = spec.parserConfiguration ? y.parserConfiguration(spec.parserConfiguration) : y
    for (const [name, positional] of spec.positionals ?? []) b = b.positional(name, positional)
    if (spec.options) b = b.options(toYargsOptions(spec.options))
    if (spec.subcommands) {
      for (const sub of spec.subcommands.commands) b = addCommand(b, sub, run)
      b = b.demandCommand(1, spec.subcommands.missing)
    }
    if (spec.agentChoices) b = b.choices('agent', AGENT_IDS)
    for (const check of spec.checks ?? []) b = b.check((a) => check(a as unknown as A))
    for (const [command, description] of spec.examples ?? []) b = b.example(command, description)
    return spec.epilog === undefined ? b : b.epilog(spec.epilog)
  }

/** Erases the spec's argument type, which only its own handler knows. */
const command = <A>(spec: CommandSpec<A>): CommandSpec<unknown> => spec as unknown as CommandSpec<unknown>

const target = (describe: string | undefined, demandOption = true): [string, PositionalOptions] => [
  'target',
  { type: 'string', ...(demandOption ? { demandOption } : {}), ...(describe === undefined ? {} : { describe }) },
]

/** `hosts add` and `hosts rm`: the host as ssh names it. */
const destination: [string, PositionalOptions] = [
  'destination',
  { type: 'string', demandOption: true, describe: 'an ssh destination: host, user@host, or a Host of your ssh config' },
]

/** `ok` and `no` take the same target and options: only the key they press differs. */
const answerSpec = (name: 'ok' | 'no', option: string, load: () => Promise<Handler<AnswerArgs>>, examples: [string, string][] = []) =>
  command<AnswerArgs>({
    command: `${name} <target>`,
    describe: answerDescription(option),
    positionals: [target(ANSWER_TARGET_WORDS)],
    options: ANSWER_OPTIONS,
    agentChoices: true,
    examples,
    load,
  })

/** Every command, in the order --help lists them. */
const COMMANDS: CommandSpec<unknown>[] = [
  command<LsArgs>({
    command: ['ls', 'list'],
    describe: 'the queue of sessions waiting on you, oldest first',
    options: LS_OPTIONS,
    agentChoices: true,
    checks: [
      (a) => !(a.plain && a.json) || 'choose one of --plain and --json',
      (a) => !a.follow || (a.json && !a.exitStatus) || '--follow goes with --json (and not --exit-status)',
      (a) =>
        a.untilChange === undefined ||
        (a.json && !a.follow && !a.exitStatus) ||
        '--until-change goes with --json (and not --follow or --exit-status)',
      (a) =>
        a.readAt === undefined ||
        (a.untilChange !== undefined && /^\d{1,16}$/.test(String(a.readAt))) ||
        '--read-at goes with --until-change and takes ms since the epoch',
      (a) =>
        !a.returnDigest ||
        (a.json && !a.follow && a.untilChange === undefined) ||
        '--return-digest goes with --json (and not --follow or --until-change)',
    ],
    examples: [
      ['$0 ls', 'the queue as a table'],
      ["$0 ls --plain | fzf --preview 'trailboss show {1}' | cut -f1 | xargs -r trailboss go", 'pick a wait and jump there'],
      ['$0 ls --json --exit-status', 'for scripts and cron'],
      ['$0 ls --json --follow', 'the queue, then again on each change (one JSON document a line)'],
      ['$0 ls --json --until-change 3f9c0a1b2c3d4e5f', 'wait until the queue differs from the one with that digest, print it, exit'],
      ['$0 ls --json --return-digest', "the person's read: after a quiet stretch, with what arrived meanwhile"],
    ],
    epilog: `The table:\n${TABLE_LEGEND}`,
    load: async () => {
      const ls = await import('../commands/ls.js')
      return (args, io) =>
        args.follow || args.untilChange !== undefined
          ? import('../commands/ls-follow.js').then((f) => f.runLsFollow(args, io))
          : ls.runLs(args, io)
    },
  }),
  command<ShowArgs>({
    command: 'show <target>',
    describe: 'everything about one wait: message or tool input, transcript tail, live screen',
    positionals: [target(TARGET_WORDS)],
    options: SHOW_OPTIONS,
    agentChoices: true,
    load: async () => (await import('../commands/show.js')).runShow,
  }),
  command<GoArgs>({
    command: 'go [target]',
    describe: 'take your tmux client to a waiting pane (default: the oldest wait)',
    positionals: [target(TARGET_WORDS, false)],
    options: GO_OPTIONS,
    agentChoices: true,
    checks: [
      (a) => !(a.attach && a.moveClients) || 'choose one of --attach and --move-clients',
      (a) =>
        !(a.attach || a.moveClients) ||
        (a.target !== undefined && a.client === undefined && !a.print && !a.host?.length) ||
        '--attach and --move-clients take a key and go with none of --client, --print, --host',
      (a) => !(a.local && a.host?.length) || 'choose one of --local and --host',
      (a) =>
        a.clientPort === undefined ||
        (a.moveClients === true && Number.isInteger(a.clientPort) && a.clientPort >= 1 && a.clientPort <= 65535) ||
        '--client-port takes a port (1-65535) and goes with --move-clients',
    ],
    examples: [
      ['$0 go 2', 'to wait 2, on this machine or another host'],
      ['$0 go devbox:3f2a', 'to a wait of the host devbox: a pane here already in ssh to its tmux, else a new window running ssh'],
    ],
    epilog:
      "Another host's wait: if a pane here runs ssh to that host and a client of the wait's tmux server came over ssh, this client switches to that pane and the host moves its client to the wait; otherwise a new window here runs ssh -t <host> trailboss go <key> --attach (outside tmux: this terminal does).",
    load: async () => (await import('../commands/go.js')).runGo,
  }),
  command<NextArgs>({
    command: 'next',
    describe: 'go to the next wait after the one you are in (those that need you first, wrapping; every host)',
    options: NEXT_OPTIONS,
    checks: [(a) => !(a.local && a.host?.length) || 'choose one of --local and --host'],
    examples: [
      [`$0 next`, 'from a pane: the wait after this one'],
      [`tmux bind-key N run-shell "trailboss next --client '#{client_name}' || true"`, 'one key through the queue'],
    ],
    load: async () => (await import('../commands/next.js')).runNext,
  }),
  command<BackArgs>({
    command: 'back',
    describe: 'return your tmux client to where it was before the last go or next',
    options: BACK_OPTIONS,
    examples: [[`tmux bind-key B run-shell "trailboss back --client '#{client_name}' || true"`, 'a key back']],
    load: async () => (await import('../commands/next.js')).runBack,
  }),
  command<ViewArgs>({
    command: 'view',
    describe:
      "switch to the view: a tmux session of Trail Boss's whose windows are links of the waiting windows, in queue order; tmux's next-window walks them",
    options: VIEW_OPTIONS,
    examples: [
      [`tmux bind-key V run-shell "trailboss view --client '#{client_name}' || true"`, 'a key into the view'],
      [`tmux bind-key X run-shell "trailboss view --off --client '#{client_name}' || true"`, 'a key out of it'],
    ],
    epilog:
      'The view is kept in step by the runs that show the queue (status, watch, ls, go, next, back), never by a process of its own. A linked window is one window: selecting a pane in the view selects it in your session too. Every window it links is linked in trailboss-keep as well, so killing the view by hand kills no agent. Outside tmux, this terminal attaches to the view (as go does); with neither a terminal nor a client, the view is made and the command that enters it printed.',
    load: async () => (await import('../commands/view.js')).runView,
  }),
  command<AckArgs>({
    command: 'ack <targets..>',
    describe:
      'mark waits seen without going there: a finished turn leaves the queue until its session waits again; a wait that needs you stays, marked seen',
    positionals: [['targets', { type: 'string', array: true, demandOption: true, describe: 'queue numbers, keys or pane ids' }]],
    examples: [['$0 ack 2 3', 'waits 2 and 3 are seen']],
    load: async () => (await import('../commands/next.js')).runAck,
  }),
  command<WatchArgs>({
    command: 'watch',
    describe: 'a live view of the queue; a number or Enter jumps there, y/n answer a permission dialog, a marks a wait seen, q quits',
    options: WATCH_OPTIONS,
    agentChoices: true,
    load: async () => {
      const { runWatch } = await import('../commands/watch.js')
      // watch jumps and answers with the commands themselves, loaded when a key first asks.
      return (args, io) =>
        runWatch(args, io, {
          go: async (goArgs, goIo) => (await import('../commands/go.js')).runGo(goArgs, goIo),
          answer: async (answer, answerArgs, answerIo) => (await import('../commands/answer.js')).runAnswer(answer, answerArgs, answerIo),
        })
    },
  }),
  command<StatusArgs>({
    command: 'status',
    describe: "a short segment for tmux's status line; prints nothing when nothing waits",
    options: STATUS_OPTIONS,
    agentChoices: true,
    load: async () => (await import('../commands/status.js')).runStatus,
  }),
  command<StatuslineArgs>({
    command: 'statusline',
    describe: "for Claude Code's statusLine setting: the other sessions that wait (stdin: its status-line JSON)",
    options: STATUSLINE_OPTIONS,
    load: async () => (await import('../commands/statusline.js')).runStatusline,
  }),
  command<NotifyArgs>({
    command: 'notify',
    describe: 'tell you about waits that are new since the last call (for cron or a tmux hook)',
    options: NOTIFY_OPTIONS,
    agentChoices: true,
    load: async () => (await import('../commands/notify.js')).runNotify,
  }),
  command<InstallArgs>({
    command: 'install',
    describe: "add Trail Boss's hooks to an agent's settings (Claude Code unless --agent says otherwise)",
    options: INSTALL_OPTIONS,
    agentChoices: true,
    load: async () => (await import('../commands/install.js')).runInstall,
  }),
  command<InstallArgs>({
    command: 'uninstall',
    describe: "remove exactly Trail Boss's hooks from an agent's settings, and close the ssh connections to remote hosts",
    options: UNINSTALL_OPTIONS,
    agentChoices: true,
    load: async () => (await import('../commands/install.js')).runUninstall,
  }),
  command<DoctorArgs>({
    command: 'doctor',
    describe: 'check the whole chain (node, emitter, hooks, records, lost spool events, tmux, each remote host) and say how to fix it',
    options: DOCTOR_OPTIONS,
    load: async () => (await import('../commands/doctor.js')).runDoctor,
  }),
  command({
    command: 'hosts',
    describe: 'the remote hosts (ssh destinations) whose waits join the queue',
    subcommands: {
      missing: 'name what to do: add, rm or ls',
      commands: [
        command<HostsArgs>({
          command: 'add <destination>',
          describe: 'list a host; nothing is contacted (trailboss doctor checks it)',
          positionals: [destination],
          // Words are names as typed: `1.10` stays `1.10`.
          parserConfiguration: { 'parse-positional-numbers': false },
          examples: [
            ['$0 hosts add devbox', 'a Host of your ssh config'],
            ['$0 hosts add me@10.0.0.7', 'or any destination ssh takes'],
          ],
          load: async () => (await import('../commands/hosts.js')).runHostsAdd,
        }),
        command<HostsArgs>({
          command: 'rm <destination>',
          describe: "take a host off the list and close Trail Boss's ssh connection to it",
          positionals: [destination],
          parserConfiguration: { 'parse-positional-numbers': false },
          load: async () => (await import('../commands/hosts.js')).runHostsRm,
        }),
        command<HostsLsArgs>({
          command: 'ls',
          describe: 'the listed hosts, one a line',
          options: HOSTS_LS_OPTIONS,
          load: async () => (await import('../commands/hosts.js')).runHostsLs,
        }),
      ],
    },
  }),
  command<ReportArgs>({
    command: 'report',
    describe:
      'how long your agents waited on you: blocked time by kind and group, your answer times, waits per hour, each session (from the history)',
    options: REPORT_OPTIONS,
    checks: [
      (a) => !(a.json && a.html !== undefined) || 'choose one of --json and --html',
      (a) => a.html === undefined || a.html.trim() !== '' || '--html takes a file to write, e.g. --html report.html',
    ],
    examples: [
      ['$0 report', 'the last day, by project'],
      ['$0 report --since 7d --by kind', 'the last week, by kind of wait'],
      ['$0 report --json', 'the same figures for scripts'],
      ['$0 report --since 7d --html week.html', 'the week as a page with a timeline, to open in a browser'],
    ],
    load: async () => (await import('../commands/report.js')).runReport,
  }),
  command<GcArgs>({
    command: 'gc',
    describe:
      "retire ended and gone sessions older than a threshold, and lost spool events as old; remove history older than --history; forget removed hosts' last answers and close the hosts' ssh connections",
    options: GC_OPTIONS,
    load: async () => (await import('../commands/gc.js')).runGc,
  }),
  // Always listed, so that without the opt-in it says how to turn it on (lib/navigate/input-guard.ts).
  command<SendArgs>({
    command: 'send <target> [text..]',
    describe: 'type your text into a waiting pane (needs TRAILBOSS_ALLOW_SEND=1)',
    // Words are typed as written: `007` stays `007`, not the number 7.
    parserConfiguration: { 'parse-positional-numbers': false },
    positionals: [target(undefined), ['text', { type: 'string', array: true }]],
    options: SEND_OPTIONS,
    examples: [
      ['$0 send 2 yes', 'type "yes" and Enter into the pane of wait 2'],
      ['$0 send 2 -- -n 3', 'text that starts with - goes after --'],
    ],
    load: async () => (await import('../commands/send.js')).runSend,
  }),
  answerSpec('ok', 'allow once', async () => (await import('../commands/answer.js')).runOk, [
    ['$0 ok 2', 'allow the command wait 2 asks to run'],
    ['$0 ok devbox:3f2a', "allow it on host devbox, through devbox's trailboss"],
  ]),
  answerSpec('no', 'no', async () => (await import('../commands/answer.js')).runNo),
]

const buildParser = async (argv: string[], io: Io, setCode: (code: number) => void): Promise<Argv> => {
  // Loaded here, not at the top: the fast path of ls and status never needs it.
  const { default: yargs } = await import('yargs')
  let parser = yargs(argv)
    .scriptName('trailboss')
    .usage('$0 <command> [options]\n\nWho is waiting on me, what do they want, take me there.')
  const run: RunHandler = async (handler, args) => setCode(await handler(args, io))
  for (const spec of COMMANDS) parser = addCommand(parser, spec, run)
  return parser
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
