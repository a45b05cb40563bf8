// Whether a wait's pane still runs the agent that made it: the check `send` and `ok`/`no` make
// right before they type or press anything.
import type { QueueItem } from '../queue/derive.js'
import { runsInPane } from '../proc/agent-process.js'
import type { TmuxExec } from '../tmux/exec.js'

/**
 * Whether the wait's pane still runs the agent process its record names (the pane's first
 * process or a descendant, with the same start time); null when the record names none.
 */
export const checkAgent = async (item: QueueItem | undefined, exec: TmuxExec): Promise<boolean | null> => {
  const agent = item?.record.agentProcess
  if (!item?.tmux || agent === undefined || agent === null) return null
  const r = await exec(['display-message', '-p', '-t', item.tmux.pane, '#{pane_pid}'], { socket: item.tmux.socket })
  const panePid = Number(r.stdout.trim())
  return r.code === 0 && Number.isInteger(panePid) && panePid > 0 && runsInPane(agent, panePid)
}
