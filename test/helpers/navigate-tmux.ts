// Navigation tests: the shared tmux server (tmux-server.ts) as they start it, and a control-mode client
// (`tmux -C attach` on a pipe), which tmux counts as an attached client like any terminal.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanEnv, SLEEPER, startTmuxServer, type TmuxServer } from './tmux-server.js'
import { waitFor } from './wait-for.js'

export { cleanEnv, type TmuxServer as TestServer } from './tmux-server.js'
export { waitFor } from './wait-for.js'

interface Teardown {
  teardown: (fn: () => void) => void
}

/** A server whose first session is `session` (a long `sleep`); killed at teardown. */
export const startServer = (
  t: Teardown,
  session = 'alpha',
  command: readonly string[] = SLEEPER,
  size: readonly [number, number] = [120, 30],
): TmuxServer => startTmuxServer(t, { session, command, size })

/** A private home (`home`, `proj`) and a server whose panes run `cli` as `trailboss` from PATH. */
export interface KeyBindingLab {
  home: string
  cwd: string
  server: TmuxServer
}

/**
 * A server for the README's key bindings: `trailboss` on its PATH (a wrapper running `cli`, as an
 * installed package puts it) and TRAILBOSS_HOME in its global environment, first session
 * `session` running `command`.
 */
export const startKeyBindingLab = (t: Teardown, cli: string, session: string, command: readonly string[]): KeyBindingLab => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const home = join(dir, 'home')
  const cwd = join(dir, 'proj')
  const bin = join(dir, 'bin')
  mkdirSync(home, { mode: 0o700 })
  for (const d of [cwd, bin]) mkdirSync(d)
  writeFileSync(join(bin, 'trailboss'), `#!/bin/sh\nexec '${process.execPath}' '${cli}' "$@"\n`, { mode: 0o755 })
  const server = startServer(t, session, command)
  server.tmux('set-environment', '-g', 'PATH', `${bin}:${process.env.PATH ?? ''}`)
  server.tmux('set-environment', '-g', 'TRAILBOSS_HOME', home)
  return { home, cwd, server }
}

/** A new pane running `command`; returns its id. */
export const newPane = (server: TmuxServer, how: string[], command: readonly string[] = SLEEPER): string => server.newPane(how, command)

/** The pids of the server's clients now. */
const clientPids = (server: Pick<TmuxServer, 'tmux'>): Set<string> =>
  new Set(server.tmux('list-clients', '-F', '#{client_pid}').split('\n').filter(Boolean))

/**
 * Waits for a client that was not there `before`: by pid, not by count, since a client of an
 * earlier test that is still leaving would hide the new one from a count.
 */
const waitForNewClient = (server: Pick<TmuxServer, 'tmux'>, before: Set<string>, what: string): Promise<void> =>
  waitFor(() => [...clientPids(server)].some((pid) => !before.has(pid)), what)

/** A control-mode client attached to `session`; detached and ended at teardown. */
export const attachControlClient = async (
  t: Teardown,
  server: Pick<TmuxServer, 'socket' | 'tmux'>,
  session: string,
): Promise<ChildProcess> => {
  const before = clientPids(server)
  const child = spawn('tmux', ['-S', server.socket, '-C', 'attach-session', '-t', session], {
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  child.stdout.resume()
  child.stderr.resume()
  t.teardown(() => {
    child.stdin.end()
    child.kill()
  })
  await waitForNewClient(server, before, 'control client attached')
  return child
}

/** A terminal client (tmux attach under `script`, 160×40), as a person's, and what it has drawn. */
export interface TerminalClient {
  /** Types into the terminal: `\u001bw` is Alt-w. */
  write(text: string): void
  /** Everything drawn since start (or since clear()). */
  readonly screen: string
  clear(): void
}

/** A terminal client attached to `session`; killed at teardown. */
export const attachTerminalClient = async (
  t: Teardown,
  server: Pick<TmuxServer, 'socket' | 'tmux'>,
  session: string,
): Promise<TerminalClient> => {
  const before = clientPids(server)
  const term = spawn('script', ['-qfc', `tmux -S '${server.socket}' attach-session -t ${session}`, '/dev/null'], {
    env: cleanEnv({ TERM: 'xterm', COLUMNS: '160', LINES: '40' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let screen = ''
  term.stdout.on('data', (b: Buffer) => (screen += b.toString()))
  t.teardown(() => {
    term.kill()
  })
  await waitForNewClient(server, before, 'a terminal client')
  return {
    write: (text) => void term.stdin.write(text),
    get screen() {
      return screen
    },
    clear: () => {
      screen = ''
    },
  }
}
