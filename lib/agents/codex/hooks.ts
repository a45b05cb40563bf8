// Codex, as the emitter (and the spool fold) sees it: payload → HookEvent, and the state
// table's rules. Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code.
import type { AgentHooks } from '../types.js'
import { CODEX, normalizeCodexEvent } from './hook-event.js'
import { rolloutPathCheck } from './paths.js'
import { codexRules } from './state-rules.js'

export const codexHooks: AgentHooks = {
  id: CODEX,
  toHookEvent: (payload, ctx) => {
    const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>
    const cwd = typeof p.cwd === 'string' ? p.cwd : null
    // The rollout's size at the event: where a check on read starts.
    const offset = rolloutPathCheck(ctx.env)(p.transcript_path) ? ctx.fileSize(p.transcript_path) : null
    return normalizeCodexEvent(payload, { env: ctx.env, stamp: ctx.stamp, host: ctx.host, offset, project: ctx.projectLabel(undefined, cwd) })
  },
  // No variable of Codex's hook environment names the session: nothing to record.
  oversizedPayload: () => ({}),
  rules: codexRules,
}
