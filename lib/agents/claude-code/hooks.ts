// Claude Code, as the emitter sees it: payload → HookEvent, and the state table's rules.
// Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code only.
import { deriveEventContext } from '../hook-payload.js'
import type { AgentHooks } from '../types.js'
import { CLAUDE_CODE, normalizeEvent } from './hook-event.js'
import { transcriptPathCheck } from './paths.js'
import { claudeCodeRules, KNOWN_NOTIFICATION_TYPES } from './state-rules.js'

export const claudeCodeHooks: AgentHooks = {
  id: CLAUDE_CODE,
  // Claude Code creates the transcript lazily, after the first SessionStart: no size yet then.
  toHookEvent: (payload, ctx) =>
    normalizeEvent(payload, deriveEventContext(payload, ctx, transcriptPathCheck(ctx.env), ctx.env.CLAUDE_PROJECT_DIR)),
  // The environment still names the session and its pane: keep the pane mapping fresh.
  oversizedPayload: (env) => ({ session_id: env.CLAUDE_CODE_SESSION_ID, hook_event_name: 'PayloadTooLarge' }),
  rules: claudeCodeRules,
  // Its hooks run the emitter itself, never the spool: listed all the same, for the seam's contract.
  sessionEnv: ['CLAUDE_PROJECT_DIR', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CONFIG_DIR'],
  notice: (ev) =>
    ev.name === 'Notification' && ev.notificationType !== null && !KNOWN_NOTIFICATION_TYPES.has(ev.notificationType)
      ? `unknown Notification type ${JSON.stringify(ev.notificationType.slice(0, 60))} (a newer Claude Code?): it leaves the state as it was`
      : null,
}
