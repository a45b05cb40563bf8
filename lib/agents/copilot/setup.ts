// GitHub Copilot CLI: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts
// AgentSetup); kept out of index.ts so that the queue's commands never load settings editing.
import type { AgentSetup } from '../types.js'
import { copilotDoctor } from './doctor.js'
import { COPILOT } from './hook-event.js'
import { COPILOT_HOOK_EVENTS, copilotHookFileFor, mergeCopilotHooks, unmergeCopilotHooks } from './settings-hooks.js'

export const copilotSetup: AgentSetup = {
  id: COPILOT,
  command: 'copilot',
  doctor: copilotDoctor,
  install: {
    label: 'GitHub Copilot CLI',
    settingsFile: copilotHookFileFor,
    events: COPILOT_HOOK_EVENTS,
    // Copilot waits for every hook but notification's: each runs the spool hook (hooks/spool.sh), not Node.
    blocks: (event) => event !== 'notification',
    runner: 'spool',
    merge: (settings, command, known) => mergeCopilotHooks(settings, command, known),
    unmerge: (settings, known, keep) => unmergeCopilotHooks(settings, known, keep?.events ?? [], keep?.hooks ?? false),
    // Copilot 1.0.102 reads hook files when a session starts (and at /clear): a file added later is ignored until then.
    hooksReadAt: 'start',
    ownSettings:
      'a session run with a COPILOT_HOME of its own reads the hooks folder there: COPILOT_HOME=<that folder> trailboss install --agent copilot',
  },
}
