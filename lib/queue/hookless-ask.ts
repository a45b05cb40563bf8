// What a session without our hooks asks, in the agent's own words: no hook hands them over, so
// they are read from the end of its transcript (the conversation `show` prints). The install
// hint is not among them: it is the item's `hint` (docs/queue.md §5).
import { agentFor } from '../agents/index.js'
import type { ConversationLine } from '../agents/types.js'
import { endsWithQuestion } from '../agents/wait-text.js'
import type { Env } from '../paths.js'
import type { SessionRecord, ToolCall } from '../record/types.js'
import { readFileSize } from './discover.js'
import type { AskMemo, DiscoveryCache } from './discovery-cache.js'

/** Conversation lines read to find the turn's last words and its pending tool call. */
export const HOOKLESS_ASK_LINES = 20

/** Pure: `Name {json}` (a tool line of the conversation) as a tool call; its input stays text when cut. */
export const parseToolLine = (text: string): ToolCall => {
  const space = text.indexOf(' ')
  const name = space < 0 ? text : text.slice(0, space)
  const rest = space < 0 ? '' : text.slice(space + 1).trim()
  let input: unknown = rest || null
  try {
    input = rest ? JSON.parse(rest) : null
  } catch {
    // A line clipped for `show` is no longer JSON: the text still names the command.
  }
  return { name, input, useId: null }
}

/**
 * Pure: the turn's last words (the agent's last text since the person's last prompt) and the
 * tool call it is held at (a tool line with no result after it), from the conversation's end.
 */
export const deriveHooklessAsk = (lines: readonly ConversationLine[]): Pick<AskMemo, 'tool' | 'message'> => {
  let message: string | null = null
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    if (line.who === 'you') break
    if (line.who === 'agent') {
      message = line.text
      break
    }
  }
  const last = lines[lines.length - 1]
  return { tool: last?.who === 'tool' ? parseToolLine(last.text) : null, message }
}

/**
 * Pure: a hook-less record with what its transcript says: a permission wait names the tool
 * it is held at, a wait carries the agent's last words, and a finished turn whose last line
 * ends in `?` is a question, as the state table's Stop rule says (docs/design.md §3.1).
 */
export const applyHooklessAsk = (rec: SessionRecord, ask: Pick<AskMemo, 'tool' | 'message'> | undefined): SessionRecord => {
  if (!ask || (rec.state !== 'waiting' && rec.state !== 'permission')) return rec
  const kind = rec.state === 'waiting' && rec.kind === 'done' && endsWithQuestion(ask.message) ? 'question' : rec.kind
  const tool = rec.state === 'permission' ? ask.tool : null
  return { ...rec, kind, tool, lastTool: tool ?? rec.lastTool, message: ask.message }
}

/**
 * The asks of the hook-less waits among `records`, read again only when a transcript's size
 * changed (remembered in discovery.json): a quiet session costs a stat.
 */
export const readHooklessAsks = (records: readonly SessionRecord[], cache: DiscoveryCache, env: Env): Map<string, AskMemo> => {
  const out = new Map<string, AskMemo>()
  for (const rec of records) {
    if ((rec.state !== 'waiting' && rec.state !== 'permission') || !rec.transcriptPath) continue
    const size = readFileSize(rec.transcriptPath)
    let memo = cache.asks[rec.sessionId]
    if (!memo || memo.size !== size) {
      const lines = agentFor(rec.agent)?.readConversation(rec, env, HOOKLESS_ASK_LINES) ?? null
      memo = { size, ...(lines ? deriveHooklessAsk(lines) : { tool: null, message: null }) }
    }
    out.set(rec.sessionId, memo)
  }
  cache.asks = Object.fromEntries(out)
  return out
}
