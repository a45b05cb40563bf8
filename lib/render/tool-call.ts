// Pure: a tool call as a person reads it — a command as a command, an edit as a diff, a
// question with its options — for every place that prints one (`show`'s ask and transcript
// tail, `watch`'s details, the ASK cell). Agents name their tools differently but share a few
// input shapes, so the shape decides, not the name:
//   command   Claude Code and Codex hooks `Bash {command, description}`, Codex's rollout
//             `exec_command {cmd, justification}`, Gemini CLI `run_shell_command {command, description}`
//   questions Claude Code `AskUserQuestion`, Codex `request_user_input`, Gemini CLI `ask_user`:
//             `{questions: [{header, question, options: [{label, description}], multiSelect, type}]}`
//   edit      Claude Code `Edit`/`MultiEdit`, Gemini CLI `replace`: `{file_path, old_string, new_string}`
//   write     Claude Code `Write`, Gemini CLI `write_file`: `{file_path, content}`
// Lines come out raw: the caller makes them visible (lib/text/visible-text.ts).
import { createTwoFilesPatch } from 'diff'
import { TRUNCATION_MARKER } from '../record/context-cap.js'

/** Lines of a written file shown before the cut. */
const WRITE_LINES = 40

type Obj = Record<string, unknown>
const asObj = (v: unknown): Obj | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null)
const s = (v: unknown): string => (typeof v === 'string' ? v : '')
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj).filter((o) => o !== null) : [])
const indent = (text: string, pad = '  '): string[] => text.split('\n').map((l) => `${pad}${l}`)

/** The command a shell tool runs: a string, or an argv (an older Codex `shell` tool) joined by spaces. */
const commandOf = (o: Obj): string | null => {
  const c = o.command ?? o.cmd
  if (typeof c === 'string') return c
  if (Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === 'string')) return c.join(' ')
  return null
}

const editDiff = (file: string, oldText: string, newText: string): string[] =>
  createTwoFilesPatch(
    file,
    file,
    oldText.endsWith('\n') ? oldText : `${oldText}\n`,
    newText.endsWith('\n') ? newText : `${newText}\n`,
    '',
    '',
    { context: 3 },
  )
    .split('\n')
    .slice(2) // the ===== separator and the Index line say nothing here
    .filter((l) => l !== '')

const QUESTION_TYPES: Readonly<Record<string, string>> = { yesno: ' (yes or no)', text: ' (your own words)' }

const renderQuestions = (qs: Obj[]): string[] =>
  qs.flatMap((q) => {
    const options = objects(q.options)
    const how = q.multiSelect === true ? ' (several answers)' : (QUESTION_TYPES[s(q.type)] ?? '')
    return [
      `${q.header ? `[${s(q.header)}] ` : ''}${s(q.question)}${how}`,
      ...options.map((opt, i) => `  ${i + 1}. ${s(opt.label)}${opt.description ? ` — ${s(opt.description)}` : ''}`),
    ]
  })

/** The lines that show what a tool call does. */
export const renderToolCall = (tool: string, input: unknown): string[] => {
  if (typeof input === 'string') {
    // Over the record's cap: the input is kept as its truncated JSON text.
    return [tool, ...indent(input), input.endsWith(TRUNCATION_MARKER) ? '  (input truncated; the transcript has it whole)' : ''].filter(
      Boolean,
    )
  }
  const o = asObj(input) ?? {}
  const file = s(o.file_path)
  const questions = objects(o.questions)
  if (questions.length > 0) return renderQuestions(questions)
  const command = commandOf(o)
  if (command !== null) {
    const note = s(o.description) || s(o.justification)
    return [`${tool}${note ? ` — ${note}` : ''}`, ...indent(`$ ${command}`)]
  }
  if (file && Array.isArray(o.edits)) {
    const edits = objects(o.edits)
    return [
      `${tool} ${file} (${edits.length} edits)`,
      ...edits.flatMap((e) => indent(editDiff(file, s(e.old_string), s(e.new_string)).join('\n'))),
    ]
  }
  if (file && (typeof o.old_string === 'string' || typeof o.new_string === 'string')) {
    const all = o.replace_all === true || o.allow_multiple === true
    return [`${tool} ${file}${all ? ' (all occurrences)' : ''}`, ...indent(editDiff(file, s(o.old_string), s(o.new_string)).join('\n'))]
  }
  if (file && typeof o.content === 'string') {
    // A file's last newline ends its last line; it starts no new one.
    const lines = o.content.replace(/\n$/, '').split('\n')
    const shown = lines.slice(0, WRITE_LINES).map((l) => `+${l}`)
    if (lines.length > WRITE_LINES) shown.push(`… ${lines.length - WRITE_LINES} more lines`)
    return [`${tool} ${file} (${lines.length} line${lines.length === 1 ? '' : 's'})`, ...indent(shown.join('\n'))]
  }
  return [tool, ...Object.entries(o).flatMap(([k, v]) => indent(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`))]
}

/** Keys whose text says best, in one line, what a tool call is about (after a command). */
const SUMMARY_KEYS = ['file_path', 'path', 'url', 'pattern', 'query', 'description', 'prompt']

/** One line of a tool call: `Tool: what` (its command, file, first question), for narrow cells. */
export const summarizeToolCall = (tool: string, input: unknown): string => {
  const o = asObj(input)
  let detail = typeof input === 'string' ? input : ''
  if (o) {
    const question = objects(o.questions)[0]
    detail =
      commandOf(o) ??
      SUMMARY_KEYS.map((k) => o[k]).find((v): v is string => typeof v === 'string' && v !== '') ??
      (question && typeof question.question === 'string' ? question.question : null) ??
      JSON.stringify(o)
  }
  return detail ? `${tool}: ${detail}` : tool
}
