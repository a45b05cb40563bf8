import { readFileSync } from 'node:fs'
import t from 'tap'
import { opencode } from '../lib/agents/opencode/index.js'
import { classifyOpencodeScreen } from '../lib/agents/opencode/screen.js'

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
