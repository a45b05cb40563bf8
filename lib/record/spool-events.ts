// Spooled events (record/spool.ts) as HookEvents: for the emitter's fold, which writes them
// into the records, and for readers, which fold what is left in memory. Light on purpose.
import { hooksFor } from '../agents/hook-registry.js'
import type { Logger } from '../logger.js'
import type { Env } from '../paths.js'
import { hookContext } from './hook-context.js'
import { listSpool, readSpoolFile, type SpoolEntry, spoolDir, spoolEnv } from './spool.js'
import type { HookEvent } from './types.js'

/** One spooled entry as the event its agent makes of it, or why it cannot be one. */
export const spoolToEvent = (entry: SpoolEntry, env: Env, host: string): HookEvent | string => {
  const agent = hooksFor(entry.agent)
  if (!agent) return `unknown agent ${JSON.stringify(entry.agent)}`
  let payload: unknown
  try {
    payload = JSON.parse(entry.payload)
  } catch {
    return `payload is not JSON (${entry.payload.length} bytes)`
  }
  const withHook = spoolEnv(env, entry)
  return agent.toHookEvent(payload, hookContext(withHook, entry.stamp, host))
}

/**
 * Every event still in the spool (claimed ones too: a fold may have died), by session: what
 * readers fold in memory. An event a fold has just written may be seen again here; folding it
 * twice changes nothing (the order rules of record/fold.ts).
 */
export const readSpooledEvents = (sessionsDir: string, env: Env, host: string, log: Logger = () => {}): Map<string, HookEvent[]> => {
  const out = new Map<string, HookEvent[]>()
  const sdir = spoolDir(sessionsDir)
  for (const f of listSpool(sdir)) {
    const entry = readSpoolFile(`${sdir}/${f.name}`)
    // Gone meanwhile: a fold took it (and wrote it into the record).
    if (typeof entry === 'string') {
      if (entry !== 'missing') log(`ignored spool file ${f.name}: ${entry}`)
      continue
    }
    const ev = spoolToEvent(entry, env, host)
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
