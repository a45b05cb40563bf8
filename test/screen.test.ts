import { readFileSync } from 'node:fs'
import t from 'tap'
import { classifyScreen } from '../lib/agents/claude-code/screen.js'

const screen = (name: string): string => readFileSync(new URL(`./fixtures/screens/${name}`, import.meta.url), 'utf8')

t.test('captured Claude Code screens', async (t) => {
  const cases: [string, string][] = [
    ['01-startup.txt', 'idle'],
    ['02-after-stop.txt', 'idle'],
    ['03-permission-dialog.txt', 'permission'],
    ['04-after-approve.txt', 'idle'],
    ['05-working-spinner.txt', 'working'],
    ['06-after-esc-interrupt.txt', 'interrupted'],
    ['07-esc-before-output.txt', 'interrupted'],
    ['08-askuserquestion.txt', 'permission'],
    // Reconstructed from the end-to-end run: the prompt is back in the box, the footer empty.
    ['09-esc-before-output-prompt-restored.txt', 'interrupted'],
  ]
  for (const [file, verdict] of cases) t.equal(classifyScreen(screen(file)), verdict, file)
})

t.test('texts that are not a Claude Code screen', async (t) => {
  t.equal(classifyScreen(''), 'unknown')
  t.equal(classifyScreen('$ ls\nfoo bar\n$ '), 'unknown')
  // An old interruption further up does not make a later finished turn interrupted.
  const interrupted = screen('06-after-esc-interrupt.txt')
  const at = interrupted.indexOf('\n─')
  const later = `${interrupted.slice(0, at)}\n\n❯ next\n\n● All done.\n${interrupted.slice(at)}`
  t.equal(classifyScreen(interrupted), 'interrupted')
  t.equal(classifyScreen(later), 'idle')
})
