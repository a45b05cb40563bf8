// What `install`, `uninstall` and `doctor` need of each agent: one line per agent, beside its
// line in lib/agents/index.ts (the queue's registry) and lib/agents/hook-registry.ts (the
// emitter's). Three lists so that each reader loads only what it runs: `ls` and `status` never
// load settings editing and its lock library, the emitter never loads the CLI's adapters.
import { claudeCodeSetup } from './claude-code/setup.js'
import { codexSetup } from './codex/setup.js'
import { copilotSetup } from './copilot/setup.js'
import { geminiSetup } from './gemini/setup.js'
import { opencodeSetup } from './opencode/setup.js'
import { DEFAULT_AGENT } from './hook-registry.js'
import type { AgentSetup } from './types.js'

export const SETUPS: readonly AgentSetup[] = [claudeCodeSetup, codexSetup, geminiSetup, copilotSetup, opencodeSetup]

/** The setup of an agent; undefined for an agent this version does not know. */
export const setupFor = (id: string): AgentSetup | undefined => SETUPS.find((a) => a.id === id)

/** The command that installs an agent's hooks: the default agent's needs no `--agent`. */
export const installCommandFor = (id: string): string => `trailboss install${id === DEFAULT_AGENT ? '' : ` --agent ${id}`}`
