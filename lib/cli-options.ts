// Options of the commands that run most often (`ls` from scripts, `status` every few seconds
// from tmux), declared once: yargs builds its parser and help from these tables, and the fast
// path in fast-args.ts parses the same tables with node's util.parseArgs.

export interface OptionSpec {
  type: 'boolean' | 'string'
  describe: string
  alias?: string
  array?: boolean
  default?: boolean | string
  choices?: readonly string[]
}

export const KINDS = ['permission', 'question', 'done', 'error', 'interrupted'] as const
export const SORTS = ['age', 'kind', 'project', 'pane'] as const

export const LS_OPTIONS = {
  all: { type: 'boolean', alias: 'a', default: false, describe: 'also list working, idle, ended and gone sessions' },
  plain: { type: 'boolean', default: false, describe: 'tab-separated lines, key first, no colour (for fzf)' },
  json: { type: 'boolean', default: false, describe: 'the versioned JSON contract (docs/ls.schema.json)' },
  kind: { type: 'string', array: true, choices: KINDS, describe: 'only these kinds of wait' },
  project: { type: 'string', array: true, describe: 'only these projects' },
  'older-than': { type: 'string', describe: 'only waits older than this (e.g. 10m)' },
  sort: { type: 'string', choices: SORTS, default: 'age', describe: 'order of the rows; numbers stay those of the oldest-first queue' },
  'exit-status': { type: 'boolean', default: false, describe: 'exit 3 when nothing waits' },
} as const satisfies Record<string, OptionSpec>

export const STATUS_OPTIONS = {
  format: { type: 'string', describe: 'template with {count} {oldest} {kinds} {s} {permission} {question} {done} {error} {interrupted}' },
  tmux: { type: 'boolean', default: false, describe: 'add tmux colour codes (#[fg=…])' },
} as const satisfies Record<string, OptionSpec>

/**
 * A table as yargs options. A single-value option given twice takes its last value, as
 * util.parseArgs does in the fast path (yargs would make an array of it, which no command
 * expects); variadic positionals such as `send`'s text keep every word.
 */
export const toYargsOptions = <T extends Readonly<Record<string, OptionSpec>>>(table: T): T =>
  Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [name, spec.array ? spec : { ...spec, coerce: (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v) }]),
  ) as unknown as T
