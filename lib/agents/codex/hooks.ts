// Codex, as the emitter (and the spool fold) sees it: payload → HookEvent, and the state
// table's rules. Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code.
import { deriveEventContext } from '../hook-payload.js'
import type { AgentHooks } from '../types.js'
import { CODEX, normalizeCodexEvent } from './hook-event.js'
import { rolloutPathCheck } from './paths.js'
import { codexRules } from './state-rules.js'

export const codexHooks: AgentHooks = {
  id: CODEX,
  // The rollout's size at the event: where a check on read starts. Codex names no project folder.
  toHookEvent: (payload, ctx) => normalizeCodexEvent(payload, deriveEventContext(payload, ctx, rolloutPathCheck(ctx.env), undefined)),
  // No variable of Codex's hook environment names the session: nothing to record.
  oversizedPayload: () => ({}),
  rules: codexRules,
  // Where its rollouts live (a session run with a CODEX_HOME of its own).
  sessionEnv: ['CODEX_HOME'],
}
