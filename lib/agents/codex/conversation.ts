// The conversation `show` prints for a Codex session, from the tail of its rollout: the
// person's prompts, the agent's messages, tool calls and their output (response_item lines).
import { isRefusal, readRange, withRegularFile } from '../../fs/safe-file.js'
import type { ConversationLine } from '../types.js'

/** How much of the rollout's end is read for `show`. */
export const CONVERSATION_TAIL_BYTES = 512 * 1024
/** Longest text shown for one line. */
export const ENTRY_CHARS = 400

const clip = (text: string, max = ENTRY_CHARS): string => {
  const t = text.trim()
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`
}
const asObj = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
const s = (v: unknown): string => (typeof v === 'string' ? v : '')

/** A function call's `arguments` (JSON text) as its input; text that does not parse stays text. */
const parseArguments = (args: unknown): unknown => {
  if (typeof args !== 'string') return args ?? {}
  try {
    return JSON.parse(args) as unknown
  } catch {
    return args
  }
}

/** Pure: rollout lines as conversation lines. Codex's own context messages (`<…>`) are left out. */
export const deriveCodexConversation = (text: string): ConversationLine[] => {
  const out: ConversationLine[] = []
  for (const line of text.split('\n')) {
    if (!line.includes('"response_item"')) continue
    let o: Record<string, unknown> | null
    try {
      o = asObj(JSON.parse(line))
    } catch {
      continue
    }
    const p = asObj(o?.payload)
    if (!o || o.type !== 'response_item' || !p) continue
    const at = typeof o.timestamp === 'string' ? o.timestamp : null
    if (p.type === 'message' && (p.role === 'user' || p.role === 'assistant')) {
      const body = (Array.isArray(p.content) ? p.content : []).map((c) => s(asObj(c)?.text)).join('\n')
      if (p.role === 'user' && body.trimStart().startsWith('<')) continue
      if (body.trim()) out.push({ who: p.role === 'user' ? 'you' : 'agent', text: clip(body), at })
    } else if (p.type === 'function_call') {
      out.push({
        who: 'tool',
        text: clip(`${s(p.name)} ${s(p.arguments)}`),
        at,
        tool: { name: s(p.name), input: parseArguments(p.arguments) },
      })
    } else if (p.type === 'function_call_output') {
      const output = typeof p.output === 'string' ? p.output : JSON.stringify(p.output ?? '')
      out.push({ who: 'result', text: clip(output), at })
    }
  }
  return out
}

/** The last lines of the rollout's conversation; null when it cannot be read. */
export const readCodexConversation = (path: string): ConversationLine[] | null => {
  const got = withRegularFile(path, {}, (fd, st) => {
    const from = Math.max(0, st.size - CONVERSATION_TAIL_BYTES)
    // A cut first line simply does not parse.
    return deriveCodexConversation(readRange(fd, from, st.size - from).toString('utf8'))
  })
  return isRefusal(got) ? null : got
}
