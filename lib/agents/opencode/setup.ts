// OpenCode: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts AgentSetup); kept
// out of index.ts so that the queue's commands never load settings editing. OpenCode takes our
// events through a plugin file (plugin.ts), not a settings file's hook entries, and `install`
// writes only settings files so far: it refuses, saying how to put the plugin in place by hand.
import type { AgentSetup } from '../types.js'
import { TrailbossError } from '../../errors.js'
import { PLUGIN_FILE } from './plugin.js'

const notYet = (): never => {
  throw new TrailbossError(
    `this version does not install OpenCode's plugin yet`,
    `OpenCode reads plugins from ~/.config/opencode/plugins/ and a project's .opencode/plugins/; ours (${PLUGIN_FILE}) is not written by install yet`,
  )
}

export const opencodeSetup: AgentSetup = {
  id: 'opencode',
  command: 'opencode',
  install: {
    label: 'OpenCode',
    settingsFile: notYet,
    events: [],
    // Its plugin's event handler returns at once; OpenCode never waits for it.
    blocks: () => false,
    merge: notYet,
    unmerge: notYet,
    // OpenCode loads its plugins when it starts.
    hooksReadAt: 'start',
    ownSettings: 'a session run with an OPENCODE_CONFIG_DIR of its own loads the plugins in its plugins/ folder',
  },
}
