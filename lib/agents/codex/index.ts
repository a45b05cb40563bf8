// Codex CLI behind the AgentAdapter seam: its hooks (hooks.ts), rollout check, screen, install
// target (hooks.json + trust entries in config.toml) and resume command. Facts and limits:
// docs/codex.md; captures: test/fixtures/codex/.
import { isTranscriptChecked } from '../../record/types.js'
import type { AgentAdapter, TranscriptVerdict } from '../types.js'
import { readCodexConversation } from './conversation.js'
import { codexDiscovery } from './discovery.js'
import { codexHooks } from './hooks.js'
import { rolloutPathCheck } from './paths.js'
import { deriveRolloutVerdict, readRolloutAfter } from './rollout.js'
import { classifyCodexScreen, CODEX_SCREEN_RULES_VERSION, readCodexPermissionDialog } from './screen.js'
import { CODEX_QUESTION_TOOL } from './state-rules.js'

export const codex: AgentAdapter = {
  ...codexHooks,
  shortName: 'codex',
  transcriptChecker: (env) => {
    const readable = rolloutPathCheck(env)
    return (rec): TranscriptVerdict | null => {
      const state = rec.state
      if (rec.headless || !isTranscriptChecked(state) || !readable(rec.transcriptPath)) return null
      const entries = readRolloutAfter(rec.transcriptPath, rec.offset)
      if (!entries || entries.length === 0) return null
      return deriveRolloutVerdict(entries, { turnId: rec.promptId, since: rec.since, state, pendingCallId: rec.tool?.useId ?? null })
    }
  },
  transcriptFile: (env) => {
    const readable = rolloutPathCheck(env)
    return (rec) => (!rec.headless && isTranscriptChecked(rec.state) && readable(rec.transcriptPath) ? rec.transcriptPath : null)
  },
  watchedFile: (rec, env) => (rolloutPathCheck(env)(rec.transcriptPath) ? rec.transcriptPath : null),
  readConversation: (rec, env, count) => {
    const path = rec.transcriptPath
    const lines = rolloutPathCheck(env)(path) ? readCodexConversation(path) : null
    return lines ? lines.slice(-Math.max(0, count)) : null
  },
  screenRulesVersion: CODEX_SCREEN_RULES_VERSION,
  classifyScreen: classifyCodexScreen,
  readPermissionDialog: readCodexPermissionDialog,
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === CODEX_QUESTION_TOOL,
  resumeCommand: (sessionId) => ['codex', 'resume', sessionId],
  discovery: codexDiscovery,
}
