// OpenCode behind the AgentAdapter seam: its events (hooks.ts, through our plugin), and its
// resume command. It keeps its sessions in SQLite, so this version checks no wait on read and
// reads no conversation; its screens are not classified yet either (docs/opencode.md).
import type { AgentAdapter } from '../types.js'
import { opencodeHooks } from './hooks.js'
import { QUESTION_TOOL } from './state-rules.js'

export const opencode: AgentAdapter = {
  ...opencodeHooks,
  shortName: 'opencode',
  transcriptChecker: () => () => null,
  transcriptFile: () => () => null,
  watchedFile: () => null,
  readConversation: () => null,
  screenRulesVersion: '1.18.33',
  classifyScreen: () => 'unknown',
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === QUESTION_TOOL,
  resumeCommand: (sessionId) => ['opencode', '--session', sessionId],
}
