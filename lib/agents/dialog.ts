// Pure: a permission dialog as an agent's pane shows it, for `ok` and `no`. Each agent reads its
// own dialogs (lib/agents/<agent>/screen.ts); what they share is the numbered option list.

/** A permission dialog on screen: its text, and the keys (tmux key names) that answer it. */
export interface PermissionDialog {
  /** Every line of the dialog, as shown: the guard looks for the tool's input in it. */
  text: string
  /** Keys that choose "allow once"; null when the screen does not show how. */
  allow: string[] | null
  /** Keys that choose "no"; null when the screen does not show how. */
  deny: string[] | null
}

export interface DialogOption {
  /** The option's number as shown (`1`), the key that picks it in a numbered list. */
  number: string
  label: string
  /** The cursor is on it. */
  selected: boolean
  /** The key the label names in parentheses: `(y)`, `(esc)`; null when none. */
  hint: string | null
}

const OPTION = /^[\s│]*([❯›●>])?\s*(\d)\.\s+(.*?)[\s│]*$/

/** The numbered options among `lines`, in order (`❯ 1. Yes`, `  3. No (esc)`). */
export const parseOptions = (lines: readonly string[]): DialogOption[] =>
  lines.flatMap((line) => {
    const m = OPTION.exec(line)
    if (!m) return []
    const label = (m[3] ?? '').trim()
    return [{ number: m[2] ?? '', label, selected: m[1] !== undefined, hint: /\((\w+)\)\s*$/.exec(label)?.[1] ?? null }]
  })

/** tmux's name for a key a dialog names in parentheses. */
export const hintKey = (hint: string | null): string | null => (hint === null ? null : hint.toLowerCase() === 'esc' ? 'Escape' : hint.length === 1 ? hint : null)

/** Whether the dialog's text shows `needle`, ignoring line breaks, box borders and spacing (long commands wrap). */
export const dialogShows = (dialogText: string, needle: string): boolean => {
  const squash = (s: string): string => s.replace(/[\s│┃╭╮╰╯─╌━]+/gu, '')
  const want = squash(needle)
  return want.length > 0 && squash(dialogText).includes(want)
}
