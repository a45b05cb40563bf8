// Pure: what a GitHub Copilot CLI pane shows, as a last-resort signal where no hook fires. Texts
// are those of Copilot 1.0.102 (test/fixtures/copilot/screens); they change between versions, so
// every verdict from here is marked as inferred, never as certain (docs/design.md §4.3).
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
