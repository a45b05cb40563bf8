// A stand-in for the Anthropic Messages API, on 127.0.0.1 only, for the end-to-end suite.
// Claude Code 2.1.197 sends `HEAD /` at start, then `POST /v1/messages?beta=true` with
// `stream: true` for everything: the turns (with ~27 tools) and a tool-less side request for
// the session title. Replies are scripted by upper-case keywords in the person's last prompt.
import type { ServerResponse } from 'node:http'
import { delay, type LoggedRequest, type MockHttp, sendEvent, sendJson, startMockHttp } from './mock-http.js'

/** Keywords a prompt can carry; the first one found decides the reply. */
export const KEYWORDS = ['FAIL', 'PERM', 'ASK', 'SLOW', 'HANG', 'QUESTION'] as const

export const TEXT_DONE = 'All done here.'
export const TEXT_QUESTION = 'Done. Should I also update the docs?'
export const TEXT_AFTER_TOOL = 'Created the file.'
export const TEXT_AFTER_ASK = 'Red it is.'
export const TEXT_ERROR = 'mock: scripted failure'
export const TEXT_SLOW_FIRST = 'Working on it, step by step.'
/** How long a SLOW reply keeps streaming unless the client hangs up first (bounds the mock). */
export const SLOW_REPLY_MS = 60_000

/**
 * Time to the first byte of every reply. The real API never answers in 0 ms; without it the
 * hooks of one turn fire within a few ms of each other, closer than any real session.
 */
export const DEFAULT_REPLY_DELAY_MS = 200

export interface MockApiOptions {
  /** A folder outside the project: `PERM` asks to `touch` a file in it, which needs permission. */
  scratchDir: string
  replyDelayMs?: number
}

export interface MockRequest extends LoggedRequest {
  kind: string
  lastUser: string
}

export type MockApi = MockHttp<MockRequest>

type Block = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown }

interface Message {
  role: string
  content: unknown
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n')
}

/** The person's own words in a user message: Claude Code prepends `<system-reminder>` blocks. */
export const promptText = (content: unknown): string =>
  textOf(content)
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    .trim()

const toolNameOf = (messages: Message[], id: string): string | null => {
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue
    for (const b of m.content as { type?: string; id?: string; name?: string }[]) {
      if (b.type === 'tool_use' && b.id === id) return b.name ?? null
    }
  }
  return null
}

/**
 * The user messages since the model last spoke. Claude Code 2.1.197 splits a prompt into
 * several user messages (context reminders, then the text) and may end the list with a
 * `system` message (the agent listing), so the last message alone is not the prompt.
 */
export const turnInput = (messages: Message[]): Message[] => {
  const out: Message[] = []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role === 'assistant') break
    if (m.role === 'user') out.unshift(m)
  }
  return out
}

type InputBlock = { type: 'text'; text: string } | { type: 'tool_result'; tool_use_id: string; is_error?: boolean }

/**
 * The block that decides the reply: the last tool result or typed prompt of the turn. Context
 * reminders and interrupt markers are skipped, and so are the prompts of turns that got no
 * reply (a denial or an API error leaves them in the history without an assistant message).
 */
export const lastDecisiveBlock = (input: Message[]): InputBlock | undefined => {
  const blocks: InputBlock[] = input.flatMap((m) =>
    typeof m.content === 'string'
      ? [{ type: 'text' as const, text: m.content }]
      : Array.isArray(m.content)
        ? (m.content as InputBlock[])
        : [],
  )
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!
    if (b.type === 'tool_result') return b
    if (b.type !== 'text') continue
    const text = promptText(b.text)
    if (text && !text.startsWith('[Request interrupted')) return { type: 'text', text }
  }
  return undefined
}

interface Plan {
  kind: string
  blocks?: Block[]
  error?: { status: number; message: string }
  slow?: boolean
  /** Send nothing at all (Esc before any output); the request ends when the client hangs up. */
  hang?: boolean
}

/** A command the prompt spells out after `CMD:` (to its end, `\\n` for a line break), for dialogs of long or odd commands. */
export const commandIn = (prompt: string): string | null => {
  const at = prompt.indexOf('CMD:')
  return at < 0
    ? null
    : prompt
        .slice(at + 4)
        .trim()
        .replaceAll('\\n', '\n')
}

/** Decides the reply to one request body (pure, so the script is easy to read and test). */
export const planReply = (body: { tools?: unknown[]; messages?: Message[] }, opts: MockApiOptions, seq: number): Plan => {
  const messages = Array.isArray(body.messages) ? body.messages : []
  if (!Array.isArray(body.tools) || body.tools.length === 0) {
    // The title side request (and any other tool-less helper call).
    return { kind: 'side', blocks: [{ type: 'text', text: 'Trail Boss end-to-end session' }] }
  }
  const decisive = lastDecisiveBlock(turnInput(messages))
  if (decisive?.type === 'tool_result') {
    if (toolNameOf(messages, decisive.tool_use_id) === 'AskUserQuestion')
      return { kind: 'after_ask', blocks: [{ type: 'text', text: TEXT_AFTER_ASK }] }
    return { kind: decisive.is_error ? 'after_tool_error' : 'after_tool', blocks: [{ type: 'text', text: TEXT_AFTER_TOOL }] }
  }
  const lastText = decisive?.type === 'text' ? decisive.text : ''
  if (/<summary>/.test(lastText) || /summary of the conversation/i.test(lastText)) {
    return {
      kind: 'compact',
      blocks: [{ type: 'text', text: '<analysis>Short.</analysis>\n<summary>The person tested Trail Boss.</summary>' }],
    }
  }
  const word = KEYWORDS.find((k) => new RegExp(`\\b${k}\\b`).test(lastText))
  switch (word) {
    case 'FAIL':
      return { kind: 'error', error: { status: 400, message: TEXT_ERROR } }
    case 'PERM':
      return {
        kind: 'tool_use',
        blocks: [
          { type: 'text', text: 'I will create the file.' },
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: commandIn(lastText) ?? `touch ${opts.scratchDir}/x${seq}`, description: 'Create a test file' },
          },
        ],
      }
    case 'ASK':
      return {
        kind: 'ask',
        blocks: [
          {
            type: 'tool_use',
            name: 'AskUserQuestion',
            input: {
              questions: [
                {
                  question: 'Which colour should the button be?',
                  header: 'Colour',
                  multiSelect: false,
                  options: [
                    { label: 'Red', description: 'A red button' },
                    { label: 'Blue', description: 'A blue button' },
                  ],
                },
              ],
            },
          },
        ],
      }
    case 'SLOW':
      return { kind: 'slow', slow: true }
    case 'HANG':
      return { kind: 'hang', hang: true }
    case 'QUESTION':
      return { kind: 'text', blocks: [{ type: 'text', text: TEXT_QUESTION }] }
    default:
      return { kind: 'text', blocks: [{ type: 'text', text: TEXT_DONE }] }
  }
}

const sse = (res: ServerResponse, event: string, data: unknown): void => sendEvent(res, data, event)

const messageStart = (id: string, model: string) => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  },
})

const streamBlocks = (res: ServerResponse, id: string, model: string, blocks: Block[]): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` })
  sse(res, 'message_start', messageStart(id, model))
  let stop = 'end_turn'
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } })
    } else {
      stop = 'tool_use'
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: `toolu_${id}_${index}`, name: b.name, input: {} },
      })
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      })
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index })
  })
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } })
  sse(res, 'message_stop', { type: 'message_stop' })
  res.end()
}

/** Streams a line at once (Claude Code shows completed lines only), then keeps the reply open (so Esc can interrupt it) up to SLOW_REPLY_MS. */
const streamSlow = (res: ServerResponse, id: string, model: string): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` })
  sse(res, 'message_start', messageStart(id, model))
  sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
  sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `${TEXT_SLOW_FIRST}\n\n` } })
  const started = Date.now()
  let step = 0
  const tick = setInterval(() => {
    if (res.destroyed || Date.now() - started > SLOW_REPLY_MS) {
      clearInterval(tick)
      if (!res.destroyed) {
        sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 })
        sse(res, 'message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 20 },
        })
        sse(res, 'message_stop', { type: 'message_stop' })
        res.end()
      }
      return
    }
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `Step ${++step}.\n\n` } })
  }, 500)
  res.on('close', () => clearInterval(tick))
}

export const startMockApi = (opts: MockApiOptions): Promise<MockApi> => {
  let seq = 0
  return startMockHttp<MockRequest>(async (req, res, raw, log) => {
    const url = req.url ?? '/'
    if (req.method !== 'POST') {
      log({ kind: 'probe', lastUser: '' })
      res.writeHead(200, { 'content-type': 'text/plain' }).end()
      return
    }
    if (url.startsWith('/v1/messages/count_tokens')) return sendJson(res, 200, { input_tokens: 12 })
    if (!url.startsWith('/v1/messages'))
      return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'mock: no such path' } })
    let body: { model?: string; stream?: boolean; tools?: unknown[]; messages?: Message[] }
    try {
      body = JSON.parse(raw) as typeof body
    } catch {
      return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'mock: body is not JSON' } })
    }
    seq += 1
    const id = `msg_mock_${seq}`
    const model = body.model ?? 'claude-opus-4-8'
    const plan = planReply(body, opts, seq)
    await delay(opts.replyDelayMs ?? DEFAULT_REPLY_DELAY_MS)
    const messages = body.messages ?? []
    log({ kind: plan.kind, lastUser: JSON.stringify(lastDecisiveBlock(turnInput(messages)) ?? null).slice(0, 200) })
    if (plan.error)
      return sendJson(
        res,
        plan.error.status,
        { type: 'error', error: { type: 'invalid_request_error', message: plan.error.message } },
        { 'request-id': `req_${id}` },
      )
    if (plan.slow) return streamSlow(res, id, model)
    if (plan.hang) {
      const bound = setTimeout(() => res.destroy(), SLOW_REPLY_MS)
      res.on('close', () => clearTimeout(bound))
      return
    }
    const blocks = plan.blocks ?? []
    if (body.stream === false) {
      const content = blocks.map((b, i) =>
        b.type === 'text' ? b : { type: 'tool_use', id: `toolu_${id}_${i}`, name: b.name, input: b.input },
      )
      return sendJson(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 20 },
      })
    }
    streamBlocks(res, id, model, blocks)
  })
}
