// Pure: what an OpenCode pane shows, as a last-resort signal where no event came. Texts are those
// of OpenCode 1.18.33's TUI (test/fixtures/opencode/screens); they change between versions, so
// every verdict from here is marked as inferred (docs/design.md §4.3).
import type { ScreenVerdict } from '../types.js'

/** The version whose screens these rules were read from. */
export const OPENCODE_SCREEN_RULES_VERSION = '1.18.33'

/** The permission dialog, in place of the prompt: its title, then its three buttons. */
const PERMISSION = /△ Permission required/
const PERMISSION_CHOICES = /Allow once\s+Allow always\s+Reject/
/** The question tool's dialog, in place of the prompt: its key hints. */
const QUESTION_HINTS = /enter submit\s+esc dismiss/
/** The status row under the prompt while a turn runs (retries too): `⬝⬝⬝⬝  esc interrupt`. */
const WORKING = /\besc interrupt\b/
/** The row under an idle prompt. */
const PROMPT_FOOTER = /ctrl\+p commands/
/** The line closing each answer: `▣  Build · <model> · 1.2s`, `… · interrupted` after an Esc. */
const ANSWER_END = /^\s*▣\s/

export const classifyOpencodeScreen = (text: string): ScreenVerdict => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  if (lines.some((l) => PERMISSION.test(l)) && lines.some((l) => PERMISSION_CHOICES.test(l))) return 'permission'
  if (lines.some((l) => QUESTION_HINTS.test(l))) return 'permission'
  if (lines.some((l) => WORKING.test(l))) return 'working'
  if (!lines.some((l) => PROMPT_FOOTER.test(l))) return 'unknown'
  // At the prompt: was the last answer cut short?
  const last = lines.findLast((l) => ANSWER_END.test(l)) ?? ''
  return /·\s*interrupted$/.test(last) ? 'interrupted' : 'idle'
}
