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

t.test('captured Claude Code 2.1.332 screens, auto and default mode (a status line above the footer)', async (t) => {
  const at = (mode: string, name: string): string =>
    readFileSync(new URL(`./fixtures/claude-code-2.1.332/${mode}/screens/${name}`, import.meta.url), 'utf8')
  const common: [string, string][] = [
    ['01-startup.txt', 'idle'],
    ['02-after-stop.txt', 'idle'],
    ['03-dialog.txt', 'permission'],
    ['04-dialog-after-notification.txt', 'permission'],
    ['06-after-approve.txt', 'idle'],
    ['07-dialog-again.txt', 'permission'],
    ['08-after-esc-on-dialog.txt', 'interrupted'],
    ['09-askuserquestion.txt', 'permission'],
    ['10-after-answer.txt', 'idle'],
    ['11-api-error.txt', 'idle'],
    ['12-working.txt', 'working'],
    ['13-after-esc-working.txt', 'interrupted'],
    ['14-idle.txt', 'idle'],
    // Shift+Tab through the modes: manual, accept edits, plan, auto.
    ['15-shift-tab-1.txt', 'idle'],
    ['15-shift-tab-2.txt', 'idle'],
    ['15-shift-tab-3.txt', 'idle'],
    ['15-shift-tab-4.txt', 'idle'],
  ]
  for (const mode of ['auto', 'default'])
    for (const [file, verdict] of common) t.equal(classifyScreen(at(mode, file)), verdict, `${mode}/${file}`)
  t.equal(classifyScreen(at('auto', '05-approval-dialog.txt')), 'permission', "auto/05: the approval after the can't-check dialog")
  t.match(at('auto', '03-dialog.txt'), /Enter to stay in auto mode/, "the can't-check dialog")
})
