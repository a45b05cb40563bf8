// tmux's panes: listing and capturing them (adapters over the exec seam) and the pure parsers
// of tmux's output, exported so they are tested with captured strings.
import { execTmux, type TmuxExec } from './exec.js'
import { isOwnSession, VIEW_SESSION } from './view-session.js'

export interface Pane {
  paneId: string
  sessionId: string
  sessionName: string
  windowId: string
  windowIndex: number
  windowName: string
  paneIndex: number
  panePid: number
  currentCommand: string
  dead: boolean
  active: boolean
  width: number
  height: number
  /** The server's pid: with the socket, it tells a restarted server's reused pane ids apart. */
  serverPid: number
  /** The active pane of its window, its window the active one of a session a client shows. */
  inFront: boolean
  /** A client shows the pane's session. */
  sessionAttached: boolean
  /**
   * The session's last activity, in whole seconds since the epoch: a client's key or attach
   * (tmux sets it from the client's own activity), so in an attached session the person's.
   */
  sessionActivity: number
}

/**
 * Fields are split by a printable separator: in a C locale (cron) tmux prints control
 * characters such as \x1f as `_`. The window name, the one field likeliest to hold odd text,
 * comes last and takes whatever remains.
 */
export const FIELD_SEP = '|~|'
const SEP = FIELD_SEP
/** One line per pane. */
export const PANE_FORMAT = [
  '#{pane_id}',
  '#{session_id}',
  '#{session_name}',
  '#{window_id}',
  '#{window_index}',
  '#{pane_index}',
  '#{pane_pid}',
  '#{pane_current_command}',
  '#{pane_dead}',
  '#{pane_active}',
  '#{pane_width}',
  '#{pane_height}',
  '#{pid}',
  '#{window_active}',
  '#{session_attached}',
  '#{session_activity}',
  '#{window_name}',
].join(SEP)

export const parsePanes = (text: string): Pane[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('%'))
    .map((line) => {
      const f = line.split(SEP)
      return {
        paneId: f[0] ?? '',
        sessionId: f[1] ?? '',
        sessionName: f[2] ?? '',
        windowId: f[3] ?? '',
        windowIndex: Number(f[4]),
        paneIndex: Number(f[5]),
        panePid: Number(f[6]),
        currentCommand: f[7] ?? '',
        dead: f[8] === '1',
        active: f[9] === '1',
        width: Number(f[10]),
        height: Number(f[11]),
        serverPid: Number(f[12]),
        inFront: f[9] === '1' && f[13] === '1' && Number(f[14]) > 0,
        sessionAttached: Number(f[14]) > 0,
        sessionActivity: Number(f[15]) || 0,
        windowName: f.slice(16).join(SEP),
      }
    })

/** Which session names a linked pane's place: the person's, else the keeper (where a rescued window stays), else the view. */
const placeRank = (session: string): number => (!isOwnSession(session) ? 2 : session === VIEW_SESSION ? 0 : 1)

/**
 * Pure: each pane once. A linked window's panes are listed once per session that holds it (the
 * view, §12): the person's own session names its place, and a pane is in front when any of its
 * sessions shows it.
 */
export const panesById = (panes: readonly Pane[]): Map<string, Pane> => {
  const byId = new Map<string, Pane>()
  for (const p of panes) {
    const had = byId.get(p.paneId)
    if (!had) byId.set(p.paneId, p)
    else {
      const keep = placeRank(p.sessionName) > placeRank(had.sessionName) ? p : had
      byId.set(p.paneId, { ...keep, inFront: had.inFront || p.inFront })
    }
  }
  return byId
}

/** Pure: the latest client activity in the attached sessions, in ms since the epoch; null when none is attached. */
export const deriveClientActivity = (panes: readonly Pane[]): number | null => {
  const latest = Math.max(0, ...panes.filter((p) => p.sessionAttached).map((p) => p.sessionActivity))
  return latest > 0 ? latest * 1000 : null
}

/** tmux's answer when nothing listens on the socket (the server exited, or the file is stale). */
export const isNoServer = (stderr: string): boolean =>
  /no server running|error connecting to|failed to connect|No such file or directory|Connection refused/i.test(stderr)

/**
 * The panes of one server, or 'no-server' when the server answered that it is not there (so
 * its panes are gone). Throws TmuxUnavailable when tmux cannot be run, and Error on anything
 * else (a timeout): callers treat both as "unknown", never as "gone".
 */
export const listPanes = async (socket: string | undefined, exec: TmuxExec = execTmux): Promise<Pane[] | 'no-server'> => {
  const r = await exec(['list-panes', '-a', '-F', PANE_FORMAT], { socket })
  if (r.code === 0) return parsePanes(r.stdout)
  if (isNoServer(r.stderr)) return 'no-server'
  throw new Error(`tmux list-panes failed: ${r.stderr.trim() || `exit ${r.code}`}`)
}

/** The visible text of a pane (with `colours`, its colour escapes too), or null when the pane is not there. */
export const capturePane = async (
  socket: string | undefined,
  paneId: string,
  exec: TmuxExec = execTmux,
  colours = false,
): Promise<string | null> => {
  const r = await exec(['capture-pane', '-p', ...(colours ? ['-e'] : []), '-t', paneId], { socket })
  return r.code === 0 ? r.stdout : null
}

/** Printed between captures of one batch; a pane's text cannot produce it by chance. */
const CAPTURE_MARK = '@@trailboss-capture-boundary-7f3a9c@@'

/**
 * Pure: splits a batch's output into the panes' texts. Every capture is followed by its mark;
 * tmux stops a sequence at a failing command, so a capture with no mark after it is null.
 */
export const parseCaptures = (stdout: string, count: number): (string | null)[] => {
  const parts = stdout.split(`${CAPTURE_MARK}\n`)
  return Array.from({ length: count }, (_, i) => (i < parts.length - 1 ? (parts[i] ?? null) : null))
}

/**
 * The visible text of several panes of one server in one tmux run (a command sequence),
 * since each tmux process costs a few ms: null for a pane whose capture did not come back.
 */
export const capturePanes = async (
  socket: string | undefined,
  paneIds: readonly string[],
  exec: TmuxExec = execTmux,
): Promise<(string | null)[]> => {
  if (paneIds.length === 0) return []
  const args = paneIds.flatMap((id) => ['capture-pane', '-p', '-t', id, ';', 'display-message', '-p', CAPTURE_MARK, ';']).slice(0, -1)
  return parseCaptures((await exec(args, { socket })).stdout, paneIds.length)
}
