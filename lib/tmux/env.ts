// `$TMUX` is `<socket path>,<server pid>,<session index>`; the socket path may hold commas.
// Pure, and on the emitter's path: the one parser of it.
import type { TmuxLocation } from '../record/types.js'

const splitTmuxEnv = (tmux: string | undefined): { socket: string; pid: number } | null => {
  if (!tmux) return null
  const parts = tmux.split(',')
  if (parts.length < 3) return null
  return { socket: parts.slice(0, -2).join(','), pid: Number(parts[parts.length - 2]) }
}

/** Where the agent runs: its pane (`$TMUX_PANE`) on the server `$TMUX` names; null outside tmux. */
export const parseTmuxEnv = (tmux: string | undefined, pane: string | undefined): TmuxLocation | null => {
  if (!pane || !/^%\d+$/.test(pane)) return null
  const parsed = splitTmuxEnv(tmux)
  if (!parsed || !parsed.socket.startsWith('/')) return null
  return { pane, socket: parsed.socket, serverPid: Number.isInteger(parsed.pid) && parsed.pid > 0 ? parsed.pid : null }
}

/** The socket path of the tmux server this process runs inside, from `$TMUX`. */
export const callerSocket = (tmuxEnv: string | undefined): string | null => splitTmuxEnv(tmuxEnv)?.socket ?? null
