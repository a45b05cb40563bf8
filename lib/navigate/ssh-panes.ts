// Which panes of a tmux server here already run an ssh connection to a host: the pane's process
// tree (from the process table) holds an `ssh` whose destination word names it. `go` to a remote
// wait switches to such a pane rather than opening another (docs/design.md §10.4).
import type { ProcStat } from '../proc/agent-process.js'
import { deriveDescendants, readArgv, readProcessTable } from '../proc/process-table.js'
import { parseSshCommand, reachesDestination } from '../remote/ssh-command.js'
import { listPanes, type Pane } from '../tmux/panes.js'
import type { TmuxExec } from '../tmux/exec.js'

/** A pane and the ssh command line found in it. */
export interface SshPane {
  paneId: string
  windowId: string
  /** The ssh process. */
  pid: number
  argv: string[]
}

/**
 * Pure: the live panes whose process tree runs ssh to `destination`, in the server's order.
 * `argvOf` reads a process's argv (the table's `comm` says which are ssh at all).
 */
export const deriveSshPanes = (
  panes: readonly Pane[],
  table: ReadonlyMap<number, ProcStat>,
  argvOf: (pid: number) => string[],
  destination: string,
): SshPane[] =>
  panes.flatMap((pane) => {
    if (pane.dead) return []
    for (const p of deriveDescendants(table, pane.panePid)) {
      if (p.comm !== 'ssh') continue
      const argv = argvOf(p.pid)
      const cmd = parseSshCommand(argv)
      if (cmd && reachesDestination(cmd, destination)) return [{ paneId: pane.paneId, windowId: pane.windowId, pid: p.pid, argv }]
    }
    return []
  })

/**
 * Pure: the pane to switch to: the one the client shows, else one whose ssh runs tmux (or our own
 * `go --attach`) there rather than a shell, else the first.
 */
export const pickSshPane = (panes: readonly SshPane[], clientPane: string): SshPane | undefined => {
  const runsTmux = (p: SshPane): boolean => {
    const first = parseSshCommand(p.argv)?.command[0] ?? ''
    return first === 'tmux' || first === 'trailboss'
  }
  return panes.find((p) => p.paneId === clientPane) ?? panes.find(runsTmux) ?? panes[0]
}

/** The panes of the server at `socket` running ssh to `destination` (none without /proc). */
export const listSshPanes = async (socket: string, destination: string, exec: TmuxExec): Promise<SshPane[]> => {
  const panes = await listPanes(socket, exec)
  if (panes === 'no-server') return []
  return deriveSshPanes(panes, readProcessTable(), readArgv, destination)
}
