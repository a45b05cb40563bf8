// OpenCode behind the AgentAdapter seam: its events (hooks.ts, through our plugin), the check on
// read of its own record of the session (store.ts: an answer or an Esc whose event never reached
// us), `show`'s conversation from the same record, its screen, its panes without our plugin,
// and its resume command (docs/opencode.md).
import { existsSync } from 'node:fs'
import type { Env } from '../../paths.js'
import { isTranscriptChecked, type SessionRecord } from '../../record/types.js'
import type { AgentAdapter, TranscriptVerdict } from '../types.js'
import { readOpencodeConversation } from './conversation.js'
import { opencodeDiscovery } from './discovery.js'
import { opencodeHooks } from './hooks.js'
import { opencodeDatabase } from './paths.js'
import { classifyOpencodeScreen, OPENCODE_SCREEN_RULES_VERSION, readOpencodePermissionDialog } from './screen.js'
import { QUESTION_TOOL } from './state-rules.js'
import { deriveStoreEntries, deriveStoreVerdict, readSessionTail } from './store.js'

/**
 * Per read: the file whose stamp tells whether the database changed since a verdict was kept.
 * OpenCode writes to the `-wal` beside it; the main file changes only when the WAL is copied
 * into it, which changes nothing a read sees.
 */
const checkedStore =
  (env: Env) =>
  (rec: SessionRecord): string | null => {
    if (rec.headless || !isTranscriptChecked(rec.state)) return null
    const db = opencodeDatabase(env)
    return existsSync(`${db}-wal`) ? `${db}-wal` : db
  }

export const opencode: AgentAdapter = {
  ...opencodeHooks,
  shortName: 'opencode',
  transcriptChecker: (env) => {
    const db = opencodeDatabase(env)
    return (rec): TranscriptVerdict | null => {
      const state = rec.state
      if (rec.headless || !isTranscriptChecked(state)) return null
      const tail = readSessionTail(db, rec.sessionId, { since: rec.since })
      if (!tail) return null
      return deriveStoreVerdict(deriveStoreEntries(tail, rec.tool?.useId ?? null), { state, since: rec.since })
    }
  },
  transcriptFile: checkedStore,
  watchedFile: (_rec, env) => `${opencodeDatabase(env)}-wal`,
  readConversation: (rec, env, count) => readOpencodeConversation(opencodeDatabase(env), rec.sessionId, count),
  screenRulesVersion: OPENCODE_SCREEN_RULES_VERSION,
  classifyScreen: classifyOpencodeScreen,
  readPermissionDialog: readOpencodePermissionDialog,
  dialogInColour: true,
  sleepsOnItsOwn: () => false,
  isQuestionTool: (name) => name === QUESTION_TOOL,
  resumeCommand: (sessionId) => ['opencode', '--session', sessionId],
  discovery: opencodeDiscovery,
}
