// Every command's options, declared once: yargs builds its parser and help from these tables
// (cli/yargs-wiring.ts), the fast path of `ls` and `status` parses the same tables with node's
// util.parseArgs (cli/fast-args.ts), and each command's argument type is derived from its
// table, so no command casts its arguments. A layer of its own below commands/ and cli/, which
// both read it; it imports only the record's wait kinds, the settings' scopes and the
// history's groupings.
import { WAIT_KINDS } from '../record/types.js'
import { SCOPES } from '../settings/scope.js'
import { REPORT_GROUPINGS } from '../history/types.js'

export interface OptionSpec {
  type: 'boolean' | 'string' | 'number'
  describe: string
  alias?: string
  array?: boolean
  default?: boolean | string | number
  choices?: readonly string[]
}

export const KINDS = WAIT_KINDS
export const SORTS = ['age', 'kind', 'project', 'pane'] as const
export const NOTIFY_CHANNELS = ['desktop', 'tmux', 'bell', 'exec'] as const

/** `--agent`: its choices are the registered agents (lib/agents/index.ts); the wiring adds them. */
const AGENT_FILTER = { type: 'string', array: true, describe: 'only sessions of these agents' } as const satisfies OptionSpec

export const LS_OPTIONS = {
  all: {
    type: 'boolean',
    alias: 'a',
    default: false,
    describe: 'also list seen finished turns and working, idle, ended and gone sessions',
  },
  plain: { type: 'boolean', default: false, describe: 'tab-separated lines, key first, no colour (for fzf)' },
  json: { type: 'boolean', default: false, describe: 'the versioned JSON contract (docs/ls.schema.json)' },
  kind: { type: 'string', array: true, choices: KINDS, describe: 'only these kinds of wait' },
  project: { type: 'string', array: true, describe: 'only these projects' },
  'older-than': { type: 'string', describe: 'only waits older than this (e.g. 10m)' },
  sort: { type: 'string', choices: SORTS, default: 'age', describe: 'order of the rows; each wait keeps its number' },
  'exit-status': { type: 'boolean', default: false, describe: 'exit 3 when nothing needs you (with --all: when nothing waits at all)' },
  agent: AGENT_FILTER,
  host: {
    type: 'string',
    array: true,
    describe: 'only the waits of these hosts, named as in trailboss hosts ls (the others are not read)',
  },
  local: { type: 'boolean', default: false, describe: 'this machine only: other hosts (trailboss hosts) are not read' },
  follow: {
    type: 'boolean',
    default: false,
    describe:
      "with --json: stay, and print the document again (one line) each time the queue changes (this machine's changes wake it; other hosts come from their cached reads, as in status; watch follows every host live)",
  },
  'until-change': {
    type: 'string',
    describe:
      "with --json: wait until the document's digest differs from this one (a digest of an earlier ls --json), print it and exit; after 9 minutes, print it unchanged",
  },
  'read-at': {
    type: 'string',
    describe:
      'with --until-change: when that digest was read (ms since the epoch); the queue is not read again until the sessions folder is written after it, and a wait in which nothing was written ends printing nothing',
  },
  'return-digest': {
    type: 'boolean',
    default: false,
    describe:
      "with --json: this read is yours (Claude Code's mod passes it on your prompt): it counts as an interactive command, and the one that ends a quiet stretch adds returnDigest, what arrived meanwhile (docs/design.md §11.8)",
  },
} as const satisfies Record<string, OptionSpec>

export const STATUS_OPTIONS = {
  format: {
    type: 'string',
    describe:
      'template with {count} {oldest} {kinds} {s} {permission} {question} {done} {error} {interrupted} {hosts} (each other host and its queue age) {stale} (the hosts that did not answer lately) {blocked} (agent time blocked on you today, from the history; shown even when nothing waits)',
  },
  tmux: { type: 'boolean', default: false, describe: 'add tmux colour codes (#[fg=…])' },
  agent: AGENT_FILTER,
  all: { type: 'boolean', alias: 'a', default: false, describe: 'also count finished turns (done); seen waits that need you always count' },
} as const satisfies Record<string, OptionSpec>

export const STATUSLINE_OPTIONS = {
  format: { type: 'string', describe: "a template as for status; default '{count} others wait · oldest {oldest}'" },
  wrap: {
    type: 'string',
    describe: 'your own status-line command: run through sh with the same input, ended after 5 s; our segment follows its output',
  },
  all: { type: 'boolean', alias: 'a', default: false, describe: 'also count finished turns (done); seen waits that need you always count' },
} as const satisfies Record<string, OptionSpec>

export const SHOW_OPTIONS = {
  json: {
    type: 'boolean',
    default: false,
    describe:
      "as JSON: { version, item (as ls --json gives it), transcriptPath, conversation, screen }; a remote wait's from its host's own show --json",
  },
  screen: { type: 'boolean', default: false, describe: "also the pane's live text (tmux capture-pane)" },
  lines: { type: 'number', default: 6, describe: 'how many transcript entries to show' },
  full: { type: 'boolean', default: false, describe: 'long messages, tool input and transcript entries in full (else cut with a marker)' },
  agent: AGENT_FILTER,
  local: { type: 'boolean', default: false, describe: 'this machine only: other hosts (trailboss hosts) are not read' },
} as const satisfies Record<string, OptionSpec>

export const GO_OPTIONS = {
  client: { type: 'string', describe: "the tmux client to move (key bindings pass '#{client_name}')" },
  print: { type: 'boolean', default: false, describe: 'print the tmux (and ssh) commands instead of running them' },
  agent: AGENT_FILTER,
  host: {
    type: 'string',
    array: true,
    describe: "only the waits of these hosts (trailboss hosts ls; 'local': this machine), when none is named; the others are not read",
  },
  local: { type: 'boolean', describe: 'this machine only: other hosts are not read' },
  attach: {
    type: 'boolean',
    describe:
      'this machine only: attach this terminal to the wait (its window and pane selected), or fail; what another host runs here over ssh -t',
  },
  'move-clients': {
    type: 'boolean',
    describe:
      "this machine only: move the latest client that came over ssh to the wait's tmux server to its pane, print nothing, exit 1 when none is attached; what another host runs here over ssh",
  },
  'client-port': {
    type: 'number',
    describe:
      "with --move-clients: move the client whose ssh connection came from this port (its SSH_CONNECTION), or none; the other host's pane names it",
  },
} as const satisfies Record<string, OptionSpec>

/** `next`: no target, so none of go's modes for another host's use. */
export const NEXT_OPTIONS = {
  client: GO_OPTIONS.client,
  print: GO_OPTIONS.print,
  agent: AGENT_FILTER,
  host: GO_OPTIONS.host,
  local: GO_OPTIONS.local,
} as const satisfies Record<string, OptionSpec>

export const BACK_OPTIONS = {
  client: GO_OPTIONS.client,
  print: { type: 'boolean', default: false, describe: 'print the tmux command instead of running it' },
} as const satisfies Record<string, OptionSpec>

export const VIEW_OPTIONS = {
  off: {
    type: 'boolean',
    default: false,
    describe:
      'leave the view: unlink every window, return the client, remove the view session (and trailboss-keep, unless it keeps a window)',
  },
  client: GO_OPTIONS.client,
} as const satisfies Record<string, OptionSpec>

export const WATCH_OPTIONS = {
  all: { type: 'boolean', alias: 'a', default: false, describe: 'also show seen finished turns and sessions that are not waiting' },
  once: { type: 'boolean', default: false, describe: 'render once and exit (for tests and logs)' },
  agent: AGENT_FILTER,
} as const satisfies Record<string, OptionSpec>

export const NOTIFY_OPTIONS = {
  exec: { type: 'string', describe: "run this command line once per new wait, the item's JSON on stdin" },
  'older-than': { type: 'string', describe: 'only waits at least this old (e.g. 5m: a reminder)' },
  via: { type: 'string', array: true, choices: NOTIFY_CHANNELS, describe: 'channels to use (default: all that work here)' },
  'dry-run': { type: 'boolean', default: false, describe: 'say what would be notified; remember nothing' },
  agent: AGENT_FILTER,
  all: { type: 'boolean', alias: 'a', default: false, describe: 'also tell of finished turns (done)' },
  digest: {
    type: 'boolean',
    default: false,
    describe:
      'instead, one digest of what arrived since the last notify --digest (waits by kind, finished turns, errors, the oldest open wait); nothing when nothing arrived; --exec gets it as JSON',
  },
} as const satisfies Record<string, OptionSpec>

/** `agent`'s choices are the registered agents (lib/agents/index.ts); the wiring adds them. */
export const INSTALL_OPTIONS = {
  scope: {
    type: 'string',
    choices: SCOPES,
    default: 'user',
    describe: 'user (~/.claude), project (.claude/settings.json, shared) or local (.claude/settings.local.json)',
  },
  // No default here: the registry's default agent applies (lib/agents/hook-registry.ts).
  agent: { type: 'string', describe: 'the agent whose settings get the hooks (default: claude-code)' },
  'dry-run': { type: 'boolean', default: false, describe: 'print the change as a diff; write nothing' },
  statusline: { type: 'boolean', describe: "also put `trailboss statusline` in Claude Code's statusLine (wrapping yours, if any)" },
} as const satisfies Record<string, OptionSpec>

export const UNINSTALL_OPTIONS = {
  ...INSTALL_OPTIONS,
  scope: { ...INSTALL_OPTIONS.scope, describe: 'which settings file' },
  statusline: { ...INSTALL_OPTIONS.statusline, describe: 'accepted for symmetry: uninstall always gives back the statusLine it wrapped' },
} as const satisfies Record<string, OptionSpec>

export const DOCTOR_OPTIONS = {
  json: { type: 'boolean', default: false, describe: 'as JSON' },
} as const satisfies Record<string, OptionSpec>

export const GC_OPTIONS = {
  'older-than': { type: 'string', default: '7d', describe: 'how long since their last event (a lost spool event: since it came)' },
  history: { type: 'string', default: '30d', describe: "remove the history's daily files (trailboss report) of days older than this" },
  'dry-run': { type: 'boolean', default: false, describe: 'list what would be removed' },
} as const satisfies Record<string, OptionSpec>

export const REPORT_OPTIONS = {
  since: { type: 'string', default: '1d', describe: 'how far back the report goes (e.g. 1d, 7d, 12h)' },
  by: { type: 'string', choices: REPORT_GROUPINGS, default: 'project', describe: 'what the blocked time is grouped by' },
  json: { type: 'boolean', default: false, describe: 'the report as JSON (docs/design.md §11.5)' },
  html: {
    type: 'string',
    describe: "write the report as one self-contained HTML page to this file (0600: it holds your agents' commands)",
  },
} as const satisfies Record<string, OptionSpec>

export const HOSTS_LS_OPTIONS = {
  json: { type: 'boolean', default: false, describe: 'as JSON: { version, hosts: [{ destination, addedAt }] }' },
} as const satisfies Record<string, OptionSpec>

/**
 * `ok` and `no`: the target and, like every queue command, --agent. The last three are the
 * fixed words another host's trailboss sends when it answers a wait of this one (docs/design.md
 * §10.5); a person may use them too.
 */
export const ANSWER_OPTIONS = {
  agent: AGENT_FILTER,
  local: { type: 'boolean', default: false, describe: 'this machine only: other hosts (trailboss hosts) are not read' },
  'older-than': { type: 'string', describe: 'refuse a wait younger than this (e.g. 10s)' },
  // The only guard there is (queue/answer-guard.ts ANSWER_GUARD, checked again when it runs): a
  // trailboss that accepts this option has it; an older one stops at the unknown option.
  'require-guard': {
    type: 'string',
    choices: ['exact-match'],
    describe: 'answer only under this guard (what another host asks before answering here)',
  },
} as const satisfies Record<string, OptionSpec>

export const SEND_OPTIONS = {
  enter: { type: 'boolean', default: true, describe: 'press Enter after the text' },
} as const satisfies Record<string, OptionSpec>

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S
type Scalar<O extends OptionSpec> = O['type'] extends 'boolean'
  ? boolean
  : O['type'] extends 'number'
    ? number
    : O extends { choices: readonly (infer C)[] }
      ? C
      : string
type Value<O extends OptionSpec> = O extends { array: true } ? Scalar<O>[] : Scalar<O>

type WithDefault<T> = { [K in keyof T]: T[K] extends { default: unknown } ? K : never }[keyof T]

/** The parsed arguments of a table, camel-cased as yargs gives them; no default: may be absent. */
export type ArgsOf<T extends Readonly<Record<string, OptionSpec>>> = {
  -readonly [K in WithDefault<T> & string as CamelCase<K>]: Value<T[K]>
} & {
  -readonly [K in Exclude<keyof T, WithDefault<T>> & string as CamelCase<K>]?: Value<T[K]> | undefined
}

export type LsArgs = ArgsOf<typeof LS_OPTIONS>
export type StatusArgs = ArgsOf<typeof STATUS_OPTIONS>
export type StatuslineArgs = ArgsOf<typeof STATUSLINE_OPTIONS>
export type ShowArgs = ArgsOf<typeof SHOW_OPTIONS> & { target: string }
export type GoArgs = ArgsOf<typeof GO_OPTIONS> & { target: string | undefined }
export type NextArgs = ArgsOf<typeof NEXT_OPTIONS>
export type BackArgs = ArgsOf<typeof BACK_OPTIONS>
export type ViewArgs = ArgsOf<typeof VIEW_OPTIONS>
/** `ack`'s targets: numbers, keys or pane ids. */
export type AckArgs = { targets: (string | number)[] }
export type WatchArgs = ArgsOf<typeof WATCH_OPTIONS>
export type NotifyArgs = ArgsOf<typeof NOTIFY_OPTIONS>
export type InstallArgs = ArgsOf<typeof INSTALL_OPTIONS>
export type DoctorArgs = ArgsOf<typeof DOCTOR_OPTIONS>
export type GcArgs = ArgsOf<typeof GC_OPTIONS>
export type HostsLsArgs = ArgsOf<typeof HOSTS_LS_OPTIONS>
export type ReportArgs = ArgsOf<typeof REPORT_OPTIONS>
/** `hosts add` and `hosts rm`: the ssh destination. */
export type HostsArgs = { destination: string }
export type AnswerArgs = ArgsOf<typeof ANSWER_OPTIONS> & { target: string }
/** `text`: the words before `--`; `_`: the command's name, then the words after `--`. */
export type SendArgs = ArgsOf<typeof SEND_OPTIONS> & { target: string; text?: string[] | undefined; _?: (string | number)[] | undefined }

/**
 * A table as yargs options. A single-value option given twice takes its last value, as
 * util.parseArgs does in the fast path (yargs would make an array of it, which no command
 * expects); variadic positionals such as `send`'s text keep every word.
 */
export const toYargsOptions = <T extends Readonly<Record<string, OptionSpec>>>(table: T): T =>
  Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [
      name,
      spec.array ? spec : { ...spec, coerce: (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v) },
    ]),
  ) as unknown as T
