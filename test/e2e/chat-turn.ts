// What the Chat Completions mocks (mock-chat.ts for Copilot, mock-opencode-api.ts for OpenCode)
// read of a request alike: the person's last prompt, whether a tool's result came after it, and
// the upper-case keyword in that prompt that scripts the reply.

/** Keywords a prompt can carry; the first one found (in this order) decides the reply. */
export const CHAT_KEYWORDS = ['FAIL', 'SLOW', 'ASK', 'TOOL', 'PLAIN'] as const
export type ChatKeyword = (typeof CHAT_KEYWORDS)[number]

export interface ChatMessage {
  role?: string
  content?: unknown
}

/** A message's text: a plain string, or the text parts of a list of parts. */
const textOf = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((p: { text?: unknown }) => (typeof p.text === 'string' ? p.text : '')).join('\n')
      : ''

/** The person's last prompt and whether a tool's result came after it. */
export const lastChatTurn = (messages: ChatMessage[]): { prompt: string; afterTool: boolean } => {
  const last = messages.findLastIndex((m) => m.role === 'user')
  return {
    prompt: last < 0 ? '' : textOf(messages[last]!.content),
    afterTool: messages.slice(last + 1).some((m) => m.role === 'tool'),
  }
}

export const chatKeywordOf = (prompt: string): ChatKeyword | null =>
  CHAT_KEYWORDS.find((k) => new RegExp(`\\b${k}\\b`).test(prompt)) ?? null
