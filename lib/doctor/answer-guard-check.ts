// doctor's line on `ok` / `no`, apart from the rule itself (queue/answer-guard.ts), which sits
// below doctor and knows nothing of its checks.
import { ANSWER_GUARD } from '../queue/answer-guard.js'
import type { Check } from './checks.js'

/** Its id and the first word of its summary are for programs (`answer-guard`, `exact-match`), the rest for the person. */
export const checkAnswerGuard = (allowed: boolean): Check => ({
  id: 'answer-guard',
  status: 'info',
  summary: `${ANSWER_GUARD}: ok/no press a dialog's key only when its own command or file block is exactly the recorded tool input (${allowed ? 'on' : 'off'}: TRAILBOSS_ALLOW_SEND)`,
  fix: null,
})
