// OpenCode behind the AgentAdapter seam: its events (hooks.ts, through our plugin), its screen,
// its panes without our plugin, and its resume command. It keeps its sessions in SQLite, so this version checks no wait on
// read and reads no conversation (docs/opencode.md).
import type { AgentAdapter } from '../types.js'
import { opencodeDiscovery } from './discovery.js'
import { opencodeHooks } from './hooks.js'
import { classifyOpencodeScreen, OPENCODE_SCREEN_RULES_VERSION } from './screen.js'
import { QUESTION_TOOL } from './state-rules.js'

export const opencode: AgentAdapter = {
  ...opencodeHooks,
  shortName: 'opencode',
  transcriptChecker: () => () => null,
  transcriptFile: () => () => null,
  watchedFile: () => null,
  readConversation: () => null,
  screenRulesVersion: OPENCODE_SCREEN_RULES_VERSION,
  classifyScreen: classifyOpencodeScreen,
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === QUESTION_TOOL,
  resumeCommand: (sessionId) => ['opencode', '--session', sessionId],
  discovery: opencodeDiscovery,
}
