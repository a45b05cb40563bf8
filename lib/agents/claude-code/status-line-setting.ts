// Pure: Claude Code's `statusLine` setting with `trailboss statusline` in it. A person's own
// status-line command is kept by wrapping it (`trailboss statusline --wrap '<theirs>'` runs it
// and adds our segment), so uninstall gives back exactly the command it found.
import { TrailbossError } from '../../errors.js'
import { isJsonObject, type JsonObject } from '../../settings/json-value.js'
import { shellQuote } from '../../settings/shell-line.js'

/** How `statusLine.command` runs the CLI: the Node and CLI files by absolute path, or `trailboss` from PATH. */
export const statuslineCommand = (cli: readonly string[], wrapped: string | null): string =>
  [...cli.map(shellQuote), 'statusline', ...(wrapped === null ? [] : ['--wrap', shellQuote(wrapped)])].join(' ')

const OURS = /^(?:(?:'[^']*'|\S+) )?(?:'[^']*trailboss\.cjs'|\S*trailboss(?:\.cjs)?) statusline(?: --wrap (?:'((?:[^']|'\\'')*)'|(\S+)))?$/

/**
 * Whether a status-line command is one we wrote, and the person's command it wraps (null when
 * it wraps none). Undefined when the command is not ours.
 */
export const parseOurStatusline = (command: string): { wrapped: string | null } | undefined => {
  const m = OURS.exec(command.trim())
  if (!m) return undefined
  if (m[1] !== undefined) return { wrapped: m[1].replace(/'\\''/g, "'") }
  return { wrapped: m[2] ?? null }
}

const commandOf = (setting: unknown): string | undefined =>
  isJsonObject(setting) && setting.type === 'command' && typeof setting.command === 'string' ? setting.command : undefined

/** The settings with our status line in them, wrapping the person's own command if there is one. */
export const mergeStatusLine = (settings: JsonObject, cli: readonly string[]): JsonObject => {
  const current = settings.statusLine
  if (current === undefined) return { ...settings, statusLine: { type: 'command', command: statuslineCommand(cli, null) } }
  const command = commandOf(current)
  if (command === undefined || !isJsonObject(current)) {
    throw new TrailbossError(
      'the statusLine setting is not a command, so it cannot be wrapped',
      'left as it is; remove it or make it {"type": "command", "command": …} first',
    )
  }
  // Ours already (perhaps with an old Node path): rewrite it around the same wrapped command.
  const wrapped = parseOurStatusline(command)?.wrapped ?? (parseOurStatusline(command) ? null : command)
  return { ...settings, statusLine: { ...current, command: statuslineCommand(cli, wrapped) } }
}

/** The settings without our status line: the wrapped command back in its place, or no statusLine at all. */
export const unmergeStatusLine = (settings: JsonObject): JsonObject => {
  const current = settings.statusLine
  const command = commandOf(current)
  const ours = command === undefined ? undefined : parseOurStatusline(command)
  if (!ours || !isJsonObject(current)) return settings
  if (ours.wrapped !== null) return { ...settings, statusLine: { ...current, command: ours.wrapped } }
  const { statusLine: _ours, ...rest } = settings
  return rest
}
