// GitHub Copilot CLI's screens as captured from 1.0.102 (test/fixtures/copilot/screens): what each shows.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { classifyCopilotScreen } from '../lib/agents/copilot/screen.js'

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
