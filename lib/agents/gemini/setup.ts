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
    unmerge: (settings, known, keep) => unmergeGeminiHooks(settings, known, keep?.events ?? [], keep?.hooks ?? false),
  },
}
