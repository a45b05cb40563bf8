// Pure: what a Claude Code pane shows, as a last-resort signal where no hook fires and the
// transcript has no trace (an Esc before any output, a long approved tool, a dialog the hooks
// tell of late). Texts are those of Claude Code 2.1.197 (test/fixtures/screens) and 2.1.332
// (test/fixtures/claude-code-2.1.332/*/screens); they change between versions, so every verdict
// from here is marked as inferred, never as certain (docs/design.md §4.3).
import { parseOptions, type PermissionDialog } from '../dialog.js'
import type { ScreenVerdict } from '../types.js'

/** The versions whose screens these rules were read from. */
export const SCREEN_RULES_VERSION = '2.1.197, 2.1.332'

const SEPARATOR = /^─{20,}\s*$/

/**
 * The footer under the input box at the prompt: 2.1.197's hint, or 2.1.332's permission mode
 * (`? for shortcuts` is gone there). While working ` · esc to interrupt` joins the same line.
 */
const PROMPT_FOOTER = /\? for shortcuts|⏵⏵ (?:auto mode|accept edits) on|⏸ (?:manual|plan) mode on/

/** Dialogs that replace the input box: a permission or question dialog, auto mode's "can't check". */
const DIALOG_LINE = /Do you want to proceed\?|Enter to stay in auto mode/
const DIALOG_FOOTER = /Enter to select .*Esc to cancel|^\s*Esc to cancel/m

export const classifyScreen = (text: string): ScreenVerdict => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  const footer = lines.filter((l) => l.trim() !== '').slice(-4).join('\n')
  if (/esc to interrupt/i.test(footer)) return 'working'
  if (lines.some((l) => DIALOG_LINE.test(l)) || DIALOG_FOOTER.test(footer)) return 'permission'
  // The input box: a `❯` line between two rules. After an Esc before any output, 2.1.197 puts
  // the prompt back into it and its footer loses the `? for shortcuts` hint.
  const boxTop = lines.findLastIndex((l, i) => SEPARATOR.test(l) && i < lines.length - 1 && SEPARATOR.test(lines[i + 2] ?? '') && (lines[i + 1] ?? '').startsWith('❯'))
  const footerOnly = boxTop >= 0 && lines.slice(boxTop + 3).filter((l) => l.trim() !== '').length <= 1
  if (!PROMPT_FOOTER.test(footer) && !footerOnly) return 'unknown'
  // Idle prompt: is the conversation's last entry (just above the input box) an interruption?
  const above = (boxTop > 0 ? lines.slice(0, boxTop) : lines).filter((l) => l.trim() !== '')
  const tail = above.slice(-2).join('\n')
  return /⎿\s+Interrupted/.test(tail) ? 'interrupted' : 'idle'
}

/** The question of a permission dialog: Bash and most tools, an edit, a new file. */
const PERMISSION_QUESTION = /Do you want to (?:proceed\?|make this edit to |create )/

/**
 * The permission dialog at the bottom of the screen, or null. Its options are numbered and a
 * digit picks one at once: "Yes" (allow once, never the "Yes, and always…" ones) and "No".
 */
export const readPermissionDialog = (text: string): PermissionDialog | null => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  const question = lines.findLastIndex((l) => PERMISSION_QUESTION.test(l))
  if (question < 0) return null
  const footer = lines.findIndex((l, i) => i > question && /Esc to cancel/.test(l))
  // Anything but blank lines under the footer: the dialog is not what the pane shows now.
  if (footer < 0 || lines.slice(footer + 1).some((l) => l.trim() !== '')) return null
  const top = lines.slice(0, question).findLastIndex((l) => SEPARATOR.test(l))
  const options = parseOptions(lines.slice(question + 1, footer))
  const yes = options.find((o) => /^Yes$/.test(o.label))
  const no = options.find((o) => /^No\b/.test(o.label))
  return { text: lines.slice(top + 1, footer + 1).join('\n'), allow: yes ? [yes.number] : null, deny: no ? [no.number] : null }
}
