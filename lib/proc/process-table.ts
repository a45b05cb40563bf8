// The process table, for finding agents that run without our hooks: which process a pane runs
// (a pane's command is often `node`, the agent a child of it), its arguments, folder and
// environment. Linux /proc only; elsewhere every read is empty, and discovery falls back to what
// the agents publish themselves.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { parseProcStat, type ProcStat } from './agent-process.js'

/** Every process's stat, by pid: one directory listing and one small read per process. */
export const readProcessTable = (): Map<number, ProcStat> => {
  const out = new Map<number, ProcStat>()
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return out
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    try {
      const s = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'))
      if (s) out.set(s.pid, s)
    } catch {
      // It exited while we looked.
    }
  }
  return out
}

/** Pure: the descendants of `root` (itself first), breadth first, at most `max`. */
export const deriveDescendants = (table: ReadonlyMap<number, ProcStat>, root: number, max = 64): ProcStat[] => {
  const children = new Map<number, ProcStat[]>()
  for (const p of table.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p])
  const first = table.get(root)
  if (!first) return []
  const out: ProcStat[] = [first]
  for (let i = 0; i < out.length && out.length < max; i++) out.push(...(children.get(out[i]?.pid ?? -1) ?? []))
  return out.slice(0, max)
}

/** Pure: /proc/<pid>/cmdline (NUL-separated). */
export const parseCmdline = (text: string): string[] => text.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1)

export const readArgv = (pid: number): string[] => {
  try {
    return parseCmdline(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
  } catch {
    return []
  }
}

export const readCwd = (pid: number): string | null => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return null
  }
}

/** A process's environment block (/proc/<pid>/environ; our own user's processes only); null when unreadable. */
export const readEnviron = (pid: number): string | null => {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1')
  } catch {
    return null
  }
}

let bootMs: number | null | undefined
/** When a process started, ms since the epoch, from its start ticks (USER_HZ is 100 on Linux). */
export const processStartMs = (startTicks: number): number | null => {
  if (bootMs === undefined) {
    try {
      const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))
      bootMs = m ? Number(m[1]) * 1000 : null
    } catch {
      bootMs = null
    }
  }
  return bootMs === null ? null : bootMs + startTicks * 10
}
