// Pure: a permission dialog as an agent's pane shows it, for `ok` and `no`. Each agent reads its
// own dialogs (lib/agents/<agent>/screen.ts); what they share is the option list, the shape of
// what a dialog shows it asks, and how a command is laid out in rows (docs/navigation.md).

/** Keys (tmux key names) that answer a dialog, or that only lead on to the screen that does. */
export interface DialogKeys {
  keys: string[]
  /**
   * `answers`: pressing them answers the dialog. `moves`: they approve nothing themselves (auto
   * mode's "stay in auto mode", the cursor onto "Yes"): the screen is read and judged again first.
   */
  then: 'answers' | 'moves'
}

/** What the person read in `show`: the tool's whole input, as the dialog must show it. */
export type Reading = { kind: 'command'; command: string; description: string | null } | { kind: 'file'; path: string; content: string }

/** The dialog's own block of what it asks, as rows on screen (trailing spaces trimmed). */
export type DialogBlock =
  | { kind: 'command'; rows: string[]; layouts: (r: Extract<Reading, { kind: 'command' }>) => string[][] }
  | { kind: 'file'; file: string; rows: string[]; layouts: (r: Extract<Reading, { kind: 'file' }>) => string[][] }
  /** A dialog of a kind this agent's reader cannot take apart whole. */
  | { kind: 'unread'; why: string }

/** A permission dialog on screen: what it shows it asks, and the keys that answer it. */
export interface PermissionDialog {
  /** null: the dialog shows no tool input at all (auto mode's "can't check" notice). */
  block: DialogBlock | null
  /** Keys toward "allow once"; null when the screen does not show how. */
  allow: DialogKeys | null
  /** Keys that choose "no"; null when the screen does not show how. */
  deny: DialogKeys | null
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
export const hintKey = (hint: string | null): string | null =>
  hint === null ? null : hint.toLowerCase() === 'esc' ? 'Escape' : hint.length === 1 ? hint : null

/** Text whose every character takes one column and that a terminal shows as it is. */
const PLAIN = /^[\x20-\x7e]*$/

/**
 * The rows a line of plain text takes in `width` columns, wrapped as Claude Code's Ink does
 * (read off 2.1.197's and 2.1.332's dialogs, test/fixtures/claude-code-wrap): at spaces, the
 * spaces at a break dropped, the line's own indent kept; a word longer than a row starts on a
 * new row when that costs no more breaks, and is cut at the row's end.
 */
export const wrapRow = (line: string, width: number): string[] => {
  const indent = /^ */.exec(line)?.[0] ?? ''
  const words = line.slice(indent.length).split(' ')
  const rows: string[] = [indent]
  for (const [i, word] of words.entries()) {
    let row = rows[rows.length - 1]!
    if (i > 0 && row.trim() !== '') row = rows[rows.length - 1] = row + ' '
    if (word.length > width) {
      const room = width - row.length
      const breaksHere = 1 + Math.floor((word.length - room - 1) / width)
      const breaksNext = Math.floor((word.length - 1) / width)
      if (row.trim() !== '' && breaksNext < breaksHere) rows.push('')
      let rest = word
      while (rest.length > 0) {
        const take = width - rows[rows.length - 1]!.length
        if (take <= 0) {
          rows.push('')
          continue
        }
        rows[rows.length - 1] += rest.slice(0, take)
        rest = rest.slice(take)
        if (rest.length > 0) rows.push('')
      }
      continue
    }
    if (word.length > 0 && row.trim() !== '' && row.length + word.length > width) rows.push((row = ''))
    rows[rows.length - 1] = row + word
  }
  return rows.map((r) => r.trimEnd())
}

/**
 * The rows of a whole text (its own line breaks kept) in `width` columns, or null when it holds
 * what a row cannot show as is (a tab, a control character, a wide character).
 */
export const wrapText = (text: string, width: number): string[] | null => {
  const lines = text.split('\n')
  if (!lines.every((l) => PLAIN.test(l))) return null
  return lines.flatMap((l) => wrapRow(l, width))
}

/** Each row shown with `prefix`, unwrapped: null when a line does not fit in `width` (the agent's wrapping is not known). */
export const unwrappedRows = (text: string, width: number): string[] | null => {
  const lines = text.split('\n')
  return lines.every((l) => PLAIN.test(l) && l.length <= width) ? lines.map((l) => l.trimEnd()) : null
}
