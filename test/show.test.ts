// `trailboss show` over sessions recorded by the real emitter and a real tmux pane: the built CLI
// spawned once, the rest in-process.
import t from 'tap'
import { waitFor } from './helpers/wait-for.js'
import { runCli, runInProcess } from './helpers/cli.js'
import { line, startLab } from './helpers/session-lab.js'

t.test('show a permission wait, a question and the live screen', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const edit = lab.newPane()
  const ask = lab.newPane()
  lab.appendTranscript(
    'edit0000-1',
    line.prompt('pe', 'fix the typo'),
    line.assistant('I will fix it.'),
    line.toolUse('tu-e', 'Edit', { file_path: '/w/a.ts' }),
  )
  const input = { file_path: '/w/a.ts', old_string: 'const colour = "red"\n', new_string: 'const color = "red"\n' }
  await lab.emit('edit0000-1', 'PreToolUse', { prompt_id: 'pe', tool_name: 'Edit', tool_input: input, tool_use_id: 'tu-e' }, { pane: edit })
  await lab.emit('edit0000-1', 'PermissionRequest', { prompt_id: 'pe', tool_name: 'Edit', tool_input: input }, { pane: edit })
  await lab.emit(
    'ask00000-1',
    'Stop',
    { prompt_id: 'pa', last_assistant_message: 'I looked.\nShould I also update the docs?' },
    { pane: ask },
  )

  const r = await runCli(['show', '1'], lab.env)
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^1 · edit · permission · \d+s · pane %\d+/)
  t.match(r.stdout, /Asks to run:\n {2}Edit \/w\/a\.ts/)
  t.match(r.stdout, /-const colour = "red"\n.*\+const color = "red"/)
  t.match(r.stdout, /Transcript \(last 3\):\n {2}❯ fix the typo\n {2}● I will fix it\.\n {2}⚙ Edit/)

  const q = await runInProcess(['show', 'ask0'], lab.env)
  t.notMatch(q.stdout, /Asks to run/, 'a question does not ask to run anything')
  t.match(q.stdout, /Asks you:\n {2}I looked\.\n {2}Should I also update the docs\?/)

  const byPane = await runInProcess(['show', ask, '--json'], lab.env)
  const j = JSON.parse(byPane.stdout) as { version: number; item: { sessionId: string; kind: string }; screen: unknown }
  t.same([j.version, j.item.sessionId, j.item.kind, j.screen], [2, 'ask00000-1', 'question', null])

  lab.tmux('respawn-pane', '-k', '-t', ask, 'sh', '-c', 'printf "hello from the pane\\n"; exec sleep 1000')
  await waitFor(() => lab.tmux('capture-pane', '-p', '-t', ask).includes('hello from the pane'), 'the pane printed its line')
  const screen = await runInProcess(['show', '2', '--screen'], lab.env)
  t.match(screen.stdout, /Screen:\n {2}│ hello from the pane/)

  const missing = await runInProcess(['show', 'nosuch'], lab.env)
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^trailboss: no session matches "nosuch" — /)
  const empty = await runInProcess(['show', ' '], lab.env)
  t.equal(empty.code, 2, 'an empty target is a usage error, not "matches every session"')
  t.match(empty.stderr, /^trailboss: no session named — /)
  const ambiguous = await runInProcess(['show', '9'], lab.env)
  t.match(ambiguous.stderr, /no wait holds number 9; the waits are 1 and 2/)
})

t.test('an interrupted turn says what was running, or that it was writing', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const esc = lab.newPane()
  const inflight = lab.newPane()
  const writing = lab.newPane()
  const npmTest = { command: 'npm test', description: 'Run the tests' }
  // Esc while Bash ran: Claude Code's PostToolUseFailure with is_interrupt.
  await lab.emit('esc00000-1', 'UserPromptSubmit', { prompt_id: 'p1' }, { pane: esc })
  await lab.emit(
    'esc00000-1',
    'PreToolUse',
    { prompt_id: 'p1', tool_name: 'Bash', tool_input: npmTest, tool_use_id: 'tu-1' },
    { pane: esc },
  )
  await lab.emit(
    'esc00000-1',
    'PostToolUseFailure',
    { prompt_id: 'p1', tool_name: 'Bash', tool_input: npmTest, tool_use_id: 'tu-1', is_interrupt: true },
    { pane: esc },
  )
  // The transcript tells the interruption before any hook: the call in flight is the record's lastTool.
  await lab.emit('infl0000-1', 'UserPromptSubmit', { prompt_id: 'p2' }, { pane: inflight })
  await lab.emit(
    'infl0000-1',
    'PreToolUse',
    { prompt_id: 'p2', tool_name: 'Bash', tool_input: { command: 'make build' }, tool_use_id: 'tu-2' },
    { pane: inflight },
  )
  lab.appendTranscript(
    'infl0000-1',
    line.toolUse('tu-2', 'Bash', { command: 'make build' }),
    line.toolResult('p2', 'tu-2', true, '[Request interrupted by user for tool use]'),
    line.interrupt('p2'),
  )
  // A tool of this prompt that ended, then Esc while the agent wrote: no tool was running.
  await lab.emit('writ0000-1', 'UserPromptSubmit', { prompt_id: 'p3' }, { pane: writing })
  await lab.emit(
    'writ0000-1',
    'PreToolUse',
    { prompt_id: 'p3', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu-3' },
    { pane: writing },
  )
  await lab.emit(
    'writ0000-1',
    'PostToolUse',
    { prompt_id: 'p3', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu-3' },
    { pane: writing },
  )
  lab.appendTranscript(
    'writ0000-1',
    line.toolUse('tu-3', 'Bash', { command: 'ls' }),
    line.toolResult('p3', 'tu-3', false),
    line.assistant('Here is what I fou'),
    line.interrupt('p3', false),
  )

  const ls = await runInProcess(['ls', '--plain'], lab.env)
  t.equal(ls.code, 0, ls.stderr)
  const ask = new Map(
    ls.stdout
      .trim()
      .split('\n')
      .map((r) => r.split('\t'))
      .map((c) => [c[0], [c[3], c[6]]]),
  )
  t.same(ask.get('esc00000'), ['interrupted', 'Bash: npm test'], 'Esc while Bash ran: the ASK names it')
  t.same(ask.get('infl0000'), ['interrupted', 'Bash: make build'], 'the call in flight when the transcript told of the Esc')
  t.same(
    ask.get('writ0000'),
    ['interrupted', 'stopped while writing its answer (no tool was running)'],
    'a finished tool is not what was running',
  )

  const shown = await runInProcess(['show', 'esc0'], lab.env)
  t.match(shown.stdout, /Was stopped \(Esc, or a no in its dialog\) at:\n {2}Bash — Run the tests\n {4}\$ npm test\n/)
  const wrote = await runInProcess(['show', 'writ'], lab.env)
  t.match(wrote.stdout, /\nWas stopped while writing its answer \(no tool was running\)\.\n/)
  t.match(wrote.stdout, /⚙ Bash\n {6}\$ ls\n/, 'its transcript tail shows the ended call as a command')
})
