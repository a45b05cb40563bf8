// GitHub Copilot CLI, as the emitter (and the spool fold) sees it: payload → HookEvent, and the
// state table's rules. Light on purpose (lib/agents/hook-registry.ts): node builtins and pure code.
import { deriveEventContext } from '../hook-payload.js'
import type { AgentHooks } from '../types.js'
import { COPILOT, COPILOT_EVENT_ENV, normalizeCopilotEvent } from './hook-event.js'
import { eventsPathCheck } from './paths.js'
import { copilotRules } from './state-rules.js'

/** The payload's fields under the names deriveEventContext reads (transcript_path, cwd). */
const contextView = (payload: unknown): unknown => {
  if (typeof payload !== 'object' || payload === null) return payload
  const p = payload as Record<string, unknown>
  return { transcript_path: p.transcriptPath, cwd: p.cwd }
}

export const copilotHooks: AgentHooks = {
  id: COPILOT,
  // The events file's size at agentStop (the only event that names it); the project folder from COPILOT_PROJECT_DIR.
  toHookEvent: (payload, ctx) =>
    normalizeCopilotEvent(
      payload,
      ctx.env[COPILOT_EVENT_ENV],
      deriveEventContext(contextView(payload), ctx, eventsPathCheck(ctx.env), ctx.env.COPILOT_PROJECT_DIR),
    ),
  // No variable of Copilot's hook environment names the session: nothing to record.
  oversizedPayload: () => ({}),
  rules: copilotRules,
  // The event's name (our hook command sets it), the project folder, the TUI's pid (none under
  // `copilot -p`), and where its session folders live.
  sessionEnv: [COPILOT_EVENT_ENV, 'COPILOT_PROJECT_DIR', 'COPILOT_LOADER_PID', 'COPILOT_HOME'],
}
