import { readFileSync } from 'node:fs'
import t from 'tap'
import { classifyGeminiScreen } from '../lib/agents/gemini/screen.js'

const screen = (name: string): string => readFileSync(new URL(`./fixtures/gemini/screens/${name}`, import.meta.url), 'utf8')

t.test('captured Gemini CLI 0.61.0 screens', async (t) => {
  const cases: [string, string][] = [
    ['01-startup.txt', 'idle'],
    ['02-done.txt', 'idle'],
    ['03-working.txt', 'working'],
    ['04-cancelled.txt', 'interrupted'],
    ['05-api-error.txt', 'idle'],
    ['06-permission-shell.txt', 'permission'],
    ['07-after-approve.txt', 'idle'],
    ['08-after-deny-esc.txt', 'interrupted'],
    ['09-permission-edit.txt', 'permission'],
    ['10-question-text.txt', 'idle'],
    ['11-after-clear.txt', 'idle'],
    ['12-after-quit.txt', 'unknown'],
    ['13-resumed.txt', 'idle'],
    ['14-ask-user.txt', 'permission'],
  ]
  for (const [file, verdict] of cases) t.equal(classifyGeminiScreen(screen(file)), verdict, file)
})

t.test('texts that are not a Gemini CLI screen', async (t) => {
  t.equal(classifyGeminiScreen(''), 'unknown')
  t.equal(classifyGeminiScreen('$ ls\nfoo bar\n$ '), 'unknown')
  // An old cancellation further up does not make a later finished turn interrupted.
  const cancelled = screen('04-cancelled.txt')
  const at = cancelled.indexOf('\n─')
  const later = `${cancelled.slice(0, at)}\n > next\n✦ All done here.\n${cancelled.slice(at)}`
  t.equal(classifyGeminiScreen(later), 'idle')
})
