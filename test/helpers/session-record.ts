// The one place tests spell a whole SessionRecord: a finished turn (waiting, done) in tmux pane
// %1, and what a test cares about on top. A field added to SessionRecord is added here once.
import type { SessionRecord } from '../../lib/record/types.js'

export const sessionRecord = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  v: 1,
  agent: 'claude-code',
  sessionId: 'abcdef0123456789',
  host: 'h',
  headless: false,
  cwd: '/p',
  project: 'p',
  transcriptPath: null,
  tmux: { pane: '%1', socket: '/tmp/s', serverPid: 1 },
  state: 'waiting',
  kind: 'done',
  since: 0,
  event: 'Stop',
  promptId: null,
  tool: null,
  message: null,
  offset: null,
  lastTool: null,
  turnEndedPromptId: null,
  backgroundTasks: 0,
  firstEventAt: 0,
  lastEventAt: 0,
  lastEvent: 'Stop',
  stateStamp: 0,
  events: 1,
  foldedPending: [],
  ...over,
})
