// A stand-in for the OpenAI Chat Completions API, on 127.0.0.1 only (port chosen by the OS), for
// driving the real GitHub Copilot CLI offline. Copilot 1.0.102 with a provider of its own
// (`COPILOT_PROVIDER_BASE_URL`) asks `GET <base>/models`, then sends `POST <base>/chat/completions`
// with `stream: true` for each model turn. Replies are scripted by upper-case keywords in the
// person's last prompt.
import type { ServerResponse } from 'node:http'
import { type ChatKeyword, type ChatMessage, chatKeywordOf, lastChatTurn } from './chat-turn.js'
import { delay, type LoggedRequest, type MockHttp, sendJson, startMockHttp } from './mock-http.js'

export const CHAT_TEXT_DONE = 'Finished the task.'
export const CHAT_TEXT_PLAIN = 'plain answer'
export const CHAT_TEXT_AFTER_TOOL = 'Ran it, all good.'
export const CHAT_TEXT_ERROR = 'mock: the server broke (500)'
/** The description the shell call carries: Copilot shows it as its dialog's title. */
export const CHAT_TOOL_DESCRIPTION = 'Write a marker file'
/** How long a SLOW reply waits before it ends on its own (bounds the mock). */
export const CHAT_SLOW_REPLY_MS = 60_000
/** The real API never answers in 0 ms; hooks of one turn would otherwise fire within a few ms. */
export const CHAT_REPLY_DELAY_MS = 150

/** The file a TOOL call's command touches, relative to the session's folder: one per call. */
export const markerOf = (n: number): string => `copilot-mark-${n}`

export interface ChatMockRequest extends LoggedRequest {
  keyword: ChatKeyword | null
  /** The reply follows a tool's result (the second leg of a tool turn). */
  afterTool: boolean
  /** The shell command a TOOL reply asked for. */
  command?: string
}

export type ChatMockApi = MockHttp<ChatMockRequest>

interface Tool {
  name?: string
  function?: { name?: string; parameters?: { properties?: Record<string, unknown> } }
}

const toolNamed = (tools: Tool[], name: string): Tool | undefined => tools.find((t) => (t.function?.name ?? t.name) === name)

let seq = 0

/** A streamed reply: the role, the text or the tool calls, the finish, `[DONE]`. */
const streamReply = (res: ServerResponse, model: unknown, msg: { content?: string; call?: { name: string; args: unknown } }): void => {
  const id = `chatcmpl-${++seq}`
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): void => {
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
    )
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  chunk({ role: 'assistant', content: '' })
  if (msg.content) chunk({ content: msg.content })
  if (msg.call) {
    const fn = { name: msg.call.name, arguments: JSON.stringify(msg.call.args) }
    chunk({ tool_calls: [{ index: 0, id: `call_${seq}`, type: 'function', function: fn }] })
  }
  chunk({}, msg.call ? 'tool_calls' : 'stop', { usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })
  res.write('data: [DONE]\n\n')
  res.end()
}

export const startChatMock = (opts: { replyDelayMs?: number } = {}): Promise<ChatMockApi> => {
  const wait = opts.replyDelayMs ?? CHAT_REPLY_DELAY_MS
  let calls = 0
  return startMockHttp<ChatMockRequest>(async (req, res, body, log) => {
    const url = req.url ?? ''
    if (req.method === 'GET' && /\/models$/.test(url)) {
      log({ keyword: null, afterTool: false })
      return sendJson(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'mock' }] })
    }
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(url))
      return sendJson(res, 404, { error: { message: 'mock: not found', type: 'not_found' } })
    let json: { model?: unknown; messages?: ChatMessage[]; tools?: Tool[] } = {}
    try {
      json = JSON.parse(body) as typeof json
    } catch {
      // An empty or broken body is answered like a prompt without keywords.
    }
    const tools = Array.isArray(json.tools) ? json.tools : []
    const { prompt, afterTool } = lastChatTurn(Array.isArray(json.messages) ? json.messages : [])
    const keyword = tools.length === 0 ? null : chatKeywordOf(prompt)
    await delay(wait)
    if (res.destroyed) return
    // A request without tools is Copilot's own (a title, a summary), not a turn of the person's.
    if (tools.length === 0) {
      log({ keyword, afterTool })
      return streamReply(res, json.model, { content: 'Probe title' })
    }
    if (afterTool) {
      log({ keyword, afterTool })
      return streamReply(res, json.model, { content: CHAT_TEXT_AFTER_TOOL })
    }
    switch (keyword) {
      case 'FAIL':
        log({ keyword, afterTool })
        return sendJson(res, 500, { error: { message: CHAT_TEXT_ERROR, type: 'server_error', code: 500 } })
      case 'SLOW': {
        log({ keyword, afterTool })
        // The stream opens and stays open, so Copilot shows "Working" until Esc Esc hangs up.
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        res.write(
          `data: ${JSON.stringify({ id: 'slow', object: 'chat.completion.chunk', created: 0, model: json.model, choices: [{ index: 0, delta: { role: 'assistant', content: 'Thinking slowly' }, finish_reason: null }] })}\n\n`,
        )
        const bound = setTimeout(() => {
          res.write('data: [DONE]\n\n')
          res.end()
        }, CHAT_SLOW_REPLY_MS)
        res.on('close', () => clearTimeout(bound))
        return
      }
      case 'ASK':
        if (toolNamed(tools, 'ask_user')) {
          log({ keyword, afterTool })
          const args = {
            message: 'Which color?',
            requestedSchema: {
              type: 'object',
              properties: { color: { type: 'string', title: 'Color', enum: ['Red', 'Blue'] } },
              required: ['color'],
            },
          }
          return streamReply(res, json.model, { call: { name: 'ask_user', args } })
        }
        break
      case 'TOOL': {
        const shell = toolNamed(tools, 'bash')
        if (!shell) break
        const command = `touch ${markerOf(++calls)}`
        log({ keyword, afterTool, command })
        const props = shell.function?.parameters?.properties ?? {}
        const args = 'description' in props ? { command, description: CHAT_TOOL_DESCRIPTION } : { command }
        return streamReply(res, json.model, { call: { name: 'bash', args } })
      }
      case 'PLAIN':
        log({ keyword, afterTool })
        return streamReply(res, json.model, { content: CHAT_TEXT_PLAIN })
      default:
        break
    }
    log({ keyword, afterTool })
    return streamReply(res, json.model, { content: CHAT_TEXT_DONE })
  }, '/v1')
}
