// The HTTP part every agent's API mock shares: a server on 127.0.0.1 at a port the OS picks (so
// runs never collide), the body read whole, a log of the requests it answered, and a close that
// also ends the replies still streaming (a SLOW reply would otherwise hold it open). What each
// agent's API says lives in its own mock (mock-api.ts, mock-gemini-api.ts, mock-openai.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the log keeps of every request; each mock adds what its script decided. */
export interface LoggedRequest {
  at: number
  method: string
  url: string
}

export interface MockHttp<R extends LoggedRequest> {
  /** `http://127.0.0.1:<port>` and the base path the agent is pointed at. */
  url: string
  port: number
  requests: R[]
  close: () => Promise<void>
}

/** Adds one entry to the log, stamped now, with the request's method and url. */
export type LogRequest<R extends LoggedRequest> = (entry: Omit<R, keyof LoggedRequest>) => void

export type MockHandler<R extends LoggedRequest> = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  log: LogRequest<R>,
) => Promise<void> | void

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

export const sendJson = (res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(data))
}

/** Opens a server-sent-events reply (once) and writes one event; `event` names it where the API does. */
export const sendEvent = (res: ServerResponse, data: unknown, event?: string): void => {
  if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
}

/** The reply's first byte after `ms`: the real APIs never answer in 0 ms. */
export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * Starts a mock answering every request with `handle`. A handler that throws gets a 500 (or
 * its connection dropped once the reply has begun), never a crash of the test.
 */
export const startMockHttp = async <R extends LoggedRequest>(handle: MockHandler<R>, basePath = ''): Promise<MockHttp<R>> => {
  const requests: R[] = []
  const server = createServer((req, res) => {
    const log: LogRequest<R> = (entry) => requests.push({ at: Date.now(), method: req.method ?? '', url: req.url ?? '/', ...entry } as R)
    readBody(req)
      .then((body) => handle(req, res, body, log))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end()
        else res.destroy()
      })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
