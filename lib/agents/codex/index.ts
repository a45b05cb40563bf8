// Codex CLI behind the AgentAdapter seam: its hooks (hooks.ts), rollout check, screen, install
// target (hooks.json + trust entries in config.toml) and resume command. Facts and limits:
// docs/codex.md; captures: test/fixtures/codex/.
import { isTranscriptChecked } from '../../record/types.js'
import type { Env } from '../../paths.js'
import type { SessionRecord } from '../../record/types.js'
import type { AgentAdapter, TranscriptVerdict } from '../types.js'
import { readCodexConversation } from './conversation.js'
import { codexDiscovery } from './discovery.js'
import { codexHooks } from './hooks.js'
import { rolloutPathCheck } from './paths.js'
import { deriveRolloutVerdict, readRolloutAfter } from './transcript.js'
import { classifyCodexScreen, CODEX_SCREEN_RULES_VERSION, readCodexPermissionDialog } from './screen.js'
import { CODEX_QUESTION_TOOL } from './state-rules.js'

/** Per read: the rollout a record's check reads (a live, interactive session's, under Codex's sessions folder), or null. */
const checkedRollout = (env: Env): ((rec: SessionRecord) => string | null) => {
  const readable = rolloutPathCheck(env)
  return (rec) => (!rec.headless && isTranscriptChecked(rec.state) && readable(rec.transcriptPath) ? rec.transcriptPath : null)
}

export const codex: AgentAdapter = {
  ...codexHooks,
  shortName: 'codex',
  transcriptChecker: (env) => {
    const fileOf = checkedRollout(env)
    return (rec): TranscriptVerdict | null => {
      const path = fileOf(rec)
      const state = rec.state
      // fileOf checked the state; said again so the type knows it is a checked one.
      if (path === null || !isTranscriptChecked(state)) return null
      const entries = readRolloutAfter(path, rec.offset)
      if (!entries || entries.length === 0) return null
      return deriveRolloutVerdict(entries, { turnId: rec.promptId, since: rec.since, state, pendingCallId: rec.tool?.useId ?? null })
    }
  },
  transcriptFile: checkedRollout,
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
