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
    // Gemini CLI waits for every hook. Still the Node emitter: on the spool its e2e suite lost
    // steps on a loaded machine (2 of 5 runs), not yet understood (docs/gemini-cli.md).
    blocks: () => true,
    merge: (settings, command, known) => mergeGeminiHooks(settings, deriveGeminiHookEntry(command), known),
    unmerge: (settings, known, keep) => unmergeGeminiHooks(settings, known, keep?.events ?? [], keep?.hooks ?? false),
  },
}
