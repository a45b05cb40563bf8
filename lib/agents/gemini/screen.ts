// Pure: what a Gemini CLI pane shows, as a last-resort signal where no hook fires and the chat
// file has no trace. Texts are those of Gemini CLI 0.61.0 (test/fixtures/gemini/screens); they
// change between versions, so every verdict from here is marked as inferred (docs/design.md §4.3).
import { hintKey, parseOptions, type PermissionDialog } from '../dialog.js'
import type { ScreenVerdict } from '../types.js'

/** The version whose screens these rules were read from. */
export const GEMINI_SCREEN_RULES_VERSION = '0.61.0'

const DIALOG = /Allow execution of|Apply this change\?|Do you want to proceed\?/
const DIALOG_CHOICE = /^[│\s]*●\s*1\. Allow once/
/** The spinner line: `⠴ <phrase> (esc to cancel, 3s)`, also while a hook runs. */
const WORKING = /\(esc to cancel\b/
const INPUT_BOX = /^\s*>\s{2,}Type your message|^\s*>\s/
const RULE = /^─{20,}\s*$/

export const classifyGeminiScreen = (text: string): ScreenVerdict => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  // A dialog replaces the input box; its box holds the question and the numbered choices.
  if (lines.some((l) => DIALOG.test(l)) && lines.some((l) => DIALOG_CHOICE.test(l))) return 'permission'
  // ask_user's "Answer Questions" box.
  if (lines.some((l) => /Enter to select .*Esc to cancel/.test(l))) return 'permission'
  if (lines.some((l) => WORKING.test(l))) return 'working'
  // The input box: a rule, a hint line or two (`Shift+Tab to accept edits`), then the `>` line.
  const rule = lines.findLastIndex((l) => RULE.test(l))
  if (rule < 0 || !lines.slice(rule + 1, rule + 5).some((l) => INPUT_BOX.test(l))) return 'unknown'
  // Idle at the prompt: is the conversation's last entry (above the rule) a cancellation?
  const above = lines
    .slice(0, rule)
    .filter((l) => l.trim() !== '')
    // The line just above the rule holds the `? for shortcuts` hint (and leftovers of a spinner).
    .filter((l) => !/\? for shortcuts/.test(l))
  const last = above.at(-1) ?? ''
  return /^ℹ Request cancelled\./.test(last.trim()) ? 'interrupted' : 'idle'
}

/**
 * The tool confirmation box at the bottom of the screen, or null. "Allow once" is chosen with
 * Enter while the cursor (●) is on it, as it is when the box opens; "No, suggest changes (esc)"
 * with Esc.
 */
export const readGeminiPermissionDialog = (text: string): PermissionDialog | null => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  const question = lines.findLastIndex((l) => DIALOG.test(l))
  if (question < 0) return null
  // The box: from its top border (the last one above the tool's `? Name` line) to its bottom one.
  const header = lines.slice(0, question).findLastIndex((l) => /^│ \? /.test(l))
  const bottom = lines.findIndex((l, i) => i > question && /^╰/.test(l))
  if (header < 0 || bottom < 0 || lines.slice(bottom + 1).some((l) => /^[│╭]/.test(l))) return null
  const options = parseOptions(lines.slice(question + 1, bottom))
  const once = options.find((o) => /^Allow once\b/.test(o.label))
  const no = hintKey(options.find((o) => /^No\b/.test(o.label))?.hint ?? null)
  return { text: lines.slice(header - 1, bottom + 1).join('\n'), allow: once?.selected ? ['Enter'] : null, deny: no ? [no] : null }
}
