// The one opt-in for every command that types into an agent's pane (send; ok and no press a
// dialog's key). Trail Boss only navigates unless the person has said otherwise, and a refused
// command must say how to turn it on rather than look like a typo.
import { TrailbossError } from '../errors.js'
import type { Io } from '../io.js'

export const ALLOW_INPUT_ENV = 'TRAILBOSS_ALLOW_SEND'

/** Whether commands that type into panes are turned on in this environment. */
export const inputAllowed = (env: Io['env']): boolean => env[ALLOW_INPUT_ENV] === '1'

/** What each opt-in command does in a pane, for the line that says it is off. */
const DOES: Readonly<Record<'send' | 'ok' | 'no', string>> = {
  send: 'type your text into agent panes',
  ok: 'press keys in agent panes',
  no: 'press keys in agent panes',
}

/** What the refusal says first: also how another host's refusal is recognised (remote-answer.ts). */
export const inputOffWhat = (command: keyof typeof DOES): string => `\`${command}\` is off`

/** Throws, naming the command, the variable and what setting it allows, unless the person opted in. */
export const requireInputAllowed = (env: Io['env'], command: keyof typeof DOES): void => {
  if (inputAllowed(env)) return
  throw new TrailbossError(
    inputOffWhat(command),
    `set ${ALLOW_INPUT_ENV}=1 to let Trail Boss ${DOES[command]} (e.g. export ${ALLOW_INPUT_ENV}=1 in your shell's startup file)`,
  )
}
