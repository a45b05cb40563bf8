// ok / no: each agent's reading of its permission dialogs (from the pinned builds' captured
// screens) and the pure decision whether a key may go in.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { readPermissionDialog } from '../lib/agents/claude-code/screen.js'
import { readCodexPermissionDialog } from '../lib/agents/codex/screen.js'
import { dialogShows, parseOptions } from '../lib/agents/dialog.js'
import { readGeminiPermissionDialog } from '../lib/agents/gemini/screen.js'
import { deriveAnswerRefusal, toolNeedle, type AnswerScreen } from '../lib/queue/answer-guard.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { queueItem } from './helpers/queue-item.js'
import type { SessionRecord } from '../lib/record/types.js'

const FIX = join(import.meta.dirname, 'fixtures')
const screen = (...p: string[]): string => fs.readFileSync(join(FIX, ...p), 'utf8')

t.test('Claude Code: the dialog, its "Yes" and its "No" on both pinned builds', async (t) => {
  const old = readPermissionDialog(screen('screens', '03-permission-dialog.txt'))
  t.same([old?.allow, old?.deny], [['1'], ['3']], '2.1.197: 1. Yes, 3. No')
  t.ok(old && dialogShows(old.text, 'touch /home/dev/probe/x'))
  const cur = readPermissionDialog(screen('claude-code-2.1.332', 'default', 'screens', '03-dialog.txt'))
  t.same([cur?.allow, cur?.deny], [['1'], ['4']], '2.1.332: 1. Yes, 4. No (after "switch to auto mode")')
  t.ok(cur && dialogShows(cur.text, 'touch /tmp/tb-e2e-capture/scratch/x2'))
  t.notOk(cur && dialogShows(cur.text, 'touch /tmp/tb-e2e-capture/scratch/x4'), 'another command is not this dialog')
  for (const f of ['01-startup.txt', '02-after-stop.txt', '04-after-approve.txt', '05-working-spinner.txt', '08-askuserquestion.txt']) {
    t.equal(readPermissionDialog(screen('screens', f)), null, `no permission dialog in ${f}`)
  }
  for (const f of ['06-after-approve.txt', '08-after-esc-on-dialog.txt', '09-askuserquestion.txt', '14-idle.txt']) {
    t.equal(readPermissionDialog(screen('claude-code-2.1.332', 'default', 'screens', f)), null, `no permission dialog in 2.1.332's ${f}`)
  }
})

t.test('Codex and Gemini CLI: keys named by their own dialogs', async (t) => {
  const codex = readCodexPermissionDialog(screen('codex', 'screens', '03-permission-dialog.txt'))
  t.same([codex?.allow, codex?.deny], [['y'], ['Escape']], 'Codex: "Yes, proceed (y)", "No … (esc)"')
  t.ok(codex && dialogShows(codex.text, 'touch /ROOT/scratch/codex-perm-3'))
  for (const f of ['02-done.txt', '04-after-approve.txt', '10-question-dialog.txt']) t.equal(readCodexPermissionDialog(screen('codex', 'screens', f)), null, `Codex: none in ${f}`)
  const shell = readGeminiPermissionDialog(screen('gemini', 'screens', '06-permission-shell.txt'))
  t.same([shell?.allow, shell?.deny], [['Enter'], ['Escape']], 'Gemini: Enter on "Allow once" (the cursor is on it), Esc for "No"')
  t.ok(shell && dialogShows(shell.text, 'touch /home/dev/gprobe/scratch/g8'))
  const edit = readGeminiPermissionDialog(screen('gemini', 'screens', '09-permission-edit.txt'))
  t.ok(edit && dialogShows(edit.text, 'note13.txt'), 'an edit names its file')
  t.notOk(edit && dialogShows(edit.text, 'touch /home/dev/gprobe/scratch/g8'), 'only the open dialog counts, not an earlier tool box')
  for (const f of ['02-done.txt', '07-after-approve.txt', '14-ask-user.txt']) t.equal(readGeminiPermissionDialog(screen('gemini', 'screens', f)), null, `Gemini: none in ${f}`)
  const moved = screen('gemini', 'screens', '06-permission-shell.txt').replace('● 1. Allow once', '  1. Allow once').replace('  2. Allow for this session', '● 2. Allow for this session')
  t.equal(readGeminiPermissionDialog(moved)?.allow, null, 'the cursor moved off "Allow once": Enter would pick something else')
  t.same(parseOptions(['│ ● 1. Allow once   │', '  3. No, suggest changes (esc)']).map((o) => [o.number, o.selected, o.hint]), [['1', true, null], ['3', false, 'esc']])
})

const item = (over: Partial<QueueItem> = {}): QueueItem =>
  queueItem({
    state: 'permission',
    kind: 'permission',
    since: 1000,
    needsYou: true,
    ask: { tool: 'Bash', input: { command: 'touch /tmp/x2' }, message: null },
    record: { lastEventAt: 1000 } as SessionRecord,
    ...over,
  })

t.test('deriveAnswerRefusal: only that very dialog, in that very process', async (t) => {
  const dialog = (text: string): AnswerScreen => ({ verdict: 'permission', dialog: { text, allow: ['1'], deny: ['3'] } })
  const shown = dialog(' Bash command\n   touch /tmp/x2\n Do you want to proceed?')
  const ok = item()
  t.equal(deriveAnswerRefusal(ok, item(), shown, true, 'allow'), null, 'the same dialog: allowed')
  t.equal(deriveAnswerRefusal(ok, item(), shown, true, 'deny'), null)
  const cases: [string, Parameters<typeof deriveAnswerRefusal>, RegExp][] = [
    ['not a permission', [item({ state: 'waiting', kind: 'done' }), item(), shown, true, 'allow'], /does not wait on a permission dialog \(done\)/],
    ['a question', [item({ kind: 'question', ask: { tool: 'AskUserQuestion', input: {}, message: null } }), item(), shown, true, 'allow'], /asks a question/],
    ['no tmux', [item({ tmux: null }), item(), shown, true, 'allow'], /does not run in tmux/],
    ['answered since', [ok, item({ state: 'working', kind: null }), shown, true, 'allow'], /the dialog changed/],
    ['a new dialog', [ok, item({ since: 2000 }), shown, true, 'allow'], /the dialog changed/],
    ['another input', [ok, item({ ask: { tool: 'Bash', input: { command: 'rm -rf /' }, message: null } }), shown, true, 'allow'], /the dialog changed/],
    ['the session is gone', [ok, undefined, shown, true, 'allow'], /the dialog changed/],
    ['pane gone', [ok, item({ tmux: { pane: '%3', socket: '/s', serverPid: 1, alive: false } }), shown, true, 'allow'], /pane is gone/],
    ['another process', [ok, item(), shown, false, 'allow'], /no longer runs the agent/],
    ['process unknown', [ok, item(), shown, null, 'allow'], /does not say which process/],
    ['unreadable', [ok, item(), null, true, 'allow'], /could not be read/],
    ['at the prompt', [ok, item(), { verdict: 'idle', dialog: null }, true, 'allow'], /does not show a permission dialog \(idle\)/],
    ['another tool on screen', [ok, item(), dialog(' Bash command\n   touch /tmp/x4\n Do you want to proceed?'), true, 'allow'], /a dialog for something else \(not Bash: touch \/tmp\/x2\)/],
    ['no key shown', [ok, item(), { verdict: 'permission', dialog: { text: 'touch /tmp/x2', allow: null, deny: ['3'] } }, true, 'allow'], /no "allow once" choice/],
    ['an agent whose dialogs are unknown', [ok, item(), shown, true, 'allow', false], /cannot read claude-code's dialogs/],
    ['a capped input', [item({ ask: { tool: 'Bash', input: '{"command":"…[truncated]', message: null } }), item({ ask: { tool: 'Bash', input: '{"command":"…[truncated]', message: null } }), shown, true, 'allow'], /cannot tell from Bash's input/],
  ]
  for (const [name, args, why] of cases) t.match(deriveAnswerRefusal(...args), why, name)
  t.equal(toolNeedle({ file_path: '/w/src/a.ts', old_string: 'x' }), 'a.ts', 'an edit: its file name')
  t.equal(toolNeedle({ command: 'ls' }), 'ls')
  t.equal(toolNeedle('text'), null)
  t.ok(dialogShows('│ $ touch /a/very/long/pa │\n│ th/x │', 'touch /a/very/long/path/x'), 'a wrapped command inside a box')
})
