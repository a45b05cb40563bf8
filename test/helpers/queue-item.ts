// The one place tests spell a whole QueueItem: a finished turn in tmux pane %3, and what a test
// cares about on top. A field added to QueueItem is added here once.
import type { QueueItem } from '../../lib/queue/derive.js'
import type { SessionRecord } from '../../lib/record/types.js'

export const queueItem = (over: Partial<QueueItem> = {}): QueueItem => ({
  n: 1,
  key: 'abcdefgh',
  sessionId: 'abcdefgh-1',
  agent: 'claude-code',
  state: 'waiting',
  kind: 'done',
  since: 0,
  cwd: '/w',
  project: 'web',
  host: 'h',
  headless: false,
  tmux: { pane: '%3', socket: '/s', serverPid: 1, alive: true },
  inferred: false,
  reason: null,
  needsYou: false,
  seen: false,
  ask: { tool: null, input: null, message: null },
  hint: null,
  record: { lastEventAt: 0 } as SessionRecord,
  ...over,
})
