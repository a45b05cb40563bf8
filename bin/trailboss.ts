#!/usr/bin/env node
import { main } from '../lib/cli.js'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`trailboss: ${err instanceof Error ? err.message : String(err)} — this is a bug; please report it\n`)
    process.exitCode = 1
  },
)
