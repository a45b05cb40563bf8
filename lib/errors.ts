// Errors that reach the person as one line: `trailboss: what — hint` (docs/design.md §6.2).
import { formatVisible } from './text/visible-text.js'

/** Exit codes of the script contract (docs/design.md §6.2). */
export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2
export const EXIT_EMPTY_QUEUE = 3

export class TrailbossError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message)
    this.name = 'TrailbossError'
  }
}

/** The one line an error reaches the person as. It may quote a name or a file's text: shown visibly. */
export const formatError = (err: unknown): string => {
  if (err instanceof TrailbossError) return formatVisible(`trailboss: ${err.message}${err.hint ? ` — ${err.hint}` : ''}`)
  const e = err as NodeJS.ErrnoException
  const what = e instanceof Error ? e.message : String(err)
  return formatVisible(`trailboss: ${what}${e?.code === 'EACCES' ? ' — check the permissions of that path' : ''}`)
}
