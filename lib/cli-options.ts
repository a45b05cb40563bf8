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
