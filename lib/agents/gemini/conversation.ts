// Gemini CLI's chat file as `show` prints it: the conversation lines of its records (read by
// transcript.ts). Pure.
import type { ConversationLine } from '../types.js'
import { asObj, CANCELLED_TEXT, type ChatLine, type ChatRecord, isTypedPrompt, liveRecords, parts, textOf } from './transcript.js'

/** Longest text shown for one chat record in `show`'s tail. */
export const ENTRY_CHARS = 400

const clip = (text: string, max = ENTRY_CHARS): string => {
  const t = text.trim()
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`
}

/** Pure: chat lines as the conversation lines `show` prints; a record rewritten under its id counts once, where it was first. */
export const deriveGeminiConversation = (lines: readonly ChatLine[]): ConversationLine[] => {
  const byId = new Map<unknown, ChatRecord>()
  const order: ChatRecord[] = []
  for (const rec of liveRecords(lines)) {
    const first = rec.id !== undefined ? byId.get(rec.id) : undefined
    if (first) Object.assign(first, rec)
    else {
      const copy = { ...rec }
      if (rec.id !== undefined) byId.set(rec.id, copy)
      order.push(copy)
    }
  }
  const out: ConversationLine[] = []
  for (const rec of order) {
    const at = typeof rec.timestamp === 'string' ? rec.timestamp : null
    if (isTypedPrompt(rec)) out.push({ who: 'you', text: clip(textOf(rec)), at })
    else if (rec.type === 'gemini') {
      const text = textOf(rec)
      if (text.trim()) out.push({ who: 'agent', text: clip(text), at })
      for (const call of Array.isArray(rec.toolCalls) ? rec.toolCalls.map(asObj) : []) {
        if (!call) continue
        const name = typeof call.name === 'string' ? call.name : '?'
        out.push({ who: 'tool', text: clip(`${name} ${JSON.stringify(call.args ?? {})}`), at, tool: { name, input: call.args ?? {} } })
        if (typeof call.status === 'string' && call.status !== 'success') out.push({ who: 'result', text: call.status, at })
      }
    } else if (rec.type === 'user') {
      for (const p of parts(rec)) {
        const fr = asObj(p.functionResponse)
        const resp = asObj(fr?.response)
        if (!resp) continue
        const text =
          typeof resp.output === 'string' ? resp.output : typeof resp.error === 'string' ? `error: ${resp.error}` : JSON.stringify(resp)
        out.push({ who: 'result', text: clip(text), at })
      }
    } else if (rec.type === 'error') out.push({ who: 'agent', text: clip(`error: ${textOf(rec)}`), at })
    else if (rec.type === 'info' && textOf(rec) === CANCELLED_TEXT) out.push({ who: 'agent', text: CANCELLED_TEXT, at })
  }
  return out
}
