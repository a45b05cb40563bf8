// A stand-in for the OpenAI Responses API, on 127.0.0.1 only (port chosen by the OS), for
// driving the real Codex CLI offline. Codex 0.171.0 with a custom provider (`wire_api =
// "responses"`) sends `POST /v1/responses` with `stream: true` for each model turn, and may ask
// `GET /v1/models`. Replies are scripted by upper-case keywords in the person's last prompt.
import type { ServerResponse } from 'node:http'
import { delay, type LoggedRequest, type MockHttp, sendEvent, sendJson, startMockHttp } from './mock-http.js'

/** Keywords a prompt can carry; the first one found (in this order) decides the reply. */
export const CODEX_KEYWORDS = ['FAIL500', 'FAIL', 'SLOW', 'ASK', 'PERM', 'TOOL', 'QUESTION', 'PLAIN'] as const
export type CodexKeyword = (typeof CODEX_KEYWORDS)[number]

export const CODEX_TEXT_DONE = 'All done here.'
/** A turn that ends asking the person something (no tool): a question wait. */
export const CODEX_TEXT_QUESTION = 'Done. Should I also update the docs?'
export const CODEX_TEXT_AFTER_TOOL = 'Ran the command.'
export const CODEX_TEXT_AFTER_ASK = 'Red it is.'
export const CODEX_TEXT_ERROR = 'mock: scripted failure'
/** How long a SLOW reply waits before it ends on its own (bounds the mock). */
export const CODEX_SLOW_REPLY_MS = 60_000
/** The real API never answers in 0 ms; hooks of one turn would otherwise fire within a few ms. */
export const CODEX_REPLY_DELAY_MS = 150

export interface CodexMockOptions {
  /** A folder outside Codex's workspace: PERM writes a file there, which needs an escalation. */
  scratchDir: string
  replyDelayMs?: number
}

export interface CodexMockRequest extends LoggedRequest {
  keyword: CodexKeyword | null
  /** The reply follows a tool's output (the second leg of a tool turn). */
  afterTool: boolean
}

export type CodexMockApi = MockHttp<CodexMockRequest>

interface InputItem {
  type?: string
  role?: string
  content?: { type?: string; text?: string }[]
}

/** Codex wraps context in user messages of its own (`<environment_context>`, `<turn_aborted>`…). */
const isPersonMessage = (i: InputItem): boolean => i.type === 'message' && i.role === 'user' && !/^\s*</.test(i.content?.[0]?.text ?? '')

/** The person's last prompt and whether a tool's output came after it. */
export const lastTurn = (input: InputItem[]): { prompt: string; afterTool: boolean } => {
  let last = -1
  input.forEach((i, k) => {
    if (isPersonMessage(i)) last = k
  })
  const prompt = last < 0 ? '' : (input[last]!.content ?? []).map((c) => c.text ?? '').join('\n')
  const afterTool = input.slice(last + 1).some((i) => typeof i.type === 'string' && i.type.endsWith('_call_output'))
  return { prompt, afterTool }
}

export const keywordOf = (prompt: string): CodexKeyword | null => {
  for (const k of CODEX_KEYWORDS) if (new RegExp(`\\b${k}\\b`).test(prompt)) return k
  return null
}

const usage = { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 }

let seq = 0

const sseEvents = (res: ServerResponse, events: Record<string, unknown>[]): void => {
  for (const ev of events) sendEvent(res, ev, String(ev.type))
}

const message = (id: string, text: string): Record<string, unknown> => ({
  type: 'response.output_item.done',
  item: { type: 'message', role: 'assistant', id: `msg_${id}`, content: [{ type: 'output_text', text }] },
})

const completed = (id: string): Record<string, unknown> => ({ type: 'response.completed', response: { id, usage } })

/** A shell call in whatever shape of shell tool this Codex offers. */
const shellCall = (id: string, tools: string[], command: string, escalate: boolean): Record<string, unknown> => {
  let name: string
  let args: Record<string, unknown>
  if (tools.includes('shell_command')) {
    name = 'shell_command'
    args = { command }
  } else if (tools.includes('exec_command')) {
    name = 'exec_command'
    args = { cmd: command }
  } else {
    name = 'shell'
    args = { command: ['bash', '-lc', command] }
  }
  if (escalate) {
    args.sandbox_permissions = 'require_escalated'
    args.justification = 'write the marker file outside the workspace'
  }
  return {
    type: 'response.output_item.done',
    item: { type: 'function_call', call_id: `call_${id}`, name, arguments: JSON.stringify(args) },
  }
}

const askCall = (id: string): Record<string, unknown> => ({
  type: 'response.output_item.done',
  item: {
    type: 'function_call',
    call_id: `call_${id}`,
    name: 'request_user_input',
    arguments: JSON.stringify({
      questions: [
        {
          id: 'color',
          header: 'Color',
          question: 'Which color should the marker be?',
          options: [
            { label: 'Red', description: 'warm' },
            { label: 'Blue', description: 'cool' },
          ],
        },
      ],
    }),
  },
})

export const startCodexMock = (opts: CodexMockOptions): Promise<CodexMockApi> => {
  const wait = opts.replyDelayMs ?? CODEX_REPLY_DELAY_MS
  return startMockHttp<CodexMockRequest>(async (req, res, body, log) => {
    const url = req.url ?? ''
    if (req.method === 'GET' && /\/models/.test(url)) {
      log({ keyword: null, afterTool: false })
      return sendJson(res, 200, { object: 'list', data: [], models: [] })
    }
    if (req.method !== 'POST' || !/\/responses$/.test(url))
      return sendJson(res, 404, { error: { message: 'mock: not found', type: 'not_found' } })
    let json: { input?: InputItem[]; tools?: { name?: string; type?: string }[] } = {}
    try {
      json = JSON.parse(body) as typeof json
    } catch {
      // An empty or broken body is answered like a prompt without keywords.
    }
    const { prompt, afterTool } = lastTurn(Array.isArray(json.input) ? json.input : [])
    const keyword = keywordOf(prompt)
    const tools = (json.tools ?? []).map((t) => t.name ?? t.type ?? '')
    log({ keyword, afterTool })
    const id = `resp_${++seq}`
    await delay(wait)
    if (res.destroyed) return
    const created = { type: 'response.created', response: { id } }
    if (afterTool) {
      const text = keyword === 'ASK' ? CODEX_TEXT_AFTER_ASK : CODEX_TEXT_AFTER_TOOL
      sseEvents(res, [created, message(id, text), completed(id)])
      res.end()
      return
    }
    switch (keyword) {
      case 'FAIL500':
        return sendJson(res, 500, { error: { message: CODEX_TEXT_ERROR, type: 'server_error' } })
      case 'FAIL':
        sseEvents(res, [created, { type: 'response.failed', response: { id, error: { code: 'server_error', message: CODEX_TEXT_ERROR } } }])
        res.end()
        return
      case 'SLOW': {
        // The stream opens and stays open, so Codex shows "Working" until Esc hangs up.
        sseEvents(res, [created])
        const bound = setTimeout(() => {
          sseEvents(res, [message(id, CODEX_TEXT_DONE), completed(id)])
          res.end()
        }, CODEX_SLOW_REPLY_MS)
        res.on('close', () => clearTimeout(bound))
        return
      }
      case 'ASK':
        if (tools.includes('request_user_input')) {
          sseEvents(res, [created, askCall(id), completed(id)])
          res.end()
          return
        }
        break
      case 'PERM':
        sseEvents(res, [created, shellCall(id, tools, `touch ${opts.scratchDir}/codex-perm-${seq}`, true), completed(id)])
        res.end()
        return
      case 'TOOL':
        sseEvents(res, [created, shellCall(id, tools, 'echo mock-tool', false), completed(id)])
        res.end()
        return
      case 'QUESTION':
        sseEvents(res, [created, message(id, CODEX_TEXT_QUESTION), completed(id)])
        res.end()
        return
      default:
        break
    }
    sseEvents(res, [created, message(id, CODEX_TEXT_DONE), completed(id)])
    res.end()
  }, '/v1')
}
