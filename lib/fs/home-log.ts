// The CLI's lines in $TRAILBOSS_HOME/log (the emitter keeps its own, hooks/emit.ts): what a reader
// set right without a word on the person's terminal (a cache it could not use). Never into a home
// that is not ours, never through a link; a line that cannot be written is dropped.
import { mkdirSync } from 'node:fs'
import { type Env, logFile, trailbossHome } from '../paths.js'
import { deriveHomeProblem } from './home-check.js'
import { PRIVATE_DIR_MODE } from './private-dir.js'
import { appendPrivate } from './safe-file.js'

export const appendHomeLog = (env: Env, line: string, now: number = Date.now()): void => {
  try {
    if (deriveHomeProblem(env)) return
    mkdirSync(trailbossHome(env), { recursive: true, mode: PRIVATE_DIR_MODE })
    appendPrivate(
      logFile(env),
      `${new Date(now).toISOString()} trailboss[${process.pid}] ${line.replace(/[\r\n]+/g, ' ').slice(0, 1000)}\n`,
    )
  } catch {
    // The log is a courtesy: nothing depends on it.
  }
}
