// Gemini CLI, as the emitter sees it: payload → HookEvent, and the state table's rules.
// Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code only.
import { deriveEventContext } from '../hook-payload.js'
import type { AgentHooks } from '../types.js'
import { GEMINI, normalizeGeminiEvent } from './hook-event.js'
import { chatPathCheck } from './paths.js'
import { geminiRules } from './state-rules.js'

export const geminiHooks: AgentHooks = {
  id: GEMINI,
  // The chat file's size at the event: where a check on read starts.
  toHookEvent: (payload, ctx) =>
    normalizeGeminiEvent(payload, deriveEventContext(payload, ctx, chatPathCheck(ctx.env), ctx.env.GEMINI_PROJECT_DIR)),
  // Gemini CLI puts the session id in every hook's environment: keep the pane mapping fresh.
  oversizedPayload: (env) => ({ session_id: env.GEMINI_SESSION_ID, hook_event_name: 'PayloadTooLarge' }),
  rules: geminiRules,
  // The project folder, the session (for an oversized payload), and where its chat files live.
  sessionEnv: ['GEMINI_PROJECT_DIR', 'GEMINI_SESSION_ID', 'GEMINI_CLI_HOME'],
}
