// Claude Code behind the AgentAdapter seam: its hooks (hooks.ts), transcript, screen, install
// target and resume command. Everything the core knows of Claude Code comes through here.
import { isTranscriptChecked } from '../../record/types.js'
import type { Env } from '../../paths.js'
import type { SessionRecord } from '../../record/types.js'
import type { AgentAdapter } from '../types.js'
import { deriveConversation } from './conversation.js'
import { claudeCodeDiscovery } from './discovery.js'
import { claudeCodeHooks } from './hooks.js'
import { isReadableTranscriptPath, transcriptPathCheck } from './paths.js'
import { classifyScreen, readPermissionDialog, SCREEN_RULES_VERSION } from './screen.js'
import { registryWaitChecker } from './session-registry.js'
import { QUESTION_TOOL } from './state-rules.js'
import { deriveTranscriptVerdict, mayBeUserLine, readTranscriptAfter, readTranscriptTail, TRANSCRIPT_READ_CAP } from './transcript.js'

/** Per read: the transcript a record's check reads (a live, interactive session's, under Claude Code's projects folder), or null. */
const checkedTranscript = (env: Env): ((rec: SessionRecord) => string | null) => {
  const readable = transcriptPathCheck(env)
  return (rec) => (!rec.headless && isTranscriptChecked(rec.state) && readable(rec.transcriptPath) ? rec.transcriptPath : null)
}

export const claudeCode: AgentAdapter = {
  ...claudeCodeHooks,
  shortName: 'claude',
  transcriptChecker: (env) => {
    const fileOf = checkedTranscript(env)
    return (rec, now) => {
      const path = fileOf(rec)
      if (path === null) return null
      const entries = readTranscriptAfter(path, rec.offset, TRANSCRIPT_READ_CAP, mayBeUserLine)
      if (!entries || entries.length === 0) return null
      return deriveTranscriptVerdict(
        entries,
        { promptId: rec.promptId, pendingToolUseId: rec.tool?.useId ?? null, permission: rec.state === 'permission', since: rec.since },
        now,
      )
    }
  },
  transcriptFile: checkedTranscript,
  liveWaitChecker: registryWaitChecker,
  watchedFile: (rec, env) => (isReadableTranscriptPath(rec.transcriptPath, env) ? rec.transcriptPath : null),
  readConversation: (rec, env, count) => {
    const path = rec.transcriptPath
    const entries = path && isReadableTranscriptPath(path, env) ? readTranscriptTail(path, Math.max(0, count)) : null
    return entries ? deriveConversation(entries).slice(-Math.max(0, count)) : null
  },
  screenRulesVersion: SCREEN_RULES_VERSION,
  classifyScreen,
  readPermissionDialog: readPermissionDialog,
  // A Stop with running background tasks: the agent will wake itself; the screen says nothing.
  sleepsOnItsOwn: (rec) => rec.lastEvent === 'Stop' && rec.backgroundTasks > 0,
  isQuestionTool: (name) => name === QUESTION_TOOL,
  resumeCommand: (sessionId) => ['claude', '--resume', sessionId],
  discovery: claudeCodeDiscovery,
}
