// The agents as the emitter knows them: one line per agent. Kept apart from lib/agents/index.ts
// (the CLI's adapters, which read transcripts and screens) so the emitter, which starts on every
// agent event, loads only the hook side of each agent. A new agent adds a line here, there and in
// lib/agents/setup-registry.ts.
import { claudeCodeHooks } from './claude-code/hooks.js'
import { codexHooks } from './codex/hooks.js'
import { copilotHooks } from './copilot/hooks.js'
import { geminiHooks } from './gemini/hooks.js'
import { opencodeHooks } from './opencode/hooks.js'
import type { AgentHooks } from './types.js'

export const AGENT_HOOKS: readonly AgentHooks[] = [claudeCodeHooks, codexHooks, geminiHooks, copilotHooks, opencodeHooks]

/** Whom the emitter serves when its hook command names no agent: installs from before `--agent`. */
export const DEFAULT_AGENT = claudeCodeHooks.id

export const hooksFor = (id: string): AgentHooks | undefined => AGENT_HOOKS.find((a) => a.id === id)
