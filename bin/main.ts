// The CLI itself, in dist/bin/main.cjs; bin/trailboss.cts loads it (from V8's code cache).
import { main } from '../lib/cli/main.js'

/** Runs one command; resolves once its exit code is set. */
export const start = (argv: string[]): Promise<void> =>
  main(argv).then(
    (code) => {
      process.exitCode = code
    },
    (err: unknown) => {
      process.stderr.write(`trailboss: ${err instanceof Error ? err.message : String(err)} — this is a bug; please report it\n`)
      process.exitCode = 1
    },
  )
