// Pure: what an OpenCode pane shows, as a last-resort signal where no event came. Texts are those
// of OpenCode 1.18.33's TUI (test/fixtures/opencode/screens); they change between versions, so
// every verdict from here is marked as inferred (docs/design.md §4.3).
import type { DialogBlock, DialogKeys, PermissionDialog } from '../dialog.js'
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
  const lines = stripColours(text)
    .split('\n')
    .map((l) => l.trimEnd())
  if (lines.some((l) => PERMISSION.test(l)) && lines.some((l) => PERMISSION_CHOICES.test(l))) return 'permission'
  if (lines.some((l) => QUESTION_HINTS.test(l))) return 'permission'
  if (lines.some((l) => WORKING.test(l))) return 'working'
  if (!lines.some((l) => PROMPT_FOOTER.test(l))) return 'unknown'
  // At the prompt: was the last answer cut short?
  const last = lines.findLast((l) => ANSWER_END.test(l)) ?? ''
  return /·\s*interrupted$/.test(last) ? 'interrupted' : 'idle'
}

/** An SGR escape (colours, bold…), as `tmux capture-pane -e` keeps them. */
const SGR = /\x1b\[([0-9;:]*)m/g

/** Pure: a row without its colours, and the background in effect at each of its characters. */
export const parseColouredRow = (row: string): { text: string; bg: (string | null)[] } => {
  let text = ''
  const bg: (string | null)[] = []
  let current: string | null = null
  let at = 0
  const take = (upTo: number): void => {
    const plain = row.slice(at, upTo).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    for (const ch of plain) {
      text += ch
      bg.push(current)
    }
  }
  for (const m of row.matchAll(SGR)) {
    take(m.index)
    at = m.index + m[0].length
    const p = (m[1] ?? '').split(/[;:]/)
    for (let i = 0; i < p.length; i++) {
      const n = Number(p[i] || '0')
      if (n === 0 || n === 49) current = null
      else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) current = String(n)
      else if (n === 48 && p[i + 1] === '5') {
        current = `5;${p[i + 2]}`
        i += 2
      } else if (n === 48 && p[i + 1] === '2') {
        current = `2;${p.slice(i + 2, i + 5).join(';')}`
        i += 4
      } else if ((n === 38 && p[i + 1] === '5') || (n === 58 && p[i + 1] === '5')) i += 2
      else if ((n === 38 || n === 58) && p[i + 1] === '2') i += 4
    }
  }
  take(row.length)
  return { text, bg }
}

/** Pure: a screen's text without its colours. */
export const stripColours = (text: string): string =>
  text
    .split('\n')
    .map((l) => parseColouredRow(l).text)
    .join('\n')

/** The dialog's buttons, left to right; Left and Right move between them and wrap around. */
const BUTTONS = ['Allow once', 'Allow always', 'Reject'] as const

/**
 * Pure: which button the buttons row has chosen, by its colours: the one whose background
 * differs from the other two's. Null when the row carries no colours or tells no single one.
 */
export const deriveChosenButton = (row: string): number | null => {
  const { text, bg } = parseColouredRow(row)
  const at = BUTTONS.map((b) => text.indexOf(b))
  if (at.some((i) => i < 0)) return null
  const bgs = at.map((i) => bg[i] ?? null)
  for (let k = 0; k < 3; k++) {
    const others = bgs.filter((_, j) => j !== k)
    if (others[0] === others[1] && bgs[k] !== others[0]) return k
  }
  return null
}

/** A one-line command as the dialog shows it, in its left bar; longer ones were not seen wrapped. */
const opencodeLayouts = (r: { command: string }): string[][] =>
  /^[\x20-\x7e]*$/.test(r.command) && r.command.length <= 100 ? [[`  ┃  $ ${r.command}`.trimEnd()]] : []

/**
 * The permission dialog, or null. Read from the pane with its colours (`dialogInColour`):
 * OpenCode shows which of its buttons Enter presses only by their background. `no` is Esc,
 * which rejects whichever is chosen; `ok` is Enter once "Allow once" is chosen, else the arrow
 * that moves onto it (Left from "Allow always", Right from "Reject": they wrap), which approves
 * nothing, and a new reading of the screen.
 */
export const readOpencodePermissionDialog = (screen: string): PermissionDialog | null => {
  const rows = screen.split('\n')
  const lines = rows.map((l) => parseColouredRow(l).text.trimEnd())
  const title = lines.findLastIndex((l) => PERMISSION.test(l))
  if (title < 0) return null
  const buttons = lines.findIndex((l, i) => i > title && PERMISSION_CHOICES.test(l) && /enter confirm/.test(l))
  if (buttons < 0) return null
  const shell = lines.findIndex((l, i) => i > title && i < buttons && /^\s*┃\s+# Shell command$/.test(l))
  const dollar = lines.findIndex((l, i) => i > shell && i < buttons && /^\s*┃\s+\$ /.test(l))
  const end = lines.findIndex((l, i) => i > dollar && /^\s*┃$/.test(l))
  const block: DialogBlock =
    shell < 0 || dollar < 0 || end < 0 || end > buttons
      ? { kind: 'unread', why: "Trail Boss reads only OpenCode's shell command dialogs whole" }
      : { kind: 'command', rows: lines.slice(dollar, end), layouts: opencodeLayouts }
  const chosen = deriveChosenButton(rows[buttons] ?? '')
  const allow: DialogKeys | null =
    chosen === null ? null : { keys: [['Enter', 'Left', 'Right'][chosen]!], then: chosen === 0 ? 'answers' : 'moves' }
  return { block, allow, deny: { keys: ['Escape'], then: 'answers' } }
}
