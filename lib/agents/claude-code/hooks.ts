// Claude Code, as the emitter sees it: payload → HookEvent, and the state table's rules.
// Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code only.
import type { AgentHooks } from '../types.js'
import { CLAUDE_CODE, normalizeEvent } from './hook-event.js'
import { isReadableTranscriptPath } from './paths.js'
import { claudeCodeRules, KNOWN_NOTIFICATION_TYPES } from './state-rules.js'

export const claudeCodeHooks: AgentHooks = {
  id: CLAUDE_CODE,
  toHookEvent: (payload, ctx) => {
    const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>
    const cwd = typeof p.cwd === 'string' ? p.cwd : null
    // Claude Code creates the transcript lazily, after the first SessionStart: no size yet.
    const offset = isReadableTranscriptPath(p.transcript_path, ctx.env) ? ctx.fileSize(p.transcript_path) : null
    return normalizeEvent(payload, { env: ctx.env, stamp: ctx.stamp, host: ctx.host, offset, project: ctx.projectLabel(ctx.env.CLAUDE_PROJECT_DIR, cwd) })
  },
  // The environment still names the session and its pane: keep the pane mapping fresh.
  oversizedPayload: (env) => ({ session_id: env.CLAUDE_CODE_SESSION_ID, hook_event_name: 'PayloadTooLarge' }),
  rules: claudeCodeRules,
  notice: (ev) =>
    ev.name === 'Notification' && ev.notificationType !== null && !KNOWN_NOTIFICATION_TYPES.has(ev.notificationType)
      ? `unknown Notification type ${JSON.stringify(ev.notificationType.slice(0, 60))} (a newer Claude Code?): it leaves the state as it was`
      : null,
}
