// GitHub Copilot CLI behind the AgentAdapter seam: its hooks (hooks.ts), the check on read of its
// events file (transcript.ts: an Esc fires no hook), its screens (screen.ts), install target
// (setup.ts), resume command, `show`'s conversation (conversation.ts), discovery of its sessions
// without hooks (discovery.ts) and its approval box for `ok`/`no`. Facts: test/fixtures/copilot/README.md.
import { join } from 'node:path'
import type { Env } from '../../paths.js'
import { isTranscriptChecked, type SessionRecord } from '../../record/types.js'
import type { AgentAdapter, TranscriptVerdict } from '../types.js'
import { readCopilotConversation } from './conversation.js'
import { copilotDiscovery } from './discovery.js'
import { copilotHooks } from './hooks.js'
import { copilotSessionStateDir, eventsPathCheck } from './paths.js'
import { classifyCopilotScreen, COPILOT_SCREEN_RULES_VERSION, readCopilotPermissionDialog } from './screen.js'
import { COPILOT_QUESTION_TOOL } from './state-rules.js'
import { readEventsTail, deriveEventsVerdict } from './transcript.js'

/**
 * Per read: a record's events file. Only agentStop names it, but its place is fixed by the
 * session id (validated by the fold: it names a file of ours too).
 */
const eventsFileOf = (env: Env): ((rec: SessionRecord) => string) => {
  const readable = eventsPathCheck(env)
  const dir = copilotSessionStateDir(env)
  return (rec) => (readable(rec.transcriptPath) ? rec.transcriptPath : join(dir, rec.sessionId, 'events.jsonl'))
}

/** Per read: the file a record's check reads (a live, interactive session's), or null. */
const checkedEvents = (env: Env): ((rec: SessionRecord) => string | null) => {
  const fileOf = eventsFileOf(env)
  return (rec) => (!rec.headless && isTranscriptChecked(rec.state) ? fileOf(rec) : null)
}

export const copilot: AgentAdapter = {
  ...copilotHooks,
  shortName: 'copilot',
  transcriptChecker: (env) => {
    const fileOf = checkedEvents(env)
    return (rec): TranscriptVerdict | null => {
      const path = fileOf(rec)
      const state = rec.state
      if (path === null || !isTranscriptChecked(state)) return null
      const entries = readEventsTail(path)
      return entries ? deriveEventsVerdict(entries, { state, since: rec.since }) : null
    }
  },
  transcriptFile: checkedEvents,
  watchedFile: (rec, env) => eventsFileOf(env)(rec),
  readConversation: (rec, env, count) => {
    const lines = readCopilotConversation(eventsFileOf(env)(rec))
    return lines ? lines.slice(-Math.max(0, count)) : null
  },
  screenRulesVersion: COPILOT_SCREEN_RULES_VERSION,
  classifyScreen: classifyCopilotScreen,
  readPermissionDialog: readCopilotPermissionDialog,
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === COPILOT_QUESTION_TOOL,
  resumeCommand: (sessionId) => ['copilot', `--resume=${sessionId}`],
  discovery: copilotDiscovery,
}
