// tmux's clients: listing them, and one look at a pane right before a client moves there.
import { execTmux, type TmuxExec } from './exec.js'
import { FIELD_SEP, isNoServer } from './panes.js'

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

/** The most recently active first; a tie goes to the newest attach (higher pid), not list order. */
export const byActivity = (a: Client, b: Client): number => b.activity - a.activity || b.pid - a.pid
