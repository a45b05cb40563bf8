// GitHub Copilot CLI's events file as `show` prints it: prompts, answers, tool calls and their
// results, errors and cancels. Pure, apart from reading the file's tail.
import { isRefusal, readRange, withRegularFile } from '../../fs/safe-file.js'
import { wholeLines } from '../jsonl-lines.js'
import type { ConversationLine } from '../types.js'
import { EVENTS_READ_CAP } from './transcript.js'

/** Longest text shown for one entry in `show`'s tail. */
export const ENTRY_CHARS = 400

/** The screen's words for an Esc; the file only says `abort`. */
const CANCELLED = 'Operation cancelled by user'

const WANTED = /^\{"type":"(user\.message|assistant\.message|tool\.execution_start|tool\.execution_complete|session\.error|abort)"/

const clip = (text: string, max = ENTRY_CHARS): string => {
  const t = text.trim()
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

const resultOf = (data: Record<string, unknown>): string => {
  if (data.success === true && isObject(data.result) && typeof data.result.content === 'string') return data.result.content
  if (isObject(data.error) && typeof data.error.message === 'string') return `error: ${data.error.message}`
  return data.success === true ? 'done' : 'failed'
}

/** Pure: the lines of events.jsonl as the conversation lines `show` prints. */
export const deriveCopilotConversation = (lines: readonly string[]): ConversationLine[] => {
  const out: ConversationLine[] = []
  for (const line of lines) {
    if (!WANTED.test(line)) continue
    let o: unknown
    try {
      o = JSON.parse(line)
    } catch {
      continue
    }
    if (!isObject(o)) continue
    const at = typeof o.timestamp === 'string' ? o.timestamp : null
    const data = isObject(o.data) ? o.data : {}
    const text = typeof data.content === 'string' ? data.content : ''
    switch (o.type) {
      case 'user.message':
        out.push({ who: 'you', text: clip(text), at })
        break
      case 'assistant.message':
        if (text.trim()) out.push({ who: 'agent', text: clip(text), at })
        break
      case 'tool.execution_start': {
        const name = typeof data.toolName === 'string' ? data.toolName : '?'
        const input = data.arguments ?? {}
        out.push({ who: 'tool', text: clip(`${name} ${JSON.stringify(input)}`), at, tool: { name, input } })
        break
      }
      case 'tool.execution_complete':
        out.push({ who: 'result', text: clip(resultOf(data)), at })
        break
      case 'session.error':
        out.push({ who: 'agent', text: clip(`error: ${typeof data.message === 'string' ? data.message : '?'}`), at })
        break
      case 'abort':
        out.push({ who: 'agent', text: CANCELLED, at })
        break
    }
  }
  return out
}

/** The conversation of the file's last EVENTS_READ_CAP bytes; null when it cannot be read. */
export const readCopilotConversation = (path: string): ConversationLine[] | null => {
  const got = withRegularFile(path, {}, (fd, st) => {
    const from = Math.max(0, st.size - EVENTS_READ_CAP)
    return deriveCopilotConversation(wholeLines(readRange(fd, from, st.size - from).toString('utf8'), from === 0))
  })
  return isRefusal(got) ? null : got
}
