// A real tmux server on a private socket for navigation tests, and a control-mode client
// (`tmux -C attach` on a pipe), which tmux counts as an attached client like any terminal.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** tmux without the caller's own $TMUX, so a test run inside tmux never touches that server. */
export const cleanEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env
  return { ...env, ...extra }
}

export interface TestServer {
  socket: string
  pid: number
  dir: string
  tmux: (...args: string[]) => string
  /** `client_session pane_id` of every client, sorted. */
  clientViews: () => string[]
  close: () => void
}

interface Teardown {
  teardown: (fn: () => void) => void
}

/** Starts a server whose first session is `session` (a long `sleep`); killed at teardown. */
export const startServer = (t: Teardown, session = 'alpha', command: string[] = ['sleep', '1000'], size: [number, number] = [120, 30]): TestServer => {
  // Short temp path: a unix socket path must stay under ~104 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'tb-nav-'))
  const socket = join(dir, 's')
  const env = cleanEnv()
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', socket, ...args], { env, encoding: 'utf8' })
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', session, '-x', String(size[0]), '-y', String(size[1]), ...command)
  // Keep panes and sessions around exactly as a test left them.
  tmux('set-option', '-g', 'exit-empty', 'off')
  const [path, pid] = tmux('display-message', '-p', '#{socket_path},#{pid}').trim().split(',')
  const server: TestServer = {
    socket: path ?? socket,
    pid: Number(pid),
    dir,
    tmux,
    clientViews: () =>
      tmux('list-clients', '-F', '#{client_session} #{pane_id}')
        .split('\n')
        .filter(Boolean)
        .sort(),
    close: () => {
      try {
        tmux('kill-server')
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  t.teardown(server.close)
  return server
}

/** A new pane running `command`; returns its id. */
export const newPane = (server: TestServer, how: string[], command: string[] = ['sleep', '1000']): string =>
  server.tmux(...how, '-P', '-F', '#{pane_id}', ...command).trim()

/** A control-mode client attached to `session`; detached and ended at teardown. */
export const attachControlClient = async (t: Teardown, server: TestServer, session: string): Promise<ChildProcess> => {
  const before = server.clientViews().length
  const child = spawn('tmux', ['-S', server.socket, '-C', 'attach-session', '-t', session], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] })
  child.stdout.resume()
  child.stderr.resume()
  t.teardown(() => {
    child.stdin.end()
    child.kill()
  })
  await waitFor(() => server.clientViews().length > before, 'control client attached')
  return child
}

/** Polls `check` until it holds; fails after `ms`. */
export const waitFor = async (check: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      if (await check()) return
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
