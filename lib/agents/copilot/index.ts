// GitHub Copilot CLI behind the AgentAdapter seam: its hooks (hooks.ts), install target
// (setup.ts) and resume command. Not yet: a check on read of its events.jsonl (an Esc fires no
// hook, so an interrupted turn stays `working` or `permission` until the next event), its
// screens, `show`'s conversation, and discovery of sessions without hooks. Facts:
// test/fixtures/copilot/README.md.
import type { AgentAdapter } from '../types.js'
import { copilotHooks } from './hooks.js'
import { COPILOT_QUESTION_TOOL } from './state-rules.js'

export const copilot: AgentAdapter = {
  ...copilotHooks,
  shortName: 'copilot',
  // No check on read of events.jsonl yet: the hooks alone decide.
  transcriptChecker: () => () => null,
  transcriptFile: () => () => null,
  watchedFile: () => null,
  readConversation: () => null,
  // No screen rules yet: a pane of Copilot's is never classified by its screen.
  screenRulesVersion: 'none',
  classifyScreen: () => 'unknown',
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === COPILOT_QUESTION_TOOL,
  resumeCommand: (sessionId) => ['copilot', `--resume=${sessionId}`],
}
