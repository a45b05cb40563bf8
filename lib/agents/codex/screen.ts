// Pure: what a Codex pane shows, as a last-resort signal where no hook fires. Texts are those
// of Codex 0.171.0 (test/fixtures/codex/screens); they change between versions, so every
// verdict from here is marked as inferred, never as certain (docs/design.md §4.3).
import { type DialogBlock, hintKey, parseOptions, type PermissionDialog } from '../dialog.js'
import type { ScreenVerdict } from '../types.js'

/** The version whose screens these rules were read from. */
export const CODEX_SCREEN_RULES_VERSION = '0.171.0'

export const classifyCodexScreen = (text: string): ScreenVerdict => {
  const lines = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
  const tail = lines.slice(-14).join('\n')
  // The approval dialog and the question dialog (request_user_input) replace the composer.
  if (/Would you like to run the following command\?|Press enter to confirm or esc to cancel/.test(tail)) return 'permission'
  if (/Question \d+\/\d+/.test(tail) && /enter to submit answer/.test(tail)) return 'permission'
  // The composer: the last `›` line, with the footer below it.
  const composer = lines.findLastIndex((l) => l.startsWith('› '))
  if (composer < 0 || !/\? for shortcuts|esc to interrupt/.test(lines.slice(composer + 1).join('\n'))) return 'unknown'
  // While a turn runs, a status line sits just above the composer.
  const above = lines.slice(0, composer)
  const last = above[above.length - 1] ?? ''
  if (/^\s*[•◦·]\s*Working \(.*esc to interrupt\)/.test(last) || /esc to interrupt\)/.test(last)) return 'working'
  if (/^■ Conversation interrupted/.test(last)) return 'interrupted'
  return 'idle'
}

/** A one-line command as the approval dialog shows it; how Codex lays out a longer one was not captured. */
const codexLayouts = (r: { command: string }): string[][] => (/^[\x20-\x7e]*$/.test(r.command) ? [[`  $ ${r.command}`.trimEnd()]] : [])

/**
 * The approval dialog at the bottom of the screen, or null. Its options name their keys:
 * "Yes, proceed (y)" and "No, and tell Codex what to do differently (esc)". Its command is the
 * `$` line and any rows under it up to the blank line before the options.
 */
export const readCodexPermissionDialog = (text: string): PermissionDialog | null => {
  const lines = text.split('\n').map((l) => l.trimEnd())
  const question = lines.findLastIndex((l) => /Would you like to .*\?\s*$/.test(l))
  if (question < 0) return null
  const footer = lines.findIndex((l, i) => i > question && /Press enter to confirm or esc to cancel/.test(l))
  if (footer < 0 || lines.slice(footer + 1).some((l) => l.trim() !== '')) return null
  const optionsAt = lines.findIndex((l, i) => i > question && parseOptions([l]).length > 0)
  const options = parseOptions(lines.slice(question + 1, footer))
  const yes = hintKey(options.find((o) => /^Yes, proceed\b/.test(o.label))?.hint ?? null)
  const no = hintKey(options.find((o) => /^No\b/.test(o.label))?.hint ?? null)
  const dollar = lines.findIndex((l, i) => i > question && i < optionsAt && /^\s*\$ /.test(l))
  const end = lines.findIndex((l, i) => i > dollar && l.trim() === '')
  const block: DialogBlock =
    dollar < 0 || end < 0 || end > optionsAt
      ? { kind: 'unread', why: "Trail Boss reads only Codex's command dialogs whole" }
      : { kind: 'command', rows: lines.slice(dollar, end), layouts: codexLayouts }
  return { block, allow: yes ? { keys: [yes], then: 'answers' } : null, deny: no ? { keys: [no], then: 'answers' } : null }
}
