// The one place tests spell a whole HookEvent: neutral defaults, and what a test cares about on
// top. A field added to HookEvent is added here once.
import type { HookEvent } from '../../lib/record/types.js'

export const hookEvent = (over: Partial<HookEvent> = {}): HookEvent => ({
  v: 1,
  stamp: 0,
  name: 'Stop',
  sessionId: 's',
  agent: 'claude-code',
  promptId: null,
  host: 'h',
  headless: false,
  cwd: '/w',
  project: 'w',
  transcriptPath: null,
  offset: null,
  tmux: null,
  source: null,
  reason: null,
  notificationType: null,
  tool: null,
  message: null,
  backgroundTasks: 0,
  isInterrupt: false,
  ...over,
})
