// Claude Code: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts AgentSetup); kept
// out of index.ts so that the queue's commands never load settings editing.
import type { AgentSetup } from '../types.js'
import { deriveHookEntry, FOREGROUND_EVENTS, HOOK_EVENTS, isPluginEnabled, mergeHooks, settingsFile, unmergeHooks } from './settings-hooks.js'

export const claudeCodeSetup: AgentSetup = {
  id: 'claude-code',
  command: 'claude',
  install: {
    label: 'Claude Code',
    settingsFile,
    events: HOOK_EVENTS,
    blocks: (event) => FOREGROUND_EVENTS.has(event),
    merge: (settings, command, known) => mergeHooks(settings, deriveHookEntry(command), known),
    unmerge: (settings, known, keep) => unmergeHooks(settings, known, keep?.events ?? [], keep?.hooks ?? false),
    plugin: { isEnabledIn: isPluginEnabled, uninstall: 'claude plugin uninstall trailboss' },
  },
}
