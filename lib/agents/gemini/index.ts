// Gemini CLI behind the AgentAdapter seam: its hooks (hooks.ts), chat file, screen, install
// target and resume command. Everything the core knows of Gemini CLI comes through here.
import type { AgentAdapter } from '../types.js'
import { deriveGeminiConversation } from './conversation.js'
import { deriveChatVerdict, readChatTail } from './transcript.js'
import { geminiDiscovery } from './discovery.js'
import { geminiHooks } from './hooks.js'
import { chatPathCheck, findChatFile } from './paths.js'
import { classifyGeminiScreen, GEMINI_SCREEN_RULES_VERSION, readGeminiPermissionDialog } from './screen.js'
import { QUESTION_TOOL } from './state-rules.js'
import type { Env } from '../../paths.js'
import { type SessionRecord, isTranscriptChecked } from '../../record/types.js'

/** The chat file of a record: its transcript_path when that is one, else found by projects.json. */
const chatFileOf = (rec: SessionRecord, env: Env, readable: (p: unknown) => p is string = chatPathCheck(env)): string | null =>
  readable(rec.transcriptPath) ? rec.transcriptPath : findChatFile(env, rec.cwd, rec.sessionId)

export const gemini: AgentAdapter = {
  ...geminiHooks,
  shortName: 'gemini',
  transcriptChecker: (env) => {
    const readable = chatPathCheck(env)
    return (rec, now) => {
      if (!isTranscriptChecked(rec.state)) return null
      const file = chatFileOf(rec, env, readable)
      const lines = file ? readChatTail(file) : null
      return lines ? deriveChatVerdict(lines, { state: rec.state, since: rec.since }, now) : null
    }
  },
  // Only the recorded path: a chat file found by a search is read afresh every run.
  transcriptFile: (env) => {
    const readable = chatPathCheck(env)
    return (rec) => (isTranscriptChecked(rec.state) && readable(rec.transcriptPath) ? rec.transcriptPath : null)
  },
  watchedFile: (rec, env) => chatFileOf(rec, env),
  readConversation: (rec, env, count) => {
    const file = chatFileOf(rec, env)
    const lines = file ? readChatTail(file, 256 * 1024) : null
    return lines ? deriveGeminiConversation(lines).slice(-Math.max(0, count)) : null
  },
  screenRulesVersion: GEMINI_SCREEN_RULES_VERSION,
  classifyScreen: classifyGeminiScreen,
  readPermissionDialog: readGeminiPermissionDialog,
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === QUESTION_TOOL,
  resumeCommand: (sessionId) => ['gemini', '--resume', sessionId],
  discovery: geminiDiscovery,
}
