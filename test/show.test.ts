// `trailboss show`, spawned, over sessions recorded by the real emitter and a real tmux pane.
import t from 'tap'
import { waitFor } from './helpers/wait-for.js'
import { runCli } from './helpers/cli.js'
import { line, startLab } from './helpers/session-lab.js'

t.test('show a permission wait, a question and the live screen', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const edit = lab.newPane()
  const ask = lab.newPane()
  lab.appendTranscript('edit0000-1', line.prompt('pe', 'fix the typo'), line.assistant('I will fix it.'), line.toolUse('tu-e', 'Edit', { file_path: '/w/a.ts' }))
  const input = { file_path: '/w/a.ts', old_string: 'const colour = "red"\n', new_string: 'const color = "red"\n' }
  await lab.emit('edit0000-1', 'PreToolUse', { prompt_id: 'pe', tool_name: 'Edit', tool_input: input, tool_use_id: 'tu-e' }, { pane: edit })
  await lab.emit('edit0000-1', 'PermissionRequest', { prompt_id: 'pe', tool_name: 'Edit', tool_input: input }, { pane: edit })
  await lab.emit('ask00000-1', 'Stop', { prompt_id: 'pa', last_assistant_message: 'I looked.\nShould I also update the docs?' }, { pane: ask })

  const r = await runCli(['show', '1'], lab.env)
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^1 · edit · permission · \d+s · pane %\d+/)
  t.match(r.stdout, /Asks to run:\n {2}Edit \/w\/a\.ts/)
  t.match(r.stdout, /-const colour = "red"\n.*\+const color = "red"/)
  t.match(r.stdout, /Transcript \(last 3\):\n {2}❯ fix the typo\n {2}● I will fix it\.\n {2}⚙ Edit/)

  const q = await runCli(['show', 'ask0'], lab.env)
  t.notMatch(q.stdout, /Asks to run/, 'a question does not ask to run anything')
  t.match(q.stdout, /Asks you:\n {2}I looked\.\n {2}Should I also update the docs\?/)

  const byPane = await runCli(['show', ask, '--json'], lab.env)
  const j = JSON.parse(byPane.stdout) as { version: number; item: { sessionId: string; kind: string }; screen: unknown }
  t.same([j.version, j.item.sessionId, j.item.kind, j.screen], [2, 'ask00000-1', 'question', null])

  lab.tmux('respawn-pane', '-k', '-t', ask, 'sh', '-c', 'printf "hello from the pane\\n"; exec sleep 1000')
  await waitFor(() => lab.tmux('capture-pane', '-p', '-t', ask).includes('hello from the pane'), 'the pane printed its line')
  const screen = await runCli(['show', '2', '--screen'], lab.env)
  t.match(screen.stdout, /Screen:\n {2}│ hello from the pane/)

  const missing = await runCli(['show', 'nosuch'], lab.env)
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^trailboss: no session matches "nosuch" — /)
  const empty = await runCli(['show', ' '], lab.env)
  t.equal(empty.code, 2, 'an empty target is a usage error, not "matches every session"')
  t.match(empty.stderr, /^trailboss: no session named — /)
  const ambiguous = await runCli(['show', '9'], lab.env)
  t.match(ambiguous.stderr, /no wait holds number 9; the waits are 1 and 2/)
})
