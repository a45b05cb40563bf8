// OpenCode sessions that have no record of ours (no plugin installed): an OpenCode process in a
// pane. Its sessions live in SQLite, which this version does not read, so the session stays
// named by its process (`opencode-pid-<pid>`) and its state is what its screen shows (screen.ts).
import { isProcessNamed } from '../discovery.js'
import type { AgentDiscovery } from '../types.js'

/**
 * Pure: the npm launcher (Node running `…/opencode-ai/bin/opencode`, or a `…/bin/opencode` link
 * to it) or the binary it starts (`opencode`, from the `opencode-<platform>-<arch>` package).
 */
export const isOpencodeProcess = isProcessNamed('opencode', /\/opencode-ai\/bin\/opencode$/)

export const opencodeDiscovery: AgentDiscovery = {
  isAgentProcess: isOpencodeProcess,
  findSession: () => Promise.resolve(null),
  // No transcript folder to watch: the lookup above is free, so a timer is enough.
  sessionFolders: () => () => null,
}
