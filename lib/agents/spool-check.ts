// doctor's check of an agent's events left in the spool (Codex and Gemini CLI share the spool).
import type { AgentCheck } from './types.js'

/** A spooled event older than this was never folded: the detached fold does not run. */
export const SPOOL_STUCK_MS = 60_000

/**
 * Pure: a warning when some of an agent's spooled events (`ages`, ms) are older than
 * SPOOL_STUCK_MS, else null. `who` opens the summary ("Codex"), `fix` is the agent's install.
 */
export const deriveSpoolStuckCheck = (id: string, who: string, ages: readonly number[], fix: string): AgentCheck | null => {
  const stuck = ages.filter((a) => a > SPOOL_STUCK_MS).length
  if (stuck === 0) return null
  return {
    id,
    status: 'warn',
    summary: `${who}: ${stuck} event(s) waited in the spool over ${SPOOL_STUCK_MS / 1000} s: the detached fold does not run (readers still see them)`,
    fix: `check the Node path in the hooks (${fix} writes the current one) and $TRAILBOSS_HOME/log`,
  }
}
