// yargs' validation messages, reworded as one line like every other error: `trailboss: what — hint`
// (docs/design.md §6.2). Pure: the wiring passes yargs' message and the command typed.

/** The commands whose required arguments yargs checks: what they need, an example, and where to look (default: the queue). */
const NEEDS: Readonly<Record<string, { what: string; example: string; see?: string }>> = {
  show: { what: 'the wait to show: its queue number, key or pane id', example: 'trailboss show 1' },
  ack: { what: 'the waits to mark seen: their queue numbers, keys or pane ids', example: 'trailboss ack 2 3' },
  send: { what: 'the wait to type into: its queue number, key or pane id', example: 'trailboss send 2 yes' },
  ok: { what: 'the permission wait to allow: its queue number, key or pane id', example: 'trailboss ok 2' },
  no: { what: 'the permission wait to deny: its queue number, key or pane id', example: 'trailboss no 2' },
  // `hosts add` and `hosts rm`: a name that starts with '-' never gets here, yargs takes it for an option.
  hosts: { what: 'an ssh destination', example: 'trailboss hosts add devbox', see: 'trailboss hosts ls lists them' },
}

const HELP = 'see trailboss --help'

/** yargs' `Invalid values:` block holds one `Argument: x, Given: "y", Choices: "a", "b"` line per option. */
const INVALID_VALUE = /Argument: ([^,]+), Given: (.*), Choices: (.*)$/

export const formatUsageFailure = (message: string, command: string | undefined): { what: string; hint: string } => {
  const needs = command !== undefined && Object.hasOwn(NEEDS, command) ? NEEDS[command] : undefined
  if (needs && message.startsWith('Not enough non-option arguments')) {
    return { what: `${command} needs ${needs.what}`, hint: `e.g. ${needs.example}; ${needs.see ?? 'trailboss ls shows the queue'}` }
  }
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  if (lines[0] === 'Invalid values:') {
    const said = lines.slice(1).map((l) => {
      const m = INVALID_VALUE.exec(l)
      return m ? `--${m[1]} takes ${m[3]}, not ${m[2]}` : l
    })
    if (said.length > 0) return { what: said.join('; '), hint: HELP }
  }
  // Any other message of several lines: one line, never a newline shown as `\n`.
  return { what: lines.join(' ') || 'invalid arguments', hint: HELP }
}
