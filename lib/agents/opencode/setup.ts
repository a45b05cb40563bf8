// OpenCode: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts AgentSetup); kept
// out of index.ts so that the queue's commands never load settings editing. OpenCode takes our
// events through a plugin file of ours (plugin.ts), not hook entries in a settings file: install
// writes the file whole, uninstall removes it, and a file of that name that is not ours is
// refused, untouched.
import type { AgentSetup } from '../types.js'
import { opencodeDoctor } from './doctor.js'
import { opencodePluginFileFor } from './paths.js'
import { isOurPlugin, opencodePluginSource } from './plugin.js'

export const opencodeSetup: AgentSetup = {
  id: 'opencode',
  command: 'opencode',
  doctor: opencodeDoctor,
  install: {
    label: 'OpenCode',
    settingsFile: opencodePluginFileFor,
    ownFile: { text: opencodePluginSource, isOurs: isOurPlugin },
    // The plugin's own event handler picks them: the ones docs/opencode.md lists.
    events: [
      'session.created',
      'session.status',
      'session.idle',
      'session.error',
      'permission.asked',
      'permission.replied',
      'question.asked',
      'question.replied',
      'question.rejected',
      'session.deleted',
      'dispose',
    ],
    // Its `event` handler returns at once; OpenCode never waits for it.
    blocks: () => false,
    // Not used: the plugin file is written whole (ownFile).
    merge: (settings) => settings,
    unmerge: (settings) => settings,
    // OpenCode loads its plugins when it starts.
    hooksReadAt: 'start',
    ownSettings:
      'a session run with an XDG_CONFIG_HOME of its own loads the plugins there: XDG_CONFIG_HOME=<that folder> trailboss install --agent opencode',
  },
}
