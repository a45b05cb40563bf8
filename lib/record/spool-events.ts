// Spooled events (record/spool.ts) as HookEvents: for the emitter's fold, which writes them
// into the records, and for readers, which fold what is left in memory. Light on purpose.
import type { Logger } from '../logger.js'
import type { Env } from '../paths.js'
import { type AgentProcess, findAgentProcess, parseProcStat, type StatReader } from '../proc/agent-process.js'
import type { AgentRulesOf } from './agent-rules.js'
import { hookContext } from './hook-context.js'
import { describeLost, isIncomplete, isLostSpoolFile, listSpool, readSpoolFile, type SpoolEntry, spoolDir, spoolEnv } from './spool.js'
import type { HookEvent } from './types.js'

/** One spooled entry as the event its agent makes of it, or why it cannot be one. */
export const spoolToEvent = (entry: SpoolEntry, env: Env, host: string, agents: AgentRulesOf): HookEvent | string => {
  const agent = agents(entry.agent)
  if (!agent) return `unknown agent ${JSON.stringify(entry.agent)}`
  const withHook = spoolEnv(env, entry, agent.sessionEnv ?? [])
  const ev = agent.toHookEvent(entry.payload, hookContext(withHook, entry.stamp, host))
  if (typeof ev === 'string' || ev.headless) return ev
  const proc = spooledAgentProcess(entry)
  return proc ? { ...ev, agentProcess: proc } : ev
}

/**
 * Pure: the agent process that ran a spooled hook, from what the hook read of /proc when it ran
 * (the fold may run after the shell between them is gone); its parent's pid alone where it could
 * read nothing (no /proc); null from a spool file that names no parent.
 */
export const spooledAgentProcess = (entry: Pick<SpoolEntry, 'ppid' | 'procs'>): AgentProcess | null => {
  if (entry.ppid === null) return null
  const stats = entry.procs.map(parseProcStat)
  const recorded: StatReader = (pid) => stats.find((s) => s?.pid === pid) ?? null
  return findAgentProcess(entry.ppid, recorded)
}

/**
 * Every event still in the spool (claimed ones too: a fold may have died), by session: what
 * readers fold in memory. An event a fold has just written may be seen again here; folding it
 * twice changes nothing (the order rules of record/fold.ts). A file still being written is left
 * for the next read; a lost one (incomplete past SPOOL_LOST_MS, or not JSON) is said (the fold keeps it aside).
 */
export const readSpooledEvents = (
  sessionsDir: string,
  env: Env,
  hostName: () => string,
  agents: AgentRulesOf,
  log: Logger = () => {},
  now = Date.now(),
): Map<string, HookEvent[]> => {
  const out = new Map<string, HookEvent[]>()
  const sdir = spoolDir(sessionsDir)
  // Asked only when there is an event to name it in: node:os costs a start-up a little.
  let host: string | undefined
  for (const f of listSpool(sdir)) {
    const entry = readSpoolFile(`${sdir}/${f.name}`)
    // Gone meanwhile: a fold took it (and wrote it into the record).
    if (typeof entry === 'string') {
      if (entry !== 'missing') log(`ignored spool file ${f.name}: ${entry}`)
      continue
    }
    if (isIncomplete(entry)) {
      if (isLostSpoolFile(entry, now)) log(`ignored spool file ${f.name}: a lost event, ${describeLost(entry, now)}`)
      continue
    }
    const ev = spoolToEvent(entry, env, (host ??= hostName()), agents)
    if (typeof ev === 'string') {
      log(`ignored spool file ${f.name}: ${ev}`)
      continue
    }
    const list = out.get(ev.sessionId) ?? []
    list.push(ev)
    out.set(ev.sessionId, list)
  }
  return out
}
