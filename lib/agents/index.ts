// The agents the CLI knows: one line per agent. The record's `agent` values, `--agent`'s
// choices and everything agent-specific the core does come from here (lib/agents/types.ts).
// The emitter's own, lighter list is lib/agents/hook-registry.ts, install's and doctor's is
// lib/agents/setup-registry.ts: a new agent adds a line to each, and everything else goes in its
// folder (test/agent-seam.test.ts).
import { claudeCode } from './claude-code/index.js'
import { codex } from './codex/index.js'
import { copilot } from './copilot/index.js'
import { gemini } from './gemini/index.js'
import { opencode } from './opencode/index.js'
import type { AgentAdapter } from './types.js'

export const AGENTS: readonly AgentAdapter[] = [claudeCode, codex, gemini, copilot, opencode]

export const AGENT_IDS: readonly string[] = AGENTS.map((a) => a.id)

/** The adapter of a record's agent; undefined for an agent this version does not know. */
export const agentFor = (id: string): AgentAdapter | undefined => AGENTS.find((a) => a.id === id)
