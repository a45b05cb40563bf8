// Navigation: which tmux client moves, and the tmux commands that take it to a pane.
// `planGo` is pure (clients, caller and target in; a plan or a refusal out); `listClients`,
// `readPane`, `runPlan` and `attachTmux` are the effectful edges around it (DESIGN §5).
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { execTmux, FIELD_SEP, isNoServer, TmuxUnavailable, type TmuxExec } from './tmux.js'

export interface Client {
  /** What `-c` takes: the tty path, or `client-<pid>` for a control-mode client (no tty). */
  name: string
  tty: string
  pid: number
  /** Last key or attach, in whole seconds since the epoch (tmux's own resolution). */
  activity: number
  session: string
  controlMode: boolean
  /** The pane the client shows now. */
  paneId: string
}

// A printable separator (tmux prints control characters as `_` outside a UTF-8 locale, as in
// cron); the session name, free text, comes last and takes whatever remains.
const SEP = FIELD_SEP
export const CLIENT_FORMAT = [
  '#{client_name}',
  '#{client_tty}',
  '#{client_pid}',
  '#{client_activity}',
  '#{client_control_mode}',
  '#{pane_id}',
  '#{client_session}',
].join(SEP)

export const parseClients = (text: string): Client[] =>
  text
    .split('\n')
    .filter((line) => line.includes(SEP))
    .map((line) => {
      const f = line.split(SEP)
      return {
        name: f[0] ?? '',
        tty: f[1] ?? '',
        pid: Number(f[2]),
        activity: Number(f[3]) || 0,
        controlMode: f[4] === '1',
        paneId: f[5] ?? '',
        session: f.slice(6).join(SEP),
      }
    })

/** The clients attached to one server; none when no server answers on that socket. */
export const listClients = async (socket: string, exec: TmuxExec = execTmux): Promise<Client[]> => {
  const r = await exec(['list-clients', '-F', CLIENT_FORMAT], { socket })
  if (r.code === 0) return parseClients(r.stdout)
  if (isNoServer(r.stderr)) return []
  throw new Error(`tmux list-clients failed: ${r.stderr.trim() || `exit ${r.code}`}`)
}

export type PaneCheck = { state: 'live'; serverPid: number } | { state: 'dead' | 'missing' | 'no-server' }

/** One look at the pane right before moving there: the queue may be seconds old. */
export const readPane = async (socket: string, pane: string, exec: TmuxExec = execTmux): Promise<PaneCheck> => {
  const r = await exec(['display-message', '-p', '-t', pane, '-F', `#{pid}${SEP}#{pane_id}${SEP}#{pane_dead}`], { socket })
  if (r.code !== 0) return { state: isNoServer(r.stderr) ? 'no-server' : 'missing' }
  const [pid, id, dead] = r.stdout.trim().split(SEP)
  if (id !== pane) return { state: 'missing' }
  return dead === '1' ? { state: 'dead' } : { state: 'live', serverPid: Number(pid) }
}

/** What `go` needs of a queue item's place. */
export interface PaneTarget {
  pane: string
  socket: string
}

export interface GoContext {
  /** The server this process runs inside (from `$TMUX`), or null outside tmux. */
  callerSocket: string | null
  /** `$TMUX_PANE`; absent in `run-shell` jobs and popups. */
  callerPane: string | null
  /** `--client`. */
  client?: string | undefined
  /** Both stdin and stdout are a terminal, so `tmux attach` can take it over. */
  terminal: boolean
  /** The clients of the target's server. */
  targetClients: readonly Client[]
  /** The clients of the caller's server when it is another one (to place a `--client`). */
  callerClients?: readonly Client[] | undefined
}

export interface Step {
  socket: string
  args: string[]
  /** `attach` runs with this terminal (inherited stdio); `tmux` is a plain call. */
  mode: 'tmux' | 'attach'
}

export type GoPlan =
  | { ok: true; how: 'switch'; client: Client; steps: Step[] }
  | { ok: true; how: 'attach'; client: null; steps: Step[] }
  | {
      ok: false
      why: 'other-server' | 'no-client' | 'unknown-client' | 'no-terminal'
      message: string
      hint: string
      /** For `other-server`: the command that gets there from a plain terminal. */
      command?: string[]
    }

/** The most recently active first; a tie goes to the newest attach (higher pid), not list order. */
export const byActivity = (a: Client, b: Client): number => b.activity - a.activity || b.pid - a.pid

/**
 * Which client moves (DESIGN §5): `--client`; else the client showing the caller's pane (the
 * most recently active if several); else the most recently active client of the server.
 * Outside tmux with a terminal, the terminal itself becomes the client (`tmux attach`).
 * Clients cannot cross servers, so a caller on another server gets the attach command instead.
 */
export const planGo = (target: PaneTarget, ctx: GoContext): GoPlan => {
  const attachArgs = ['attach-session', '-t', target.pane]
  const attachCommand = ['tmux', '-S', target.socket, ...attachArgs]
  const switchTo = (client: Client): GoPlan => ({
    ok: true,
    how: 'switch',
    client,
    // tmux 3.x: a pane target moves the client to its session, window and pane in one step.
    steps: [{ socket: target.socket, mode: 'tmux', args: ['switch-client', '-c', client.name, '-t', target.pane] }],
  })
  const otherServer: GoPlan = {
    ok: false,
    why: 'other-server',
    message: `${target.pane} is on another tmux server (${target.socket}), and a client cannot move between servers`,
    hint: `attach to it from a plain terminal: ${formatCommand(attachCommand)}`,
    command: attachCommand,
  }

  if (ctx.client !== undefined) {
    const named = (c: Client): boolean => c.name === ctx.client || c.tty === ctx.client
    const here = ctx.targetClients.find(named)
    if (here) return switchTo(here)
    if (ctx.callerClients?.some(named)) return otherServer
    return {
      ok: false,
      why: 'unknown-client',
      message: `no tmux client named ${ctx.client} on ${target.socket}`,
      hint: 'list them with `tmux list-clients`, or leave out --client',
    }
  }

  const sameServer = ctx.callerSocket !== null && ctx.callerSocket === target.socket
  if (ctx.callerSocket !== null && !sameServer) return otherServer
  if (sameServer) {
    const sorted = [...ctx.targetClients].sort(byActivity)
    const chosen = sorted.find((c) => ctx.callerPane !== null && c.paneId === ctx.callerPane) ?? sorted[0]
    if (chosen) return switchTo(chosen)
    return {
      ok: false,
      why: 'no-client',
      message: 'no client is attached to this tmux server',
      hint: `attach one, or from a plain terminal: ${formatCommand(attachCommand)}`,
    }
  }
  if (ctx.terminal) return { ok: true, how: 'attach', client: null, steps: [{ socket: target.socket, mode: 'attach', args: attachArgs }] }
  // No tmux and no terminal (a script, a notification click): move whoever looks at that server.
  const latest = [...ctx.targetClients].sort(byActivity)[0]
  if (latest) return switchTo(latest)
  return {
    ok: false,
    why: 'no-terminal',
    message: 'not in tmux, not on a terminal, and no client is attached to that tmux server',
    hint: `run it in a terminal, or: ${formatCommand(attachCommand)}`,
  }
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/

/** A command line to print for a person to paste into a POSIX shell. */
export const formatCommand = (argv: readonly string[]): string =>
  argv.map((a) => (SAFE_WORD.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')

export const formatStep = (step: Step): string => formatCommand(['tmux', '-S', step.socket, ...step.args])

export type AttachFn = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>

/**
 * Runs the steps in order, stopping at the first failure (its stderr becomes the error).
 * Returns the exit code: 0, or the code of an `attach` step (the tmux client's own).
 */
export const runPlan = async (
  steps: readonly Step[],
  deps: { exec?: TmuxExec; attach?: AttachFn; env?: NodeJS.ProcessEnv } = {},
): Promise<number> => {
  const exec = deps.exec ?? execTmux
  for (const step of steps) {
    if (step.mode === 'attach') {
      // A TMUX left in the environment would make tmux refuse to nest; we are outside by now.
      const { TMUX: _tmux, TMUX_PANE: _pane, ...env } = deps.env ?? process.env
      return (deps.attach ?? attachTmux)(['-S', step.socket, ...step.args], env)
    }
    const r = await exec(step.args, { socket: step.socket })
    if (r.code !== 0) throw new Error(`tmux ${step.args[0]} failed: ${r.stderr.trim() || `exit ${r.code}`}`)
  }
  return 0
}

/** Signals a terminal or a supervisor sends us that belong to the tmux client we stand in for. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']

/**
 * `tmux attach` with this process's terminal. Node 20 has no execve, so the client is a child
 * with inherited stdio; signals sent to us are passed on, and its exit code becomes ours
 * (128 + signal number when a signal ended it, as shells report it).
 */
export const attachTmux: AttachFn = (argv, env) =>
  new Promise((resolve, reject) => {
    const child = spawn('tmux', argv, { stdio: 'inherit', env })
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal)
    }
    for (const s of FORWARDED_SIGNALS) process.on(s, forward)
    const done = (): void => {
      for (const s of FORWARDED_SIGNALS) process.off(s, forward)
    }
    child.on('error', (err: NodeJS.ErrnoException) => {
      done()
      reject(err.code === 'ENOENT' ? new TmuxUnavailable(err) : err)
    })
    child.on('exit', (code, signal) => {
      done()
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0))
    })
  })
