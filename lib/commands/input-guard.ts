// The one opt-in for every command that types into an agent's pane (send; ok and no press a
// dialog's key). Trail Boss only navigates unless the person has said otherwise, and a refused
// command must say how to turn it on rather than look like a typo.
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const ALLOW_INPUT_ENV = 'TRAILBOSS_ALLOW_SEND'

/** Whether commands that type into panes are turned on in this environment. */
export const inputAllowed = (env: Io['env']): boolean => env[ALLOW_INPUT_ENV] === '1'

/** Throws, naming the variable and how to set it, unless the person opted in. */
export const requireInputAllowed = (env: Io['env'], command: string): void => {
  if (inputAllowed(env)) return
  throw new TrailbossError(
    `${command} is off: it types into an agent's pane, which Trail Boss does only when you opt in`,
    `set ${ALLOW_INPUT_ENV}=1 to turn it on (e.g. export ${ALLOW_INPUT_ENV}=1 in your shell's startup file), then run it again`,
  )
}
