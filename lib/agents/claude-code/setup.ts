// Claude Code: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts AgentSetup); kept
// out of index.ts so that the queue's commands never load settings editing.
import type { AgentSetup } from '../types.js'
import { claudeCodeDoctor } from './doctor.js'
import { mergeStatusLine, unmergeStatusLine } from './status-line-setting.js'
import {
  deriveHookEntry,
  FOREGROUND_EVENTS,
  HOOK_EVENTS,
  isPluginEnabled,
  mergeHooks,
  settingsFile,
  unmergeHooks,
} from './settings-hooks.js'

export const claudeCodeSetup: AgentSetup = {
  id: 'claude-code',
  command: 'claude',
  doctor: claudeCodeDoctor,
  install: {
    label: 'Claude Code',
    settingsFile,
    events: HOOK_EVENTS,
    blocks: (event) => FOREGROUND_EVENTS.has(event),
    merge: (settings, command, known) => mergeHooks(settings, deriveHookEntry(command), known),
    unmerge: (settings, known, keep) => unmergeHooks(settings, known, keep?.events ?? [], keep?.hooks ?? false),
    // Claude Code 2.1.332 ran a hook of a session started before `install` at its next event.
    hooksReadAt: 'next-event',
    ownSettings: 'a session run with --settings of its own needs our hooks in those settings',
    plugin: { isEnabledIn: isPluginEnabled, uninstall: 'claude plugin uninstall trailboss' },
    statusLine: {
      merge: mergeStatusLine,
      unmerge: unmergeStatusLine,
      report: (cli) =>
        `the status line runs: ${[...cli, 'statusline'].join(' ')} (wrapping your own status-line command, if there was one)`,
    },
  },
}
