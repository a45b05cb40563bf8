// A local page in a real headless Chromium (Debian's `chromium`, which .ci/run installs), driven
// through the DevTools protocol over a pipe (--remote-debugging-pipe: commands on fd 3, replies
// and events on fd 4, each JSON message ended by a NUL), so no port, no WebSocket and no package.
// The browser's HOME and XDG folders live in a temp profile removed afterwards: full Chromium
// writes ~/.config/chromium and ~/.cache/dconf even with --user-data-dir.
import { spawn } from 'node:child_process'
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Readable, Writable } from 'node:stream'

/** The browser binary: $CHROMIUM_BIN, else Debian's, else `chromium` on PATH. */
export const findChromium = (env: NodeJS.ProcessEnv = process.env): string => {
  const isExe = (file: string): boolean => {
    try {
      accessSync(file, constants.X_OK)
      return true
    } catch {
      return false
    }
  }
  // The binary itself, not /usr/bin/chromium: Debian's wrapper script prints shell errors on
  // machines where /dev/shm is mounted twice.
  const candidates = [env.CHROMIUM_BIN, '/usr/lib/chromium/chromium', ...(env.PATH ?? '').split(delimiter).map((d) => join(d, 'chromium'))]
  const found = candidates.find((c): c is string => !!c && isExe(c))
  if (!found) throw new Error("no chromium: install Debian's `chromium` package (.ci/run does) or set CHROMIUM_BIN")
  return found
}

export interface ConsoleMessage {
  type: string
  text: string
}

export interface PageResult {
  /** What the expression evaluated to, by value (JSON-like). */
  value: unknown
  /** console.error/assert calls, uncaught exceptions, and the browser's own error log entries (a refused load, a CSP violation). */
  errors: string[]
  console: ConsoleMessage[]
}

export interface InspectOptions {
  /** Evaluated in the page once it has loaded (and settled); an expression, not a function. */
  evaluate?: string
  /** A PNG of the viewport (or of the whole page with `fullPage`) is written here. */
  screenshot?: string
  fullPage?: boolean
  width?: number
  height?: number
  /** How long after the load event timers may still run and throw before the page is read. */
  settleMs?: number
  timeoutMs?: number
  chromium?: string
}

interface Message {
  id?: number
  method?: string
  sessionId?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { message: string; code: number }
}

/** One DevTools connection over the pipe: send a command, await its reply; watch events. */
const connect = (toBrowser: Writable, fromBrowser: Readable) => {
  let nextId = 1
  let buffered = ''
  const replies = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>()
  const listeners = new Set<(m: Message) => void>()
  fromBrowser.setEncoding('utf8')
  fromBrowser.on('data', (chunk: string) => {
    buffered += chunk
    for (let end = buffered.indexOf('\0'); end >= 0; end = buffered.indexOf('\0')) {
      const m = JSON.parse(buffered.slice(0, end)) as Message
      buffered = buffered.slice(end + 1)
      const waiting = m.id === undefined ? undefined : replies.get(m.id)
      if (waiting) {
        replies.delete(m.id!)
        if (m.error) waiting.reject(new Error(`${m.error.message} (${m.error.code})`))
        else waiting.resolve(m.result ?? {})
      } else for (const listen of listeners) listen(m)
    }
  })
  // The browser may be gone before a last command is written.
  toBrowser.on('error', () => {})
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      replies.set(id, { resolve, reject })
      toBrowser.write(`${JSON.stringify({ id, method, params, sessionId })}\0`)
    })
  const next = (match: (m: Message) => boolean): Promise<Message> =>
    new Promise((resolve) => {
      const listen = (m: Message): void => {
        if (!match(m)) return
        listeners.delete(listen)
        resolve(m)
      }
      listeners.add(listen)
    })
  return { send, next, listen: (fn: (m: Message) => void) => listeners.add(fn) }
}

/** The fields of the events read here (Runtime.consoleAPICalled, Runtime.exceptionThrown, Log.entryAdded). */
interface EventParams {
  type?: string
  args?: ConsoleArg[]
  exceptionDetails?: { text: string; exception?: { description?: string } }
  entry?: { level: string; source: string; text: string }
}

interface ConsoleArg {
  type: string
  value?: unknown
  description?: string
}

/** What one protocol event says went wrong in the page, if anything. */
const errorOf = (m: Message): string | undefined => {
  const p = m.params as EventParams | undefined
  if (!p) return undefined
  if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert'))
    return `console.${p.type}: ${consoleText(p.args)}`
  if (m.method === 'Runtime.exceptionThrown') return `exception: ${p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text}`
  if (m.method === 'Log.entryAdded' && p.entry?.level === 'error') return `${p.entry.source}: ${p.entry.text}`
  return undefined
}

const consoleText = (args: ConsoleArg[] = []): string =>
  args.map((a) => (a.value !== undefined ? String(a.value) : (a.description ?? a.type))).join(' ')

/** Loads `file` in a fresh headless Chromium and reports what the page did. */
export const inspectPage = async (file: string, opts: InspectOptions = {}): Promise<PageResult> => {
  const { width = 1200, height = 800, settleMs = 100, timeoutMs = 30_000 } = opts
  const binary = opts.chromium ?? findChromium()
  const profile = mkdtempSync(join(tmpdir(), 'tb-chromium-'))
  const args = [
    '--headless=new',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-extensions',
    '--disable-background-networking',
    '--disable-sync',
    `--user-data-dir=${join(profile, 'data')}`,
    `--window-size=${width},${height}`,
    '--remote-debugging-pipe',
    'about:blank',
  ]
  // Chromium refuses to start as root with its sandbox on.
  if (process.getuid?.() === 0) args.unshift('--no-sandbox')
  const child = spawn(binary, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, HOME: profile, XDG_CONFIG_HOME: join(profile, 'config'), XDG_CACHE_HOME: join(profile, 'cache') },
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000)
  })
  const exited = new Promise<string>((done) => {
    child.once('exit', (code, signal) => done(`exit ${code ?? signal}`))
    child.once('error', (err) => done(err.message))
  })
  const cdp = connect(child.stdio[3] as Writable, child.stdio[4] as Readable)
  const errors: string[] = []
  const consoleMessages: ConsoleMessage[] = []
  cdp.listen((m) => {
    if (m.method === 'Runtime.consoleAPICalled') {
      const p = m.params as EventParams
      consoleMessages.push({ type: p.type ?? '', text: consoleText(p.args) })
    }
    const error = errorOf(m)
    if (error) errors.push(error)
  })

  const drive = async (): Promise<PageResult> => {
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; targetId: string }[] }
    const targetId =
      targetInfos.find((t) => t.type === 'page')?.targetId ??
      ((await cdp.send('Target.createTarget', { url: 'about:blank' })).targetId as string)
    const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string }
    const send = (method: string, params: Record<string, unknown> = {}) => cdp.send(method, params, sessionId)
    await Promise.all([send('Runtime.enable'), send('Log.enable'), send('Page.enable')])
    // --window-size alone leaves a shorter viewport (the window's frame is taken off it).
    await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false })
    const loaded = cdp.next((m) => m.method === 'Page.loadEventFired' && m.sessionId === sessionId)
    const nav = await send('Page.navigate', { url: pathToFileURL(resolve(file)).href })
    if (nav.errorText) throw new Error(`could not load ${file}: ${String(nav.errorText)}`)
    await loaded
    await new Promise((r) => setTimeout(r, settleMs))
    const evaluated = (await send('Runtime.evaluate', {
      expression: opts.evaluate ?? 'document.title',
      returnByValue: true,
      awaitPromise: true,
    })) as { result: { value?: unknown }; exceptionDetails?: { exception?: { description?: string }; text: string } }
    if (evaluated.exceptionDetails)
      throw new Error(`evaluating failed: ${evaluated.exceptionDetails.exception?.description ?? evaluated.exceptionDetails.text}`)
    if (opts.screenshot) {
      if (opts.fullPage) {
        // The whole page: the viewport is made as tall as the document.
        const { result } = (await send('Runtime.evaluate', {
          expression: 'document.documentElement.scrollHeight',
          returnByValue: true,
        })) as {
          result: { value: number }
        }
        await send('Emulation.setDeviceMetricsOverride', {
          width,
          height: Math.max(height, result.value),
          deviceScaleFactor: 1,
          mobile: false,
        })
      }
      const { data } = (await send('Page.captureScreenshot', { format: 'png' })) as { data: string }
      writeFileSync(opts.screenshot, Buffer.from(data, 'base64'))
    }
    return { value: evaluated.result.value, errors, console: consoleMessages }
  }

  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`chromium did not finish in ${timeoutMs} ms; its stderr:\n${stderr}`)), timeoutMs)
  })
  const died = exited.then((how) => {
    throw new Error(`chromium stopped (${how}); its stderr:\n${stderr}`)
  })
  try {
    return await Promise.race([drive(), timedOut, died])
  } finally {
    clearTimeout(timer)
    died.catch(() => {})
    cdp.send('Browser.close').catch(() => {})
    // In pipe mode the browser leaves when asked (or when its pipe closes); a kill is the fallback.
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(killer)
    rmSync(profile, { recursive: true, force: true })
  }
}
