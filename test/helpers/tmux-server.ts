// The one real tmux server of the tests: a private socket in a short temp folder (never the
// person's own server), no tmux.conf, and a teardown that kills it and removes the folder.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

interface Teardown {
  teardown: (fn: () => void) => void
}

/** The environment without the caller's own $TMUX, so a test run inside tmux never touches that server. */
export const cleanEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const { TMUX: _t, TMUX_PANE: _p, ...env } = process.env
  return { ...env, ...extra }
}

export interface ServerOptions {
  /** The first session's name (default `main`). */
  session?: string
  /** What its first pane runs (default: a long `sleep`, an agent stand-in). */
  command?: readonly string[]
  /** Extra `new-session` arguments, e.g. `['-n', 'watch']`. */
  sessionArgs?: readonly string[]
  size?: readonly [number, number]
  /** The environment tmux (and so every pane) starts with; default cleanEnv(). */
  env?: NodeJS.ProcessEnv
}

export interface TmuxServer {
  /** The socket path as tmux reports it (`#{socket_path}`). */
  socket: string
  /** The server's pid (`#{pid}`), as `$TMUX` carries it. */
  pid: number
  /** The private temp folder holding the socket; removed at teardown. */
  dir: string
  /** The first session's first pane. */
  firstPane: string
  tmux: (...args: string[]) => string
  /** A new pane made by `how` (`['new-window', '-d', …]`) running `command`; its id. */
  newPane: (how: readonly string[], command?: readonly string[]) => string
  capture: (pane: string) => string
  /** `client_session pane_id` of every client, sorted. */
  clientViews: () => string[]
  /** `$TMUX` as a process in one of its panes sees it. */
  tmuxVar: () => string
  close: () => void
}

export const SLEEPER = ['sleep', '1000'] as const

/** Starts a server; killed (and its folder removed) at the test's teardown, or by `close` when `t` is null. */
export const startTmuxServer = (t: Teardown | null, opts: ServerOptions = {}): TmuxServer => {
  // Short path: a unix socket path must stay under ~104 bytes, and tap's test dirs are longer.
  const dir = mkdtempSync(join(tmpdir(), 'tb-tmux-'))
  const env = opts.env ?? cleanEnv()
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', join(dir, 's'), ...args], { env, encoding: 'utf8' })
  const [x, y] = opts.size ?? [120, 30]
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    opts.session ?? 'main',
    ...(opts.sessionArgs ?? []),
    '-x',
    String(x),
    '-y',
    String(y),
    ...(opts.command ?? SLEEPER),
  )
  // Keep panes and sessions around exactly as a test left them.
  tmux('set-option', '-g', 'exit-empty', 'off')
  const [socket = join(dir, 's'), pid = '0', firstPane = ''] = tmux('display-message', '-p', '#{socket_path},#{pid},#{pane_id}')
    .trim()
    .split(',')
  const server: TmuxServer = {
    socket,
    pid: Number(pid),
    dir,
    firstPane,
    tmux,
    newPane: (how, command = SLEEPER) => tmux(...how, '-P', '-F', '#{pane_id}', ...command).trim(),
    capture: (pane) => tmux('capture-pane', '-p', '-t', pane),
    clientViews: () => tmux('list-clients', '-F', '#{client_session} #{pane_id}').split('\n').filter(Boolean).sort(),
    tmuxVar: () => `${socket},${pid},0`,
    close: () => {
      try {
        tmux('kill-server')
      } catch {
        // Already gone: the test killed it.
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  t?.teardown(server.close)
  return server
}
