// A stand-in for the Gemini API (generativelanguage v1beta), on 127.0.0.1 only, for the end-to-end
// suite and the fixture captures. Gemini CLI 0.61.0 sends `POST /v1beta/models/<m>:streamGenerateContent
// ?alt=sse` for the turns (with its tools declared) and tool-less `:generateContent` side calls (the
// model router, the next-speaker check) that expect a small JSON text. Replies are scripted by
// upper-case keywords in the person's last prompt.
import type { ServerResponse } from 'node:http'
import { delay, type LoggedRequest, type MockHttp, sendEvent, sendJson, startMockHttp } from './mock-http.js'

/** Keywords a prompt can carry; the first one found decides the reply. */
export const GEMINI_KEYWORDS = ['FAIL', 'TOOL', 'EDIT', 'ASK', 'SLOW', 'QUESTION'] as const

export const GEMINI_TEXT_DONE = 'All done here.'
export const GEMINI_TEXT_QUESTION = 'Done. Should I also update the docs?'
export const GEMINI_TEXT_AFTER_TOOL = 'The command ran.'
export const GEMINI_TEXT_ERROR = 'mock: scripted failure'
export const GEMINI_TEXT_SLOW_FIRST = 'Working on it, step by step.'
/** How long a SLOW reply keeps streaming unless the client hangs up first (bounds the mock). */
export const GEMINI_SLOW_REPLY_MS = 60_000
/** Time to the first byte of every reply: the hooks of one turn should not all land in one ms. */
export const GEMINI_REPLY_DELAY_MS = 150

export interface MockGeminiOptions {
  /** A folder outside the project that TOOL touches a file in (EDIT writes into the project: Gemini CLI refuses paths outside it). */
  scratchDir: string
  replyDelayMs?: number
}

export interface MockGeminiRequest extends LoggedRequest {
  kind: string
  lastUser: string
}

export type MockGeminiApi = MockHttp<MockGeminiRequest>

type Part = { text?: string; functionCall?: { name: string; args: unknown }; functionResponse?: { name: string; response?: unknown } }
interface Content {
  role?: string
  parts?: Part[]
}
interface Body {
  contents?: Content[]
  tools?: { functionDeclarations?: { name: string }[] }[]
}

interface Plan {
  kind: string
  parts?: Part[]
  error?: { status: number; message: string }
  slow?: boolean
}

/**
 * The last user content's decisive part: a tool result, or the typed text. After a cancelled tool
 * Gemini CLI sends the cancelled call's result and the next prompt in one user content, so the
 * last part decides.
 */
export const lastUserInput = (contents: Content[]): { functionResponse?: string; text?: string } => {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!
    if (c.role !== 'user' || !Array.isArray(c.parts)) continue
    for (let j = c.parts.length - 1; j >= 0; j--) {
      const p = c.parts[j]!
      if (p.functionResponse) return { functionResponse: p.functionResponse.name }
      if (p.text?.trim()) return { text: p.text.trim() }
    }
  }
  return {}
}

/** Decides the reply to one request body (pure, so the script is easy to read and test). */
export const planGeminiReply = (body: Body, opts: MockGeminiOptions, seq: number): Plan => {
  const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? [])
  if (tools.length === 0) {
    // Side calls answer in JSON: the router picks a model, the next-speaker check hands back.
    return { kind: 'side', parts: [{ text: JSON.stringify({ reasoning: 'mock', model_choice: 'flash', next_speaker: 'user' }) }] }
  }
  const input = lastUserInput(body.contents ?? [])
  if (input.functionResponse === 'ask_user') return { kind: 'after_ask', parts: [{ text: 'Red it is.' }] }
  if (input.functionResponse) return { kind: 'after_tool', parts: [{ text: GEMINI_TEXT_AFTER_TOOL }] }
  const text = input.text ?? ''
  const word = GEMINI_KEYWORDS.find((k) => new RegExp(`\\b${k}\\b`).test(text))
  switch (word) {
    case 'FAIL':
      return { kind: 'error', error: { status: 400, message: GEMINI_TEXT_ERROR } }
    case 'TOOL':
      return {
        kind: 'tool',
        parts: [
          {
            functionCall: {
              name: 'run_shell_command',
              args: { command: `touch ${opts.scratchDir}/g${seq}`, description: 'Create a test file' },
            },
          },
        ],
      }
    case 'EDIT':
      return {
        kind: 'edit',
        parts: [{ functionCall: { name: 'write_file', args: { file_path: `note${seq}.txt`, content: 'hello from the mock\n' } } }],
      }
    case 'ASK':
      return {
        kind: 'ask',
        parts: [
          {
            functionCall: {
              name: 'ask_user',
              args: {
                questions: [
                  {
                    question: 'Which colour should the button be?',
                    header: 'Colour',
                    type: 'choice',
                    options: [
                      { label: 'Red', description: 'A red button' },
                      { label: 'Blue', description: 'A blue button' },
                    ],
                  },
                ],
              },
            },
          },
        ],
      }
    case 'SLOW':
      return { kind: 'slow', slow: true }
    case 'QUESTION':
      return { kind: 'text', parts: [{ text: GEMINI_TEXT_QUESTION }] }
    default:
      return { kind: 'text', parts: [{ text: GEMINI_TEXT_DONE }] }
  }
}

const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 4, totalTokenCount: 16 }

const response = (seq: number, parts: Part[], finishReason: string | undefined = 'STOP') => ({
  candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
  usageMetadata,
  modelVersion: 'mock-gemini',
  responseId: `mock-${seq}`,
})

const sseData = (res: ServerResponse, data: unknown): void => sendEvent(res, data)

/** Streams one line at once, then a step every 500 ms until the client hangs up (Esc) or the bound. */
const streamSlow = (res: ServerResponse, seq: number): void => {
  sseData(res, response(seq, [{ text: `${GEMINI_TEXT_SLOW_FIRST}\n\n` }], undefined))
  const started = Date.now()
  let step = 0
  const tick = setInterval(() => {
    if (res.destroyed) return clearInterval(tick)
    if (Date.now() - started > GEMINI_SLOW_REPLY_MS) {
      clearInterval(tick)
      sseData(res, response(seq, [{ text: 'Finished.' }]))
      res.end()
      return
    }
    sseData(res, response(seq, [{ text: `Step ${++step}.\n\n` }], undefined))
  }, 500)
  res.on('close', () => clearInterval(tick))
}

export const startMockGeminiApi = (opts: MockGeminiOptions): Promise<MockGeminiApi> => {
  let seq = 0
  return startMockHttp<MockGeminiRequest>(async (req, res, raw, log) => {
    const url = req.url ?? '/'
    if (req.method === 'GET') {
      log({ kind: 'probe', lastUser: '' })
      return sendJson(res, 200, { models: [] })
    }
    if (/:countTokens\b/.test(url)) return sendJson(res, 200, { totalTokens: 12 })
    if (!/:(streamGenerateContent|generateContent)\b/.test(url))
      return sendJson(res, 404, { error: { code: 404, message: 'mock: no such path', status: 'NOT_FOUND' } })
    let body: Body
    try {
      body = JSON.parse(raw) as Body
    } catch {
      return sendJson(res, 400, { error: { code: 400, message: 'mock: body is not JSON', status: 'INVALID_ARGUMENT' } })
    }
    seq += 1
    const plan = planGeminiReply(body, opts, seq)
    await delay(opts.replyDelayMs ?? GEMINI_REPLY_DELAY_MS)
    log({ kind: plan.kind, lastUser: JSON.stringify(lastUserInput(body.contents ?? [])).slice(0, 200) })
    if (plan.error)
      return sendJson(res, plan.error.status, {
        error: { code: plan.error.status, message: plan.error.message, status: 'INVALID_ARGUMENT' },
      })
    if (plan.slow) return streamSlow(res, seq)
    const reply = response(seq, plan.parts ?? [])
    if (!/streamGenerateContent/.test(url)) return sendJson(res, 200, reply)
    sseData(res, reply)
    res.end()
  })
}
