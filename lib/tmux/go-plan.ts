// Navigation: which tmux client moves, and the tmux commands that take it to a pane (docs/design.md §5).
// Pure: clients, caller and target in; a plan or a refusal out. The effectful edges around it:
// lib/tmux/clients.ts (listClients, readPane) and lib/tmux/attach.ts (runPlan, attachTmux).
import { formatCommand } from '../text/command-line.js'
import { byActivity, type Client } from './clients.js'

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

/**
 * Which client moves (docs/design.md §5): `--client`; else the client showing the caller's pane (the
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

export const formatStep = (step: Step): string => formatCommand(['tmux', '-S', step.socket, ...step.args])
