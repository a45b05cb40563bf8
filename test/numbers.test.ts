// Wait numbers that stay put (lib/queue/numbers.ts): the pure rules in one-line cases, then the
// book on disk with the built CLI, and `ok` by number against a real tmux server whose panes run
// an agent stand-in showing a captured permission dialog. Run `npm run build` first.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { deriveNumbering, formatNumbers, NUMBER_HOLD_MS, type NumberEntry, parseNumbers } from '../lib/queue/numbers.js'
import { formatNumbers as formatValidNumbers } from '../lib/queue/target.js'
import { copyBuilt } from './helpers/navigate-records.js'
import { cleanEnv, newPane, startServer, waitFor } from './helpers/navigate-tmux.js'
import { baseEnv, payload, runEmitter, tempDir } from './helpers/emitter.js'
import { CLI } from './helpers/cli.js'

const held = (n: number, sessionId: string, since: number): NumberEntry => ({ n, sessionId, since, freedAt: null })
const freed = (n: number, sessionId: string, since: number, freedAt: number): NumberEntry => ({ n, sessionId, since, freedAt })
const w = (sessionId: string, since: number) => ({ sessionId, since })
const NOW = 1_000_000_000

t.test('deriveNumbering: a wait keeps its number; a freed number is held 10 minutes', async (t) => {
  const cases: [string, NumberEntry[], { sessionId: string; since: number }[], [string, number][], NumberEntry[]][] = [
    [
      'new waits, in queue order: 1, 2, 3',
      [],
      [w('a', 5), w('b', 1), w('c', 9)],
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ],
      [held(1, 'a', 5), held(2, 'b', 1), held(3, 'c', 9)],
    ],
    ['a wait in the book keeps its number', [held(4, 'a', 5)], [w('a', 5)], [['a', 4]], [held(4, 'a', 5)]],
    [
      'an ended wait frees its number now; the others keep theirs',
      [held(1, 'a', 5), held(2, 'b', 6)],
      [w('b', 6)],
      [['b', 2]],
      [freed(1, 'a', 5, NOW), held(2, 'b', 6)],
    ],
    [
      'a freed number is given to no other wait while held',
      [freed(1, 'a', 5, NOW - 1000)],
      [w('x', 7)],
      [['x', 2]],
      [freed(1, 'a', 5, NOW - 1000), held(2, 'x', 7)],
    ],
    ['after the hold, the lowest free number again', [freed(1, 'a', 5, NOW - NUMBER_HOLD_MS)], [w('x', 7)], [['x', 1]], [held(1, 'x', 7)]],
    [
      'a new wait of the same session is another wait',
      [held(1, 'a', 5)],
      [w('a', 8)],
      [['a', 2]],
      [freed(1, 'a', 5, NOW), held(2, 'a', 8)],
    ],
    ['a wait a reader missed takes its number back', [freed(3, 'a', 5, NOW - 1000)], [w('a', 5)], [['a', 3]], [held(3, 'a', 5)]],
    [
      'freed in the future (the clock stepped back): the hold is over',
      [freed(1, 'a', 5, NOW + 60_000)],
      [w('x', 7)],
      [['x', 1]],
      [held(1, 'x', 7)],
    ],
    [
      'gaps are filled from the lowest',
      [held(2, 'b', 1), held(4, 'd', 1)],
      [w('b', 1), w('d', 1), w('e', 2), w('f', 3)],
      [
        ['b', 2],
        ['d', 4],
        ['e', 1],
        ['f', 3],
      ],
      [held(2, 'b', 1), held(4, 'd', 1), held(1, 'e', 2), held(3, 'f', 3)],
    ],
  ]
  for (const [name, book, waits, want, entries] of cases) {
    const got = deriveNumbering(book, waits, NOW)
    t.same(
      waits.map((x) => [x.sessionId, got.numbers.get(`${x.sessionId}\n${x.since}`)]),
      want,
      name,
    )
    t.same(got.entries, entries, `${name}: the book`)
  }
  t.equal(deriveNumbering([held(1, 'a', 5)], [w('a', 5)], NOW).changed, false, 'nothing to write when nothing changed')
  t.equal(deriveNumbering([], [], NOW).changed, false)
})

t.test('parseNumbers: a book of this version and shape, else none', async (t) => {
  const book = [held(1, 'a', 5), freed(2, 'b', 6, 7)]
  t.same(parseNumbers(formatNumbers(book)), book, 'round trip')
  t.same(parseNumbers('{"v":1,"waits":'), [], 'cut short')
  t.same(parseNumbers('{"v":2,"waits":[]}'), [], 'another version')
  t.same(parseNumbers('[1,2]'), [], 'foreign')
  const mixed = JSON.stringify({
    v: 1,
    waits: [
      { n: 1, sessionId: 'a', since: 5, freedAt: null },
      { n: 1, sessionId: 'b', since: 5, freedAt: null },
      { n: 0, sessionId: 'c', since: 5, freedAt: null },
      { n: 3, sessionId: '../x', since: 5, freedAt: null },
      { n: 4, sessionId: 'd', since: 'x', freedAt: null },
      null,
    ],
  })
  t.same(parseNumbers(mixed), [], 'a zero, a bad id, a bad time, null: a book of another shape is none')
  const twice = JSON.stringify({
    v: 1,
    waits: [
      { n: 1, sessionId: 'a', since: 5, freedAt: null },
      { n: 1, sessionId: 'b', since: 5, freedAt: null },
    ],
  })
  t.same(parseNumbers(twice), [held(1, 'a', 5)], 'a number held twice is kept once')
  t.equal(formatValidNumbers([{ n: 4 }]), 'the wait is 4')
  t.equal(formatValidNumbers([{ n: 5 }, { n: 2 }, { n: null }, { n: 3 }]), 'the waits are 2, 3 and 5')
})

const lsJson = (env: Record<string, string | undefined>): Promise<{ queue: { n: number; sessionId: string }[] }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'ls', '--json'], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as { queue: { n: number; sessionId: string }[] })
      } catch (err) {
        reject(err)
      }
    })
  })

t.test('the book on disk: readers at once agree, numbers survive a corrupt book being rewritten', async (t) => {
  const env = baseEnv(tempDir(t))
  for (const id of ['s-a', 's-b', 's-c', 's-d'])
    await runEmitter(JSON.stringify(payload(id, 'Stop', { last_assistant_message: `${id}?` })), env)
  // Four readers at once, each the first to see the four waits: one book, one numbering.
  const docs = await Promise.all([1, 2, 3, 4].map(() => lsJson(env)))
  const numbering = (d: { queue: { n: number; sessionId: string }[] }) => d.queue.map((i) => `${i.sessionId}=${i.n}`).sort()
  t.same(
    docs.map(numbering),
    [1, 2, 3, 4].map(() => ['s-a=1', 's-b=2', 's-c=3', 's-d=4']),
    'every reader gives every wait the same number',
  )
  const file = join(String(env.TRAILBOSS_HOME), 'numbers.json')
  t.equal(fs.statSync(file).mode & 0o777, 0o600, 'the book is 0600')
  // s-b answered: its number is held, not given to the next wait.
  await runEmitter(JSON.stringify(payload('s-b', 'UserPromptSubmit', { prompt: 'go on' })), env)
  await runEmitter(JSON.stringify(payload('s-e', 'Stop', { last_assistant_message: 'new?' })), env)
  t.same(numbering(await lsJson(env)), ['s-a=1', 's-c=3', 's-d=4', 's-e=5'])
  fs.writeFileSync(file, '{"v":1,"waits":[{"n":')
  t.same(
    numbering(await lsJson(env)),
    ['s-a=1', 's-c=2', 's-d=3', 's-e=4'],
    'a corrupt book is none: numbered afresh, oldest first, and written again',
  )
  t.same(parseNumbers(fs.readFileSync(file, 'utf8')).length, 4, 'rewritten whole')
})

t.test('ok by number acts only on the wait that holds that number now, and says which it answered', async (t) => {
  const { cli, emitter } = await copyBuilt(t)
  const dir = t.testdir({ proj: {} })
  const home = join(dir, 'home')
  fs.mkdirSync(home, { mode: 0o700 })
  const cwd = join(dir, 'proj')
  const STAND_IN = fileURLToPath(new URL('./helpers/agent-stand-in.cjs', import.meta.url))
  const dialogScreen = fileURLToPath(new URL('./fixtures/screens/03-permission-dialog.txt', import.meta.url))
  const agent = (sessionId: string): string[] => {
    const event = {
      session_id: sessionId,
      transcript_path: `${cwd}/none.jsonl`,
      cwd,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'touch /home/dev/probe/x', description: 'Create probe file' },
      prompt_id: 'p1',
    }
    return [process.execPath, STAND_IN, emitter, home, dialogScreen, JSON.stringify(event), cwd]
  }
  const env = cleanEnv({ TRAILBOSS_HOME: home, TRAILBOSS_ALLOW_SEND: '1' })
  const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 20_000 })
  const waits = (): string[] => run('ls', '--plain').stdout.trim().split('\n').filter(Boolean)
  const server = startServer(t, 'work', agent('a1111111-0000-4000-8000-000000000001'), [200, 50])
  const paneA = server.tmux('display-message', '-p', '-t', 'work', '#{pane_id}').trim()
  await waitFor(() => waits().length === 1, 'A recorded', 15_000)
  const paneB = newPane(server, ['new-window', '-d', '-t', 'work'], agent('b2222222-0000-4000-8000-000000000002'))
  await waitFor(() => waits().length === 2, 'B recorded', 15_000)
  const capture = (p: string): string => server.tmux('capture-pane', '-p', '-t', p)
  for (const p of [paneA, paneB]) await waitFor(() => /Do you want to proceed/.test(capture(p)), `the dialog in ${p}`)
  // The person reads the list: A is 1, B is 2.
  t.same(
    waits().map((l) => l.split('\t').slice(0, 2)),
    [
      ['a1111111', '1'],
      ['b2222222', '2'],
    ],
  )
  // Meanwhile A's dialog is answered in its pane: A works again.
  const r = await runEmitter(
    JSON.stringify({
      session_id: 'a1111111-0000-4000-8000-000000000001',
      transcript_path: `${cwd}/none.jsonl`,
      cwd,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'touch /home/dev/probe/x', description: 'Create probe file' },
      prompt_id: 'p1',
    }),
    cleanEnv({ TRAILBOSS_HOME: home, CLAUDE_PROJECT_DIR: cwd, TMUX: `${server.socket},${server.pid},0`, TMUX_PANE: paneA }),
  )
  t.equal(r.code, 0)
  const before = capture(paneB)
  const one = run('ok', '1')
  t.equal(one.status, 1, 'number 1 names no wait now: refused')
  t.match(one.stderr, /no wait holds number 1; the wait is 2/)
  t.equal(capture(paneB), before, "nothing was pressed in B's pane")
  t.match(run('ls', '--plain').stdout, /^b2222222\t2\t/, 'B keeps 2')
  const two = run('ok', '2')
  t.equal(two.status, 0, two.stderr)
  t.match(two.stderr, /trailboss: allowed 2 · proj · %\d+ \(permission: Bash: touch \/home\/dev\/probe\/x\)/, 'says which wait it answered')
})
