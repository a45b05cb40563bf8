// Pure: Claude Code transcript entries as the conversation lines `show` prints (one per text
// block, tool call or result).
import type { ConversationLine } from '../types.js'
import type { TranscriptEntry } from './transcript.js'

/** Longest text shown for one transcript entry in the tail. */
export const ENTRY_CHARS = 400

const asObj = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
const s = (v: unknown): string => (typeof v === 'string' ? v : '')

const clip = (text: string, max = ENTRY_CHARS): string => {
  const t = text.trim()
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`
}

/** Transcript entries as conversation lines (one per text block, tool call or result). */
export const deriveConversation = (entries: readonly TranscriptEntry[]): ConversationLine[] => {
  const out: ConversationLine[] = []
  for (const e of entries) {
    const at = typeof e.timestamp === 'string' ? e.timestamp : null
    const content = e.message?.content
    if (typeof content === 'string') {
      out.push({ who: e.type === 'user' ? 'you' : 'agent', text: clip(content), at })
      continue
    }
    if (!Array.isArray(content)) continue
    for (const part of content) {
      const p = asObj(part)
      if (!p) continue
      if (p.type === 'text') out.push({ who: e.type === 'user' ? 'you' : 'agent', text: clip(s(p.text)), at })
      else if (p.type === 'tool_use')
        out.push({
          who: 'tool',
          text: clip(`${s(p.name)} ${JSON.stringify(p.input ?? {})}`),
          at,
          tool: { name: s(p.name), input: p.input ?? {} },
        })
      else if (p.type === 'tool_result') {
        const c = p.content
        const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((x) => s(asObj(x)?.text)).join(' ') : ''
        out.push({ who: 'result', text: clip(`${p.is_error ? 'error: ' : ''}${text}`), at })
      }
    }
  }
  return out
}
