// OpenCode's record of a session (store.ts) as `show` prints it: prompts, answers, tool calls
// and their results, errors and Escs. Pure, apart from the read of the database.
import type { ConversationLine } from '../types.js'
import { readSessionTail, type SessionTail } from './store.js'

/** Longest text shown for one entry in `show`'s tail. */
export const ENTRY_CHARS = 400

const clip = (text: string, max = ENTRY_CHARS): string => {
  const t = text.trim()
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const iso = (ms: number): string | null => (Number.isFinite(ms) ? new Date(ms).toISOString() : null)

/** A finished tool call's words: its output, or its error (a refused dialog's included). */
const resultOf = (state: Record<string, unknown>): string | null => {
  if (state.status === 'completed') return typeof state.output === 'string' ? state.output : 'done'
  if (state.status === 'error') return `error: ${typeof state.error === 'string' ? state.error : 'failed'}`
  return null
}

/** Pure: a session's tail as the conversation lines `show` prints. */
export const deriveOpencodeConversation = (tail: SessionTail): ConversationLine[] => {
  const out: ConversationLine[] = []
  for (const m of tail.messages) {
    for (const p of tail.parts) {
      if (p.messageId !== m.id) continue
      const at = iso(p.created)
      const d = p.data
      // OpenCode's own notes to the model (synthetic text) are not the person's words.
      if (d.type === 'text' && typeof d.text === 'string' && d.synthetic !== true && d.text.trim())
        out.push({ who: m.role === 'user' ? 'you' : 'agent', text: clip(d.text), at })
      if (d.type === 'tool' && typeof d.tool === 'string') {
        const state = isObject(d.state) ? d.state : {}
        const input = isObject(state.input) ? state.input : {}
        out.push({ who: 'tool', text: clip(`${d.tool} ${JSON.stringify(input)}`), at, tool: { name: d.tool, input } })
        const result = resultOf(state)
        if (result !== null) out.push({ who: 'result', text: clip(result), at: iso(p.updated) })
      }
    }
    if (m.role === 'assistant' && m.error)
      out.push({
        who: 'agent',
        text: clip(m.error.name === 'MessageAbortedError' ? 'interrupted' : `error: ${m.error.message ?? m.error.name}`),
        at: iso(m.updated),
      })
  }
  return out
}

/** The last `count` lines of a session's conversation; null when the database cannot be read. */
export const readOpencodeConversation = (dbPath: string, sessionId: string, count: number): ConversationLine[] | null => {
  // Each message gives a line at least: reading `count` messages back is enough.
  const tail = readSessionTail(dbPath, sessionId, { messages: Math.max(1, count) })
  return tail ? deriveOpencodeConversation(tail).slice(-Math.max(0, count)) : null
}
