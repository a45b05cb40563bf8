import { readFileSync } from 'node:fs'
import t from 'tap'
import { opencode } from '../lib/agents/opencode/index.js'
import { classifyOpencodeScreen, deriveChosenButton, readOpencodePermissionDialog, stripColours } from '../lib/agents/opencode/screen.js'
import { deriveDialogMismatch } from '../lib/queue/answer-guard.js'

// Panes of a real OpenCode 1.18.33 TUI, captured with tmux capture-pane (test/fixtures/opencode/screens).
const screen = (name: string): string => readFileSync(new URL(`./fixtures/opencode/screens/${name}.txt`, import.meta.url), 'utf8')

t.test('each captured screen, classified', async (t) => {
  const verdicts = Object.fromEntries(
    [
      '01-start',
      '02-plain-done',
      '03-permission',
      '04-after-approve',
      '05-after-reject',
      '06-permission-esc',
      '07-working',
      '08-interrupted',
      '09-api-error-500',
      '10-api-retrying-400',
      '11-question',
      '12-after-question-dismissed',
    ].map((n) => [n, classifyOpencodeScreen(screen(n))]),
  )
  t.same(verdicts, {
    '01-start': 'idle',
    '02-plain-done': 'idle',
    '03-permission': 'permission',
    '04-after-approve': 'idle',
    '05-after-reject': 'idle',
    '06-permission-esc': 'idle',
    '07-working': 'working',
    '08-interrupted': 'interrupted',
    '09-api-error-500': 'idle',
    // Waiting to retry a failed request is still working.
    '10-api-retrying-400': 'working',
    '11-question': 'permission',
    '12-after-question-dismissed': 'idle',
  })
  t.equal(opencode.classifyScreen, classifyOpencodeScreen, 'the adapter uses these rules')
})

t.test('a screen that is not OpenCode at its prompt says nothing', async (t) => {
  t.equal(classifyOpencodeScreen('$ ls\nfile\n$ '), 'unknown')
  t.equal(classifyOpencodeScreen(''), 'unknown')
  // The buttons without the title are not the dialog.
  t.equal(classifyOpencodeScreen('Allow once   Allow always   Reject\n'), 'unknown')
})

// The permission dialog as `tmux capture-pane -p -e` gave it, with each button chosen in turn
// (test/e2e/capture-opencode-dialog.ts): only the colours tell which one Enter presses.
const CHOSEN = ['allow-once', 'allow-always', 'reject'] as const
const colourScreen = (name: (typeof CHOSEN)[number]): string =>
  readFileSync(new URL(`./fixtures/opencode/screens/03-permission-colour-${name}.ansi`, import.meta.url), 'utf8')
const buttonsRow = (screen: string): string =>
  screen.split('\n').find((l) => /Allow once\s+Allow always\s+Reject/.test(stripColours(l))) ?? ''

/** Where the allow keys leave the choice: Left and Right wrap around the three buttons. */
const landsOn = (chosen: number, keys: readonly string[]): number =>
  keys.reduce((at, k) => (k === 'Left' ? (at + 2) % 3 : k === 'Right' ? (at + 1) % 3 : at), chosen)

t.test('the chosen button, read from the colours of a real capture', async (t) => {
  t.same(
    CHOSEN.map((n) => deriveChosenButton(buttonsRow(colourScreen(n)))),
    [0, 1, 2],
  )
  for (const n of CHOSEN) t.equal(classifyOpencodeScreen(colourScreen(n)), 'permission', `${n}: a permission dialog`)
  // The same row without its colours tells nothing.
  t.equal(deriveChosenButton(stripColours(buttonsRow(colourScreen('allow-always')))), null)
})

t.test('the allow keys end on "Allow once" from each button; Esc denies', async (t) => {
  const dialogs = CHOSEN.map((n) => readOpencodePermissionDialog(colourScreen(n)))
  t.same(
    dialogs.map((d) => d?.allow),
    [
      { keys: ['Enter'], then: 'answers' },
      { keys: ['Left'], then: 'moves' },
      { keys: ['Right'], then: 'moves' },
    ],
  )
  for (const [i, d] of dialogs.entries()) {
    const allow = d?.allow
    if (!allow) throw new Error(`${CHOSEN[i]}: no allow keys`)
    // Keys that answer press Enter on "Allow once"; keys that move leave the choice on it, never on "Allow always".
    t.equal(landsOn(i, allow.keys), 0, `${CHOSEN[i]}: the keys end on "Allow once"`)
    t.equal(allow.keys.includes('Enter'), allow.then === 'answers', `${CHOSEN[i]}: only Enter answers`)
    t.same(d?.deny, { keys: ['Escape'], then: 'answers' }, `${CHOSEN[i]}: Esc rejects`)
  }
})

t.test("the dialog's block is the command, exactly as asked", async (t) => {
  for (const n of CHOSEN) {
    const d = readOpencodePermissionDialog(colourScreen(n))
    if (d?.block?.kind !== 'command') throw new Error(`${n}: no command block`)
    t.same(d.block.rows, ['  ┃  $ touch oc-1'], `${n}: the command's row`)
    t.equal(deriveDialogMismatch(d, { kind: 'command', command: 'touch oc-1', description: null }, null), null, `${n}: matches the record`)
    t.match(
      deriveDialogMismatch(d, { kind: 'command', command: 'touch oc-10', description: null }, null),
      /not exactly/,
      `${n}: another command does not`,
    )
  }
})

t.test('no permission dialog on the screen: null', async (t) => {
  for (const n of ['01-start', '04-after-approve', '11-question']) t.equal(readOpencodePermissionDialog(screen(n)), null, n)
  // The dialog captured without colours: its command is read, but not which button Enter presses.
  const plain = readOpencodePermissionDialog(screen('03-permission'))
  t.equal(plain?.allow, null, 'no allow keys without colours')
  t.same(plain?.deny, { keys: ['Escape'], then: 'answers' })
})
