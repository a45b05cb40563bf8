// A stand-in for an OpenAI-compatible Chat Completions API, on 127.0.0.1 only (port chosen by the
// OS), for driving the real OpenCode offline through a custom provider (`@ai-sdk/openai-compatible`,
// built into OpenCode): each model turn is a streamed `POST /v1/chat/completions`, and each
// session's first call is a title request without tools. Replies are scripted by upper-case
// keywords in the person's last prompt.
import type { ServerResponse } from 'node:http'
import { type ChatKeyword, type ChatMessage, chatKeywordOf, lastChatTurn } from './chat-turn.js'
import { delay, type LoggedRequest, type MockHttp, sendJson, startMockHttp } from './mock-http.js'

export const OC_TEXT_DONE = 'All done here.'
export const OC_TEXT_AFTER_TOOL = 'Ran the command.'
export const OC_TEXT_TITLE = 'Mock title'
export const OC_TEXT_ERROR = 'mock: the server broke'
/** How long a SLOW reply waits before it ends on its own (bounds the mock). */
export const OC_SLOW_REPLY_MS = 60_000
/** Told to OpenCode with each failure (`retry-after-ms`): its five retries then take a moment, not a minute. */
export const OC_RETRY_AFTER_MS = 100
const REPLY_DELAY_MS = 150

export interface OpencodeMockRequest extends LoggedRequest {
  keyword: ChatKeyword | null
  afterTool: boolean
}

export type OpencodeMockApi = MockHttp<OpencodeMockRequest>

let seq = 0

const chunk = (res: ServerResponse, id: string, delta: Record<string, unknown>, finish: string | null = null): void => {
  res.write(
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'mock-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
  )
}

const stream = (res: ServerResponse, id: string, msg: { content?: string; call?: { name: string; args: unknown } }): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  chunk(res, id, { role: 'assistant', content: '' })
  if (msg.content) chunk(res, id, { content: msg.content })
  if (msg.call)
    chunk(res, id, {
      tool_calls: [
        { index: 0, id: `call_${id}`, type: 'function', function: { name: msg.call.name, arguments: JSON.stringify(msg.call.args) } },
      ],
    })
  chunk(res, id, {}, msg.call ? 'tool_calls' : 'stop')
  res.write('data: [DONE]\n\n')
  res.end()
}

/** `commandOf(n)`: the shell command the n-th TOOL reply asks to run. */
export const startOpencodeMock = (commandOf: (n: number) => string): Promise<OpencodeMockApi> => {
  let tools = 0
  return startMockHttp<OpencodeMockRequest>(async (req, res, body, log) => {
    const url = req.url ?? ''
    if (req.method === 'GET' && /\/models/.test(url)) {
      log({ keyword: null, afterTool: false })
      return sendJson(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'mock' }] })
    }
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(url)) return sendJson(res, 404, { error: { message: 'mock: not found' } })
    let json: { messages?: ChatMessage[]; tools?: unknown[] } = {}
    try {
      json = JSON.parse(body) as typeof json
    } catch {
      // An empty or broken body is answered like a prompt without keywords.
    }
    const messages = Array.isArray(json.messages) ? json.messages : []
    const { prompt, afterTool } = lastChatTurn(messages)
    const keyword = chatKeywordOf(prompt)
    const hasTools = Array.isArray(json.tools) && json.tools.length > 0
    log({ keyword: hasTools ? keyword : null, afterTool })
    const id = `chatcmpl-${++seq}`
    await delay(REPLY_DELAY_MS)
    if (res.destroyed) return
    if (!hasTools) return stream(res, id, { content: OC_TEXT_TITLE })
    if (afterTool) return stream(res, id, { content: OC_TEXT_AFTER_TOOL })
    switch (keyword) {
      case 'FAIL':
        return sendJson(
          res,
          500,
          { error: { message: OC_TEXT_ERROR, type: 'server_error' } },
          { 'retry-after-ms': String(OC_RETRY_AFTER_MS) },
        )
      case 'SLOW': {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        chunk(res, id, { role: 'assistant', content: 'Thinking slowly' })
        const bound = setTimeout(() => stream(res, id, { content: OC_TEXT_DONE }), OC_SLOW_REPLY_MS)
        res.on('close', () => clearTimeout(bound))
        return
      }
      case 'ASK':
        return stream(res, id, {
          call: {
            name: 'question',
            args: {
              questions: [
                {
                  question: 'Which color?',
                  header: 'Color',
                  options: [
                    { label: 'Red', description: 'warm' },
                    { label: 'Blue', description: 'cool' },
                  ],
                },
              ],
            },
          },
        })
      case 'TOOL':
        return stream(res, id, { call: { name: 'bash', args: { command: commandOf(++tools), description: 'Write a marker file' } } })
      default:
        return stream(res, id, { content: OC_TEXT_DONE })
    }
  }, '/v1')
}
