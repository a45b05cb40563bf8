// Pure: what a Gemini CLI pane shows, as a last-resort signal where no hook fires and the chat
// file has no trace. Texts are those of Gemini CLI 0.61.0 (test/fixtures/gemini/screens); they
// change between versions, so every verdict from here is marked as inferred (docs/design.md §4.3).
import { type DialogBlock, hintKey, parseOptions, type PermissionDialog } from '../dialog.js'
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

const PLAIN = /^[\x20-\x7e]*$/
/** A row of the box inside the confirmation box: `│ │ text │ │`. */
const INNER_ROW = /^│ │ (.*?)\s*│ │$/
/** A one-line command, as the inner box shows it; how a longer one wraps was not captured. */
const shellLayouts = (r: { command: string }): string[][] => (PLAIN.test(r.command) ? [[r.command.trimEnd()]] : [])
/** A new file's lines, numbered (`1 hello`); up to 9 lines, the number width of longer files was not captured. */
const writeLayouts = (r: { content: string }): string[][] => {
  const lines = r.content.replace(/\n$/, '').split('\n')
  return lines.length <= 9 && lines.every((l) => PLAIN.test(l)) ? [lines.map((l, i) => `${i + 1} ${l}`.trimEnd())] : []
}

/** The inner box's rows, or null when the box is not whole on screen. */
const innerRows = (lines: readonly string[], from: number, to: number): string[] | null => {
  const top = lines.findIndex((l, i) => i > from && i < to && /^│ ╭/.test(l))
  const bottom = lines.findIndex((l, i) => i > top && i < to && /^│ ╰/.test(l))
  if (top < 0 || bottom < 0) return null
  const rows = lines.slice(top + 1, bottom).map((l) => INNER_ROW.exec(l)?.[1])
  return rows.every((r) => r !== undefined) ? (rows as string[]) : null
}

/**
 * The tool confirmation box at the bottom of the screen, or null. "Allow once" is chosen with
 * Enter while the cursor (●) is on it, as it is when the box opens; "No, suggest changes (esc)"
 * with Esc. What it asks is the box inside it: a shell command, or a new file's numbered lines
 * under its title `WriteFile  Writing to <file>`.
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
  const rows = innerRows(lines, header, question)
  const title = /^│ \? (\S+)\s+(.*?)\s*│?$/.exec(lines[header] ?? '')
  const file = title?.[1] === 'WriteFile' ? /^Writing to (.+)$/.exec(title[2] ?? '')?.[1] : undefined
  const block: DialogBlock =
    rows === null
      ? { kind: 'unread', why: 'its dialog does not show its whole box' }
      : /^Allow execution of/.test(lines[question]!.replace(/^│\s*/, '')) && title?.[1] === 'Shell'
        ? { kind: 'command', rows, layouts: shellLayouts }
        : file !== undefined
          ? { kind: 'file', file, rows, layouts: writeLayouts }
          : { kind: 'unread', why: `Trail Boss reads only Gemini CLI's Shell and new-file dialogs whole, not ${title?.[1] ?? 'this one'}` }
  return { block, allow: once?.selected ? { keys: ['Enter'], then: 'answers' } : null, deny: no ? { keys: [no], then: 'answers' } : null }
}
