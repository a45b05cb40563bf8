// Which process an agent is: the emitter records it on every event (its parent, past a shell
// the hook may run in), and `send` checks that the pane still runs that very process before it
// types anything. A pid alone can be reused; with its start time (in clock ticks since boot,
// from /proc, immune to wall-clock steps) it names one process. Node builtins only: this is on
// the emitter's path.
import { readFileSync } from 'node:fs'

export interface AgentProcess {
  pid: number
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); null where /proc is missing. */
  startTicks: number | null
}

export interface ProcStat {
  pid: number
  comm: string
  ppid: number
  startTicks: number
}

/** Pure: `/proc/<pid>/stat`. The command name is in parentheses and may hold spaces or `)`. */
export const parseProcStat = (text: string): ProcStat | null => {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const pid = Number(text.slice(0, open).trim())
  const rest = text.slice(close + 2).split(' ')
  // rest[0] is field 3 (state): ppid is field 4, starttime field 22.
  const ppid = Number(rest[1])
  const startTicks = Number(rest[19])
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(startTicks)) return null
  return { pid, comm: text.slice(open + 1, close), ppid, startTicks }
}

export type StatReader = (pid: number) => ProcStat | null

export const readProcStat: StatReader = (pid) => {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return null
  }
}

/** Shells a hook command may run in (`sh -c …`): the agent is the shell's parent. hooks/spool.sh walks past the same. */
export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'busybox'])

/**
 * The agent process that ran this hook: the parent, or past up to two shells in between.
 * Without /proc (macOS), the parent's pid alone.
 */
export const findAgentProcess = (ppid: number, stat: StatReader = readProcStat): AgentProcess => {
  let s = stat(ppid)
  if (!s) return { pid: ppid, startTicks: null }
  for (let hops = 0; hops < 2 && SHELLS.has(s.comm) && s.ppid > 1; hops++) {
    const parent = stat(s.ppid)
    if (!parent) break
    s = parent
  }
  return { pid: s.pid, startTicks: s.startTicks }
}

/**
 * Whether `agent` is still the same process and runs in the pane whose first process is
 * `panePid` (the pane's process itself or one of its descendants). Where /proc is missing, the
 * pid must still be the pane's process or a child of it, and a reused pid cannot be told apart.
 */
export const runsInPane = (agent: AgentProcess, panePid: number, stat: StatReader = readProcStat): boolean => {
  const s = stat(agent.pid)
  if (!s) return agent.startTicks === null && agent.pid === panePid
  if (agent.startTicks !== null && s.startTicks !== agent.startTicks) return false
  let cur: ProcStat | null = s
  for (let hops = 0; cur && hops < 64; hops++) {
    if (cur.pid === panePid) return true
    if (cur.ppid <= 1) return false
    cur = stat(cur.ppid)
  }
  return false
}
