// Pure renderers for `show`: a tool call as a person reads it (a Bash command, an edit as a
// diff, a question with its options), and a conversation's lines as `show` prints them.
import { createTwoFilesPatch } from 'diff'
import { TRUNCATION_MARKER } from '../record/context-cap.js'
import type { ConversationLine } from '../agents/types.js'

const WRITE_LINES = 40

const asObj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null)
const s = (v: unknown): string => (typeof v === 'string' ? v : '')
const indent = (text: string, pad = '  '): string[] => text.split('\n').map((l) => `${pad}${l}`)

const editDiff = (file: string, oldText: string, newText: string): string[] =>
  createTwoFilesPatch(file, file, oldText.endsWith('\n') ? oldText : `${oldText}\n`, newText.endsWith('\n') ? newText : `${newText}\n`, '', '', { context: 3 })
    .split('\n')
    .slice(2) // the ===== separator and the Index line say nothing here
    .filter((l) => l !== '')

/** The lines that show what a tool call will do. */
export const renderToolCall = (tool: string, input: unknown): string[] => {
  if (typeof input === 'string') {
    // Over the record's cap: the input is kept as its truncated JSON text.
    return [tool, ...indent(input), input.endsWith(TRUNCATION_MARKER) ? '  (input truncated; the transcript has it whole)' : ''].filter(Boolean)
  }
  const o = asObj(input) ?? {}
  switch (tool) {
    case 'Bash':
      return [`Bash${o.description ? ` — ${s(o.description)}` : ''}`, ...indent(`$ ${s(o.command)}`)]
    case 'Edit':
      return [`Edit ${s(o.file_path)}${o.replace_all ? ' (all occurrences)' : ''}`, ...indent(editDiff(s(o.file_path), s(o.old_string), s(o.new_string)).join('\n'))]
    case 'MultiEdit': {
      const edits = Array.isArray(o.edits) ? o.edits.map(asObj).filter((e) => e !== null) : []
      return [`MultiEdit ${s(o.file_path)} (${edits.length} edits)`, ...edits.flatMap((e) => indent(editDiff(s(o.file_path), s(e.old_string), s(e.new_string)).join('\n')))]
    }
    case 'Write': {
      const lines = s(o.content).split('\n')
      const shown = lines.slice(0, WRITE_LINES).map((l) => `+${l}`)
      if (lines.length > WRITE_LINES) shown.push(`… ${lines.length - WRITE_LINES} more lines`)
      return [`Write ${s(o.file_path)} (${lines.length} lines)`, ...indent(shown.join('\n'))]
    }
    case 'AskUserQuestion': {
      const qs = Array.isArray(o.questions) ? o.questions.map(asObj).filter((q) => q !== null) : []
      return qs.flatMap((q) => {
        const options = Array.isArray(q.options) ? q.options.map(asObj).filter((x) => x !== null) : []
        return [
          `${q.header ? `[${s(q.header)}] ` : ''}${s(q.question)}${q.multiSelect ? ' (several answers)' : ''}`,
          ...options.map((opt, i) => `  ${i + 1}. ${s(opt.label)}${opt.description ? ` — ${s(opt.description)}` : ''}`),
        ]
      })
    }
    default: {
      // Other agents' shells (Codex, Gemini CLI's Shell) carry a command too.
      if (typeof o.command === 'string') return [`${tool}${o.description ? ` — ${s(o.description)}` : ''}`, ...indent(`$ ${o.command}`)]
      return [tool, ...Object.entries(o).flatMap(([k, v]) => indent(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`))]
    }
  }
}

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
    const [first = '', ...rest] = cutLines(formatCommandTags(l.text).split('\n'), full ? Infinity : ENTRY_LINES)
    return [`${MARKS[l.who]} ${first}`, ...rest.map((r) => `  ${r}`)]
  })
