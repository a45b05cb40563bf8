// OpenCode, as the emitter (and the spool fold) sees it: payload → HookEvent, and the state
// table's rules. Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code.
import { deriveEventContext } from '../hook-payload.js'
import type { AgentHooks } from '../types.js'
import { normalizeOpencodeEvent, OPENCODE } from './hook-event.js'
import { opencodeRules } from './state-rules.js'

/** OpenCode keeps its sessions in SQLite: no event names a transcript file, so no path is one. */
const noTranscript = (path: unknown): path is string => path === undefined && false

export const opencodeHooks: AgentHooks = {
  id: OPENCODE,
  toHookEvent: (payload, ctx) => normalizeOpencodeEvent(payload, deriveEventContext(payload, ctx, noTranscript, undefined)),
  // The plugin writes its events itself, never too large a payload: nothing to add.
  oversizedPayload: () => ({}),
  rules: opencodeRules,
}
