// Gemini CLI, as the emitter sees it: payload → HookEvent, and the state table's rules.
// Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code only.
import type { AgentHooks } from '../types.js'
import { GEMINI, normalizeGeminiEvent } from './hook-event.js'
import { isReadableChatPath } from './paths.js'
import { geminiRules } from './state-rules.js'

export const geminiHooks: AgentHooks = {
  id: GEMINI,
  toHookEvent: (payload, ctx) => {
    const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>
    const cwd = typeof p.cwd === 'string' ? p.cwd : null
    const offset = isReadableChatPath(p.transcript_path, ctx.env) ? ctx.fileSize(p.transcript_path) : null
    return normalizeGeminiEvent(payload, { env: ctx.env, stamp: ctx.stamp, host: ctx.host, offset, project: ctx.projectLabel(ctx.env.GEMINI_PROJECT_DIR, cwd) })
  },
  // Gemini CLI puts the session id in every hook's environment: keep the pane mapping fresh.
  oversizedPayload: (env) => ({ session_id: env.GEMINI_SESSION_ID, hook_event_name: 'PayloadTooLarge' }),
  rules: geminiRules,
}
