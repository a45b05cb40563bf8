// Gemini CLI: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts AgentSetup); kept
// out of index.ts so that the queue's commands never load settings editing.
import type { AgentSetup } from '../types.js'
import { geminiDoctor } from './doctor.js'
import { deriveGeminiHookEntry, GEMINI_HOOK_EVENTS, geminiSettingsFileFor, mergeGeminiHooks, unmergeGeminiHooks } from './settings-hooks.js'

export const geminiSetup: AgentSetup = {
  id: 'gemini',
  command: 'gemini',
  doctor: geminiDoctor,
  install: {
    label: 'Gemini CLI',
    settingsFile: geminiSettingsFileFor,
    events: GEMINI_HOOK_EVENTS,
    // Gemini CLI waits for every hook: each runs the spool hook (hooks/spool.sh), not Node.
    blocks: () => true,
    runner: 'spool',
    merge: (settings, command, known) => mergeGeminiHooks(settings, deriveGeminiHookEntry(command), known),
    // Gemini CLI 0.61 read its settings' hooks at start: three prompts after `install` fired no hook, a new session did.
    hooksReadAt: 'start',
    ownSettings:
      'a session run with a GEMINI_CLI_HOME of its own reads settings.json there: GEMINI_CLI_HOME=<that folder> trailboss install --agent gemini',
    unmerge: (settings, known, keep) => unmergeGeminiHooks(settings, known, keep?.events ?? [], keep?.hooks ?? false),
  },
}
