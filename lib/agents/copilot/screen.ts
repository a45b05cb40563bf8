// Pure: what a GitHub Copilot CLI pane shows, as a last-resort signal where no hook fires. Texts
// are those of Copilot 1.0.102 (test/fixtures/copilot/screens); they change between versions, so
// every verdict from here is marked as inferred, never as certain (docs/design.md §4.3).
import { type DialogBlock, parseOptions, type PermissionDialog } from '../dialog.js'
import type { ScreenVerdict } from '../types.js'

/** The version whose screens these rules were read from. */
export const COPILOT_SCREEN_RULES_VERSION = '1.0.102'

/** The footer under a tool dialog's options, and under ask_user's form. */
const DIALOG_FOOTER = /↑\/↓ to navigate · enter to select · esc to cancel/
const FORM_FOOTER = /↑\/↓ select · enter accept · ctrl\+d decline · esc cancel/
/** The status line under the prompt: while a turn runs, and at rest. */
const WORKING_FOOTER = /\bWorking · .*esc esc interrupt/
const IDLE_FOOTER = /· \/ commands · \? help/

/** A line without the scrollbar (`┃`) the conversation pane draws at its right edge. */
const unbarred = (line: string): string => line.replace(/\s*┃\s*$/, '').trimEnd()

export const classifyCopilotScreen = (text: string): ScreenVerdict => {
  const lines = text
    .split('\n')
    .map(unbarred)
    .filter((l) => l.trim() !== '')
  const tail = lines.slice(-16).join('\n')
  // A tool's approval box ("Do you want to run this command?"), not the folder-trust one, and ask_user's form.
  if (DIALOG_FOOTER.test(tail) && /Do you want to [^?\n]*\?/.test(tail)) return 'permission'
  if (FORM_FOOTER.test(tail) && /Copilot needs information\./.test(tail)) return 'permission'
  const footer = lines.at(-1) ?? ''
  if (WORKING_FOOTER.test(footer)) return 'working'
  if (!IDLE_FOOTER.test(footer)) return 'unknown'
  // At rest: the prompt box (a rule, `❯`, a rule) above the footer, the folder's line above it,
  // and above that the conversation's last line.
  const prompt = lines.findLastIndex((l) => l.trim() === '❯')
  if (prompt < 0) return 'unknown'
  const last = lines.slice(0, prompt - 2).at(-1) ?? ''
  return /^\s*● Operation cancelled by user$/.test(last) ? 'interrupted' : 'idle'
}

const PLAIN = /^[\x20-\x7e]*$/
/** A row of a box: `│ text │`, its padding trimmed. */
const BOX_ROW = /^│ (.*?)\s*│$/
const RULE_TOP = /^╭(─+)╮$/

/**
 * The rows of the approval box as it shows a command: its title (the call's description), then
 * the command in the inner box, one row. How it wraps a longer command, or titles a call without
 * a description, was not captured: those are not laid out, so they are never taken for a match.
 */
const copilotLayouts =
  (titleWidth: number, commandWidth: number) =>
  (r: { command: string; description: string | null }): string[][] => {
    const title = r.description?.trimEnd() ?? null
    const command = r.command.trimEnd()
    if (title === null || !PLAIN.test(title) || title.length > titleWidth) return []
    if (!PLAIN.test(command) || command.length > commandWidth) return []
    return [[title, command]]
  }

/**
 * The approval box at the bottom of the screen, or null. "1. Yes" is chosen with Enter while the
 * cursor (❯) is on it, as it is when the box opens; "2. No, … (Esc to stop)" with Esc. What it asks
 * is its title and the inner box under it; only "Do you want to run this command?" is read whole.
 */
export const readCopilotPermissionDialog = (text: string): PermissionDialog | null => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  const bottom = lines.findLastIndex((l) => /^╰─+╯$/.test(l))
  if (bottom < 0 || lines.slice(bottom + 1).some((l) => l.trim() !== '')) return null
  const top = lines.slice(0, bottom).findLastIndex((l) => RULE_TOP.test(l))
  if (top < 0) return null
  const rows = lines.slice(top + 1, bottom).map((l) => BOX_ROW.exec(l)?.[1])
  if (rows.some((r) => r === undefined)) return null
  const inside = rows as string[]
  const question = inside.findIndex((r) => /^Do you want to [^?]*\?$/.test(r))
  if (question < 0 || !DIALOG_FOOTER.test(inside.at(-1) ?? '')) return null
  const options = parseOptions(inside.slice(question + 1))
  const yes = options.find((o) => o.label === 'Yes')
  const no = options.find((o) => /^No\b.*\(Esc to stop\)$/.test(o.label))
  const allow = yes?.selected ? { keys: ['Enter'], then: 'answers' as const } : null
  const deny = no ? { keys: ['Escape'], then: 'answers' as const } : null
  // Title, a rule, the inner box (its top, its rows, its bottom), a blank row, the question.
  const innerTop = RULE_TOP.exec(inside[2] ?? '')
  const innerRows = inside.slice(3, question - 2).map((r) => BOX_ROW.exec(r)?.[1])
  const shape =
    inside[question] === 'Do you want to run this command?' &&
    /^─+$/.test(inside[1] ?? '') &&
    innerTop !== null &&
    /^╰─+╯$/.test(inside[question - 2] ?? '') &&
    inside[question - 1] === '' &&
    innerRows.length > 0 &&
    innerRows.every((r) => r !== undefined)
  const block: DialogBlock = shape
    ? {
        kind: 'command',
        rows: [inside[0]!, ...(innerRows as string[])],
        layouts: copilotLayouts((lines[top]!.length ?? 0) - 4, innerTop[1]!.length - 2),
      }
    : { kind: 'unread', why: `Trail Boss reads only Copilot's "run this command" dialogs whole, not "${inside[question]}"` }
  return { block, allow, deny }
}
