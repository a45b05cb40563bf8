// `trailboss ls` over sessions recorded by the real emitter, real transcripts and a real tmux
// server on a private socket: run in-process where only the command's output matters, and
// spawned as a person or cron would run it where the built CLI is what is tested (no tmux on
// PATH, exit codes and usage errors of the executable).
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { lsOutputSchema } from '../lib/schemas/contract.js'
import { runCli, runInProcess } from './helpers/cli.js'
import { line, startLab, type Lab } from './helpers/session-lab.js'

interface Item {
  n: number | null
  key: string
  sessionId: string
  state: string
  kind: string | null
  since: string
  project: string | null
  tmux: { pane: string; socket: string; alive: boolean | null } | null
  inferred: boolean
  ask: { tool: string | null; input: unknown; message: string | null }
}

const lsJson = async (lab: Lab, ...args: string[]): Promise<{ version: number; queue: Item[] }> => {
  const r = await runInProcess(['ls', '--json', ...args], lab.env)
  if (r.code !== 0) throw new Error(`ls exited ${r.code}: ${r.stderr}`)
  const out: unknown = JSON.parse(r.stdout)
  const checked = lsOutputSchema.safeParse(out)
  if (!checked.success) throw new Error(`ls --json broke its contract: ${checked.error.message}`)
  return out as { version: number; queue: Item[] }
}

const byId = (items: Item[], id: string): Item | undefined => items.find((i) => i.sessionId === id)

t.test('the queue, checked on read', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const [pA, pB, pC, pF, pG] = [lab.newPane(), lab.newPane(), lab.newPane(), lab.newPane(), lab.newPane()]

  // A: a finished turn that ends with a question.
  lab.appendTranscript('aaaaaaaa-1', line.prompt('pa', 'hello'), line.assistant('Shall I go on?'))
  await lab.emit('aaaaaaaa-1', 'Stop', { prompt_id: 'pa', last_assistant_message: 'Done.\nShall I go on?' }, { pane: pA })
  // B: a permission dialog for a Bash command.
  lab.appendTranscript('bbbbbbbb-1', line.prompt('pb', 'touch it'), line.toolUse('tu-b', 'Bash', { command: 'touch x' }))
  await lab.emit(
    'bbbbbbbb-1',
    'PreToolUse',
    { prompt_id: 'pb', tool_name: 'Bash', tool_input: { command: 'touch x' }, tool_use_id: 'tu-b' },
    { pane: pB },
  )
  await lab.emit(
    'bbbbbbbb-1',
    'PermissionRequest',
    { prompt_id: 'pb', tool_name: 'Bash', tool_input: { command: 'touch x' } },
    { pane: pB },
  )
  // C: working.
  await lab.emit('cccccccc-1', 'UserPromptSubmit', { prompt_id: 'pc', prompt: 'work' }, { pane: pC })
  // D: waits in a pane that does not exist: gone.
  await lab.emit('dddddddd-1', 'Stop', { prompt_id: 'pd', last_assistant_message: 'Done.' }, { pane: '%999' })
  // E: headless: recorded, never queued.
  await lab.emit('eeeeeeee-1', 'Stop', { prompt_id: 'pe', last_assistant_message: 'Done.' }, { headless: true })
  // F: stopped, then the person typed a new prompt (only the transcript shows it).
  lab.appendTranscript('ffffffff-1', line.prompt('pf', 'one'), line.assistant('Done.'))
  await lab.emit('ffffffff-1', 'Stop', { prompt_id: 'pf', last_assistant_message: 'Done.' }, { pane: pF })
  lab.appendTranscript('ffffffff-1', line.system(), line.prompt('pf2', 'two'))
  // G: a permission the person denied (no hook fires; the transcript has the error and the interrupt).
  lab.appendTranscript('gggggggg-1', line.prompt('pg', 'rm it'), line.toolUse('tu-g', 'Bash', { command: 'rm y' }))
  await lab.emit(
    'gggggggg-1',
    'PreToolUse',
    { prompt_id: 'pg', tool_name: 'Bash', tool_input: { command: 'rm y' }, tool_use_id: 'tu-g' },
    { pane: pG },
  )
  await lab.emit('gggggggg-1', 'PermissionRequest', { prompt_id: 'pg', tool_name: 'Bash', tool_input: { command: 'rm y' } }, { pane: pG })
  lab.appendTranscript('gggggggg-1', line.toolResult('pg', 'tu-g', true), line.interrupt('pg'))

  const all = await lsJson(lab, '--all')
  t.equal(all.version, 2)
  const queue = all.queue.filter((i) => i.n !== null)
  t.same(
    queue.map((i) => [i.n, i.sessionId, i.state, i.kind]),
    [
      [1, 'aaaaaaaa-1', 'waiting', 'question'],
      [2, 'bbbbbbbb-1', 'permission', 'permission'],
      [3, 'gggggggg-1', 'waiting', 'interrupted'],
    ],
    'oldest first; the denial is a wait',
  )
  t.equal(byId(all.queue, 'cccccccc-1')?.state, 'working')
  t.equal(byId(all.queue, 'dddddddd-1')?.state, 'gone')
  t.equal(byId(all.queue, 'dddddddd-1')?.tmux?.alive, false)
  t.equal(byId(all.queue, 'eeeeeeee-1')?.state, 'waiting', 'headless keeps its state')
  t.equal(byId(all.queue, 'eeeeeeee-1')?.n, null, 'but is never queued')
  t.equal(byId(all.queue, 'eeeeeeee-1')?.tmux, null)
  t.equal(byId(all.queue, 'ffffffff-1')?.state, 'working', 'a new prompt in the transcript means moved on')
  const b = byId(all.queue, 'bbbbbbbb-1')
  t.same(b?.ask, { tool: 'Bash', input: { command: 'touch x' }, message: null })
  t.equal(b?.tmux?.pane, pB)
  t.equal(b?.tmux?.alive, true)
  t.same(
    (b?.tmux as { place?: unknown } | undefined)?.place,
    {
      session: 'lab',
      window: Number(lab.tmux('display-message', '-p', '-t', pB, '#{window_index}').trim()),
      windowName: lab.tmux('display-message', '-p', '-t', pB, '#{window_name}').trim(),
    },
    '--json: where the pane sits, as tmux names it',
  )
  t.equal((byId(all.queue, 'dddddddd-1')?.tmux as { place?: unknown } | undefined)?.place, null, 'a gone pane has no place')
  t.equal(byId(all.queue, 'aaaaaaaa-1')?.ask.message, 'Done.\nShall I go on?')
  t.equal(byId(all.queue, 'aaaaaaaa-1')?.key, 'aaaaaaaa', 'keys are 8 characters when unique')

  // Without --all: only the waits.
  const waits = await lsJson(lab)
  t.same(
    waits.queue.map((i) => i.n),
    [1, 2, 3],
  )

  // Filters keep each item's number.
  const perms = await lsJson(lab, '--kind', 'permission')
  t.same(
    perms.queue.map((i) => [i.n, i.sessionId]),
    [[2, 'bbbbbbbb-1']],
  )
  const none = await lsJson(lab, '--older-than', '1h')
  t.same(none.queue, [])

  // --plain: key first, tab-separated, no header.
  const plain = await runInProcess(['ls', '--plain'], lab.env)
  const rows = plain.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'))
  t.same(
    rows.map((r) => [r[0], r[1], r[3]]),
    [
      ['aaaaaaaa', '1', 'question'],
      ['bbbbbbbb', '2', 'permission'],
      ['gggggggg', '3', 'interrupted'],
    ],
  )
  t.match(rows[1]?.[6], /^Bash: touch x$/)
  t.notMatch(plain.stdout, /\u001b\[/, 'no colour')

  // The table for people.
  const table = await runInProcess(['ls'], lab.env)
  t.match(table.stdout, /^#\s+AGE\s+KIND\s+AGENT\s+PROJECT\s+WHERE\s+ASK\n/)
  // The place as tmux names it (session lab, the pane's window), read from the one list-panes.
  const windowOf = lab.tmux('display-message', '-p', '-t', pB, '#{window_index} (#{window_name})').trim()
  t.match(
    table.stdout,
    new RegExp(`\\n2\\s+\\d+s\\s+permission\\s+claude\\s+bbbb\\s+lab:${windowOf.replace(/[()]/g, '\\$&')}\\s+Bash: touch x\\n`),
  )
  t.equal(rows[1]?.[7], 'claude', '--plain: the agent after the old fields')
  t.equal(rows[1]?.[8], `lab:${windowOf}`, '--plain: then the place')

  // --agent keeps the numbers, like every filter; an unknown agent is a usage error.
  t.same(
    (await lsJson(lab, '--agent', 'claude-code')).queue.map((i) => i.n),
    [1, 2, 3],
  )
  t.same((await lsJson(lab, '--agent', 'codex')).queue, [])
  t.same(
    (await lsJson(lab, '--agent', 'codex', '--agent', 'claude-code')).queue.map((i) => i.n),
    [1, 2, 3],
  )
  t.equal((await runInProcess(['ls', '--agent', 'nobody'], lab.env)).code, 2)
  t.equal((await runInProcess(['status', '--agent', 'codex', '--format', '{count}'], lab.env)).stdout, '', 'status counts only that agent')
  t.equal((await runInProcess(['status', '--agent', 'claude-code', '--format', '{count}'], lab.env)).stdout.trim(), '3')
  t.notMatch(table.stdout, /\u001b\[/)

  // --exit-status: 0 with waits, 3 when a filter leaves none.
  t.equal((await runInProcess(['ls', '--exit-status'], lab.env)).code, 0)
  t.equal((await runInProcess(['ls', '--exit-status', '--project', 'nope'], lab.env)).code, 3)

  // The person answers B's dialog: its tool result lands in the transcript.
  lab.appendTranscript('bbbbbbbb-1', line.toolResult('pb', 'tu-b', false))
  const after = await lsJson(lab)
  t.same(
    after.queue.map((i) => [i.n, i.sessionId]),
    [
      [1, 'aaaaaaaa-1'],
      [3, 'gggggggg-1'],
    ],
    'numbers stay put: 2 is not given to G',
  )
  const gone2 = await runInProcess(['show', '2'], lab.env)
  t.equal(gone2.code, 1, 'number 2 names no wait now')
  t.match(gone2.stderr, /no wait holds number 2; the waits are 1 and 3/)

  // The pane of A is killed: A is gone.
  lab.tmux('kill-pane', '-t', pA)
  const afterKill = await lsJson(lab, '--all')
  t.equal(byId(afterKill.queue, 'aaaaaaaa-1')?.state, 'gone')
})

t.test("ls --all's WHERE: an ended session is unmarked, a pane back at its shell is marked $", async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const live = lab.newPane()
  const shell = lab.tmux('new-window', '-d', '-t', 'lab', '-n', 'sh', '-P', '-F', '#{pane_id}', 'sh').trim()
  await lab.emit('live0000-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'ok' }, { pane: live })
  await lab.emit('ended000-1', 'SessionEnd', { reason: 'exit' }, { pane: live })
  await lab.emit('shell000-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'ok' }, { pane: shell })
  const r = await runInProcess(['ls', '--all', '--plain'], lab.env)
  t.equal(r.code, 0, r.stderr)
  const where = new Map(
    r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => [l.split('\t')[0], l.split('\t').at(-1)]),
  )
  t.equal(where.get('ended000'), live, 'an ended session: the pane it ran in, not "tmux could not be asked"')
  t.match(where.get('shell000'), /^lab:\d+ \(sh\)\$$/, 'a pane back at its shell: where it is, marked $, not ✗')
  t.match(where.get('live0000'), /^lab:\d+ \(.*\)$/, 'a live pane: its place, no mark')
})

t.test('a corrupt or foreign file is skipped with one line, never deleted', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const pane = lab.newPane()
  await lab.emit('good0000-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'ok' }, { pane })
  const dir = join(String(lab.env.TRAILBOSS_HOME), 'sessions')
  fs.writeFileSync(join(dir, 'broken00-1.json'), '{"v":1,')
  fs.writeFileSync(join(dir, 'foreign0-1.json'), JSON.stringify({ hello: 'world' }))
  const r = await runInProcess(['ls', '--plain'], lab.env)
  t.equal(r.code, 0)
  t.match(r.stdout, /^good0000\t1\t/)
  t.match(r.stderr, /trailboss: skipped .*broken00-1\.json: not valid JSON/)
  t.match(r.stderr, /trailboss: skipped .*foreign0-1\.json: not a session record/)
  t.equal(r.stderr.trim().split('\n').length, 2, 'one line per file')
  t.ok(fs.existsSync(join(dir, 'broken00-1.json')) && fs.existsSync(join(dir, 'foreign0-1.json')), 'nothing deleted')
  const j = JSON.parse((await runInProcess(['ls', '--json'], lab.env)).stdout) as { skipped: unknown[] }
  t.equal(j.skipped.length, 2, 'the JSON lists skipped files too')
})

t.test('without tmux on PATH (cron) panes are unknown and nothing is dropped', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const pane = lab.newPane()
  await lab.emit('cron0000-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'ok' }, { pane })
  const env = { ...lab.env, PATH: '/nonexistent' }
  const r = await runCli(['ls', '--json'], env)
  t.equal(r.code, 0, r.stderr)
  const j = JSON.parse(r.stdout) as { queue: Item[]; tmux: string }
  t.equal(j.tmux, 'unavailable')
  t.equal(j.queue.length, 1)
  t.equal(j.queue[0]?.tmux?.alive, null)
})

t.test('an empty queue', async (t) => {
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: t.testdir(),
    TRAILBOSS_HOME: join(t.testdirName, 'none'),
  }
  const r = await runCli(['ls'], env)
  t.equal(r.code, 0)
  t.equal(r.stdout, '', 'no TTY: nothing printed')
  t.equal((await runCli(['ls', '--exit-status'], env)).code, 3)
  t.same(JSON.parse((await runCli(['ls', '--json'], env)).stdout).queue, [])
  t.equal((await runCli(['ls', '--plain', '--json'], env)).code, 2, 'usage error')
  t.equal((await runCli(['ls', '--older-than', 'soon'], env)).code, 2, 'a bad duration is a usage error')
})
