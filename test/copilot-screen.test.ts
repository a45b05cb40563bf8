// GitHub Copilot CLI's screens as captured from 1.0.102 (test/fixtures/copilot/screens): what each
// shows, and its approval box as `ok` / `no` read it.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { classifyCopilotScreen, readCopilotPermissionDialog } from '../lib/agents/copilot/screen.js'
import type { Reading } from '../lib/agents/dialog.js'
import { deriveDialogKeys, deriveDialogMismatch } from '../lib/queue/answer-guard.js'

const DIR = new URL('./fixtures/copilot/screens/', import.meta.url)
const screen = (name: string): string => readFileSync(new URL(name, DIR), 'utf8')

t.test('every captured screen', async (t) => {
  const want: Record<string, string> = {
    // The folder-trust question comes before any session: not a wait of ours.
    '01-folder-trust.txt': 'unknown',
    '02-idle-empty.txt': 'idle',
    '03-permission-dialog.txt': 'permission',
    '04-after-approve.txt': 'idle',
    // Option 2 chosen: the dialog's text field, still the dialog.
    '05-deny-option2.txt': 'permission',
    // Denied with feedback: the model answered, the turn ended.
    '05-deny-with-feedback.txt': 'idle',
    '06-deny-esc.txt': 'interrupted',
    '07-working.txt': 'working',
    '08-interrupted.txt': 'interrupted',
    // A failed turn reads as a prompt at rest: the error itself comes from the hook and the events file.
    '09-api-error-500.txt': 'idle',
    '10-api-error-400.txt': 'idle',
    '11-ask-user.txt': 'permission',
    '12-after-exit.txt': 'unknown',
    '13-permission-dialog-2.txt': 'permission',
  }
  t.same(readdirSync(DIR).sort(), Object.keys(want).sort(), 'a verdict for each capture')
  for (const [name, verdict] of Object.entries(want)) t.equal(classifyCopilotScreen(screen(name)), verdict, name)
})

t.test('text that is not a Copilot screen', async (t) => {
  t.equal(classifyCopilotScreen(''), 'unknown')
  t.equal(classifyCopilotScreen('$ ls\nfile\n$ '), 'unknown')
})

const cmd = (command: string, description: string | null = 'Write a marker file'): Reading => ({ kind: 'command', command, description })
const CAPTURED = cmd('echo probe > probe-out.txt')

t.test('the approval box: its command, its "Yes" (Enter) and its "No" (Esc)', async (t) => {
  for (const name of ['03-permission-dialog.txt', '13-permission-dialog-2.txt']) {
    const d = readCopilotPermissionDialog(screen(name))
    t.same(
      [d?.allow, d?.deny],
      [
        { keys: ['Enter'], then: 'answers' },
        { keys: ['Escape'], then: 'answers' },
      ],
      `${name}: Enter on "1. Yes", Esc for "No"`,
    )
    t.same(
      d?.block?.kind === 'command' ? d.block.rows : null,
      ['Write a marker file', 'echo probe > probe-out.txt'],
      `${name}: its title and command`,
    )
    t.equal(d && deriveDialogMismatch(d, CAPTURED, null), null, `${name}: exactly the captured call`)
    t.same(d && deriveDialogKeys({ verdict: 'permission', dialog: d }, CAPTURED, 'allow', null), { keys: ['Enter'], then: 'answers' })
  }
  const d = readCopilotPermissionDialog(screen('03-permission-dialog.txt'))!
  const mismatch = (r: Reading): string | null => deriveDialogMismatch(d, r, null)
  t.match(mismatch(cmd('echo probe > probe-out')), /not exactly the one in the record/, 'a shorter command')
  t.match(mismatch(cmd('echo probe > probe-out.txt && rm -rf ~')), /not exactly the one in the record/, 'a longer command')
  t.match(mismatch(cmd('echo probe > probe-out.txt', 'Something else')), /not exactly the one in the record/, 'another title')
  t.match(mismatch(cmd('echo probe > probe-out.txt', null)), /cannot lay out/, 'a call without a description: its title was never seen')
  t.match(mismatch(cmd('echo probe\nrm x')), /cannot lay out/, 'two lines: how the box wraps them was never seen')
  t.match(mismatch(cmd(`echo ${'x'.repeat(200)}`)), /cannot lay out/, 'longer than the inner box')
  t.match(mismatch(cmd('echo \u00e9')), /cannot lay out/, 'a character that may take two columns')
})

t.test('screens that are not an approval box to answer', async (t) => {
  // Option 2 chosen: the cursor is off "Yes", so ok has no key; no still has Esc.
  const two = readCopilotPermissionDialog(screen('05-deny-option2.txt'))
  t.equal(two?.allow, null, 'the cursor on "No": no key for "Yes"')
  t.same(two?.deny, { keys: ['Escape'], then: 'answers' })
  t.match(deriveDialogKeys({ verdict: 'permission', dialog: two }, CAPTURED, 'allow', null), /shows no "allow once"/)
  for (const name of [
    '01-folder-trust.txt',
    '02-idle-empty.txt',
    '04-after-approve.txt',
    '06-deny-esc.txt',
    '07-working.txt',
    '11-ask-user.txt',
    '12-after-exit.txt',
  ])
    t.equal(readCopilotPermissionDialog(screen(name)), null, `no approval box in ${name}`)
  // Another question in the same box: its block is not read, so neither key goes in.
  const edit = screen('03-permission-dialog.txt').replace('Do you want to run this command?', 'Do you want to edit this file?   ')
  const other = readCopilotPermissionDialog(edit)
  t.equal(other?.block?.kind, 'unread')
  t.match(other && deriveDialogMismatch(other, CAPTURED, null), /only Copilot's "run this command" dialogs/)
  // Something under the box: it is not at the bottom of the screen any more.
  t.equal(readCopilotPermissionDialog(`${screen('03-permission-dialog.txt')}\n$ typed later\n`), null)
})
