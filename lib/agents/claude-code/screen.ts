// Pure: what a Claude Code pane shows, as a last-resort signal where no hook fires and the
// transcript has no trace (an Esc before any output, a long approved tool, a dialog the hooks
// tell of late). Texts are those of Claude Code 2.1.197 (test/fixtures/screens) and 2.1.332
// (test/fixtures/claude-code-2.1.332/*/screens); they change between versions, so every verdict
// from here is marked as inferred, never as certain (docs/design.md §4.3).
import { type DialogBlock, type DialogKeys, parseOptions, type PermissionDialog, wrapText } from '../dialog.js'
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
  const footer = lines
    .filter((l) => l.trim() !== '')
    .slice(-4)
    .join('\n')
  if (/esc to interrupt/i.test(footer)) return 'working'
  if (lines.some((l) => DIALOG_LINE.test(l)) || DIALOG_FOOTER.test(footer)) return 'permission'
  // The input box: a `❯` line between two rules. After an Esc before any output, 2.1.197 puts
  // the prompt back into it and its footer loses the `? for shortcuts` hint.
  const boxTop = lines.findLastIndex(
    (l, i) => SEPARATOR.test(l) && i < lines.length - 1 && SEPARATOR.test(lines[i + 2] ?? '') && (lines[i + 1] ?? '').startsWith('❯'),
  )
  const footerOnly = boxTop >= 0 && lines.slice(boxTop + 3).filter((l) => l.trim() !== '').length <= 1
  if (!PROMPT_FOOTER.test(footer) && !footerOnly) return 'unknown'
  // Idle prompt: is the conversation's last entry (just above the input box) an interruption?
  const above = (boxTop > 0 ? lines.slice(0, boxTop) : lines).filter((l) => l.trim() !== '')
  const tail = above.slice(-2).join('\n')
  return /⎿\s+Interrupted/.test(tail) ? 'interrupted' : 'idle'
}

/** The question of a permission dialog: Bash and most tools, an edit, a new file. */
const PERMISSION_QUESTION = /Do you want to (?:proceed\?|make this edit to |create )/
/** Auto mode's "can't check" notice (2.1.332): it asks nothing of a tool; Enter leads to the approval dialog. */
const CANT_CHECK_TITLE = /^\s*Auto mode can't check actions in this session\s*$/
const CANT_CHECK_FOOTER = /^\s*Enter to stay in auto mode · .*Esc to cancel\s*$/
const DASHES = /^╌{20,}\s*$/
/** 2.1.332's options with no numbers (auto mode's approval dialog): `❯ No`, `  Yes`. */
const PLAIN_OPTION = /^\s*(❯)?\s*(Yes|No)\s*$/

/**
 * How a Bash dialog lays out a command, by build, in a pane `width` columns wide. 2.1.197: three
 * spaces in, 6 columns less than the pane, the description under it. 2.1.332: between two dashed
 * rules, one space in when it fits on one row, else every row behind a `│` gutter (4 columns less).
 */
const layouts197 =
  (width: number) =>
  (r: { command: string; description: string | null }): string[][] => {
    const rows = [r.command, ...(r.description ? [r.description] : [])].map((t) => wrapText(t, width - 6))
    return rows.every((x) => x !== null) ? [['', ...rows.flat().map((x) => (x === '' ? '' : `   ${x}`)), '']] : []
  }
const layouts332 =
  (width: number) =>
  (r: { command: string }): string[][] => {
    const out: string[][] = []
    const one = r.command.includes('\n') ? null : wrapText(r.command, width - 2)
    if (one?.length === 1) out.push([` ${one[0]}`.trimEnd()])
    const rows = wrapText(r.command, width - 4)
    if (rows && rows.length > 1) out.push(rows.map((x) => ` │ ${x}`.trimEnd()))
    return out
  }

/** The dialog's block of what it asks: the command of a Bash dialog, or why it is not read. */
const readBlock = (lines: readonly string[], question: number): DialogBlock => {
  const rule = lines.slice(0, question).findLastIndex((l) => SEPARATOR.test(l))
  const header = (lines[rule + 1] ?? '').trim()
  if (header !== 'Bash command')
    return { kind: 'unread', why: `Trail Boss reads only Claude Code's Bash dialogs whole, not this one (${header || 'no title'})` }
  const width = (lines[rule] ?? '').length
  const dashes = lines.slice(rule, question).flatMap((l, i) => (DASHES.test(l) ? [rule + i] : []))
  if (dashes.length >= 2) return { kind: 'command', rows: lines.slice(dashes[0]! + 1, dashes[1]), layouts: layouts332(width) }
  if (dashes.length > 0) return { kind: 'unread', why: 'its dialog shows the command without its closing rule' }
  return { kind: 'command', rows: lines.slice(rule + 2, question), layouts: layouts197(width) }
}

/**
 * The permission dialog at the bottom of the screen, or null. Numbered options take a digit at
 * once: "Yes" (allow once, never the "Yes, and always…" ones) and "No". Auto mode's approval
 * dialog (2.1.332) numbers nothing and opens on "No": `ok` moves the cursor down, reads the
 * screen again, and presses Enter only with the cursor on "Yes"; `no` is Esc ("Esc to cancel").
 * Its "can't check" notice before it shows no command: Enter (stay in auto mode) only leads on.
 */
export const readPermissionDialog = (text: string): PermissionDialog | null => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  const last = lines.findLastIndex((l) => l.trim() !== '')
  if (CANT_CHECK_FOOTER.test(lines[last] ?? '')) {
    const rule = lines.slice(0, last).findLastIndex((l) => SEPARATOR.test(l))
    if (!CANT_CHECK_TITLE.test(lines[rule + 1] ?? '')) return null
    return { block: null, allow: { keys: ['Enter'], then: 'moves' }, deny: { keys: ['Escape'], then: 'answers' } }
  }
  const question = lines.findLastIndex((l) => PERMISSION_QUESTION.test(l))
  if (question < 0) return null
  const footer = lines.findIndex((l, i) => i > question && /Esc to cancel/.test(l))
  // Anything but blank lines under the footer: the dialog is not what the pane shows now.
  if (footer < 0 || footer !== last) return null
  const block = readBlock(lines, question)
  const options = parseOptions(lines.slice(question + 1, footer))
  if (options.length > 0) {
    const yes = options.find((o) => /^Yes$/.test(o.label))
    const no = options.find((o) => /^No\b/.test(o.label))
    return { block, allow: yes ? { keys: [yes.number], then: 'answers' } : null, deny: no ? { keys: [no.number], then: 'answers' } : null }
  }
  const plain = lines.slice(question + 1, footer).filter((l) => l.trim() !== '')
  const picks = plain.map((l) => PLAIN_OPTION.exec(l))
  if (picks.length !== 2 || picks.some((m) => m === null)) return { block, allow: null, deny: null }
  const on = picks.find((m) => m?.[1] !== undefined)?.[2]
  const yesBelow = picks[0]?.[2] === 'No' && picks[1]?.[2] === 'Yes'
  const allow: DialogKeys | null =
    on === 'Yes' ? { keys: ['Enter'], then: 'answers' } : on === 'No' && yesBelow ? { keys: ['Down'], then: 'moves' } : null
  return { block, allow, deny: { keys: ['Escape'], then: 'answers' } }
}
