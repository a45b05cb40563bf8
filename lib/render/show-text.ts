// Pure renderers for `show`: a conversation's lines as `show` prints them (its tool calls the
// way the ask shows them: lib/render/tool-call.ts).
import type { ConversationLine } from '../agents/types.js'
import { renderToolCall } from './tool-call.js'

/**
 * Slash commands as the transcript stores them (`<command-name>/clear</command-name>…`) read as
 * the command typed; a local command's output tags give their text.
 */
export const formatCommandTags = (text: string): string => {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim()
  if (name) {
    const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim()
    return `${name.startsWith('/') ? name : `/${name}`}${args ? ` ${args}` : ''}`
  }
  return text.replace(/<\/?(?:local-command-stdout|local-command-stderr|command-message|command-args)>/g, '').trim() || text
}

/** Cut text past `max` lines, with a marker that says how to see the rest. */
export const cutLines = (lines: readonly string[], max: number, hint = 'trailboss show --full'): string[] =>
  lines.length <= max ? [...lines] : [...lines.slice(0, max), `… ${lines.length - max} more lines (${hint})`]

const MARKS: Record<ConversationLine['who'], string> = { you: '❯', agent: '●', tool: '⚙', result: '⎿' }

/** Lines of one conversation entry shown before the cut (`--full`: no cut). */
export const ENTRY_LINES = 8

export const formatConversation = (lines: readonly ConversationLine[], full = true): string[] =>
  lines.flatMap((l) => {
    const text = l.tool ? renderToolCall(l.tool.name, l.tool.input) : formatCommandTags(l.text).split('\n')
    const [first = '', ...rest] = cutLines(text, full ? Infinity : ENTRY_LINES)
    return [`${MARKS[l.who]} ${first}`, ...rest.map((r) => `  ${r}`)]
  })
