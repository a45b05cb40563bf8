// `trailboss send` (opt-in): panes run an agent stand-in that shows a captured Claude Code
// screen, runs the emitter as its hook (so the record names this process), then echoes the
// terminal like `cat`, so what send types shows up in the pane. Run `npm run build` first.
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { deriveSendRefusal } from '../lib/commands/send.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { copyBuilt } from './helpers/navigate-records.js'
import { queueItem } from './helpers/queue-item.js'
import { cleanEnv, newPane, startServer, waitFor } from './helpers/navigate-tmux.js'

t.setTimeout(60_000)
const { cli: CLI, emitter } = await copyBuilt(t)
const screen = (name: string): string => fileURLToPath(new URL(`./fixtures/screens/${name}`, import.meta.url))
const STAND_IN = fileURLToPath(new URL('./helpers/agent-stand-in.cjs', import.meta.url))

const item = (over: Partial<QueueItem> = {}, promptId = 'p1'): QueueItem =>
  queueItem({
    since: 1000,
    project: 'w',
    tmux: { pane: '%1', socket: '/s', serverPid: 1, alive: true },
    ask: { tool: null, input: null, message: 'Done.' },
    record: { promptId } as QueueItem['record'],
    ...over,
  })

t.test('deriveSendRefusal', async (t) => {
  const w = item()
  t.equal(deriveSendRefusal(w, item(), 'idle'), null)
  t.equal(deriveSendRefusal(w, item(), 'interrupted'), null)
  t.match(deriveSendRefusal(w, item(), 'working'), /does not show the idle prompt \(it is working\)/)
  t.match(deriveSendRefusal(w, item(), 'permission'), /does not show the idle prompt/)
  t.match(deriveSendRefusal(w, item(), 'unknown'), /does not show the idle prompt/)
  t.match(deriveSendRefusal(w, item(), null), /could not be read/)
  t.match(deriveSendRefusal(w, item({ since: 2000 }), 'idle'), /changed/, 'a new wait since')
  t.match(deriveSendRefusal(w, item({}, 'p2'), 'idle'), /changed/, 'a new prompt')
  t.match(deriveSendRefusal(w, item({ state: 'working', kind: null }), 'idle'), /changed/)
  t.match(deriveSendRefusal(w, undefined, 'idle'), /changed/)
  t.match(deriveSendRefusal(w, item({ tmux: { pane: '%1', socket: '/s', serverPid: 1, alive: false } }), 'idle'), /pane is gone/)
  t.match(
    deriveSendRefusal(item({ n: 2, state: 'permission', kind: 'permission' }), item(), 'idle'),
    /waits on a permission dialog.*: trailboss ok 2 allows it, trailboss no 2 denies it/,
    'a permission dialog: send names ok and no',
  )
  t.match(
    deriveSendRefusal(item({ n: null, key: 'abcdefgh', state: 'permission', kind: 'permission' }), item(), 'idle'),
    /trailboss ok abcdefgh/,
    'by key when it has no number',
  )
  t.match(
    deriveSendRefusal(item({ n: 3, state: 'permission', kind: 'question' }), item(), 'idle'),
    /question dialog.*answer it in its pane \(trailboss go 3\)/,
  )
  t.match(deriveSendRefusal(item({ state: 'working', kind: null }), item(), 'idle'), /not waiting \(working\)/)
  t.match(deriveSendRefusal(item({ tmux: null }), item(), 'idle'), /not run in tmux/)
})

t.test('send against a real tmux server', async (t) => {
  const dir = t.testdir({ proj: {} })
  const home = join(dir, 'home')
  mkdirSync(home, { mode: 0o700 })
  const cwd = join(dir, 'proj')
  /** An agent that shows `file` and reports `event` (a finished turn asking a question by default). */
  const agent = (file: string, sessionId: string, event: Record<string, unknown> = {}): string[] => {
    const payload = {
      session_id: sessionId,
      transcript_path: `${cwd}/no-transcript.jsonl`,
      cwd,
      hook_event_name: 'Stop',
      last_assistant_message: 'Done. Shall I go on?',
      prompt_id: 'p1',
      ...event,
    }
    return [process.execPath, STAND_IN, emitter, home, screen(file), JSON.stringify(payload), cwd]
  }
  const records = (): string =>
    spawnSync(process.execPath, [CLI, 'ls', '--all', '--plain'], {
      env: cleanEnv({ TRAILBOSS_HOME: home }),
      encoding: 'utf8',
      timeout: 20_000,
    }).stdout
  /** One agent after the other, so the queue's order (oldest first) is theirs. */
  const recorded = (n: number): Promise<void> =>
    waitFor(() => records().trim().split('\n').filter(Boolean).length === n, `${n} agents recorded`, 15_000)
  const server = startServer(t, 'work', agent('02-after-stop.txt', 'a1111111-0000-4000-8000-000000000001'), [200, 50])
  const idle = server.tmux('display-message', '-p', '-t', 'work', '#{pane_id}').trim()
  await recorded(1)
  const busy = newPane(server, ['new-window', '-d', '-t', 'work'], agent('05-working-spinner.txt', 'b2222222-0000-4000-8000-000000000002'))
  await recorded(2)
  const dialog = newPane(
    server,
    ['new-window', '-d', '-t', 'work'],
    agent('03-permission-dialog.txt', 'c3333333-0000-4000-8000-000000000003', {
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
    }),
  )
  await recorded(3)
  const capture = (pane: string): string => server.tmux('capture-pane', '-p', '-t', pane)
  for (const p of [idle, busy, dialog])
    await waitFor(() => /for shortcuts|esc to interrupt|Esc to cancel/i.test(capture(p)), `screen in ${p}`)

  const send = (args: string[], allow = true): { code: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, [CLI, 'send', ...args], {
      env: cleanEnv({ TRAILBOSS_HOME: home, ...(allow ? { TRAILBOSS_ALLOW_SEND: '1' } : {}) }),
      encoding: 'utf8',
      timeout: 20_000,
    })
    return { code: r.status, stderr: r.stderr }
  }

  await t.test('off unless TRAILBOSS_ALLOW_SEND=1', async (t) => {
    const r = send(['a1111111', 'zebra-42'], false)
    t.equal(r.code, 1)
    t.match(r.stderr, /`send` is off.*TRAILBOSS_ALLOW_SEND=1/)
    t.notMatch(capture(idle), 'zebra-42')
  })

  await t.test('types the text, then Enter as a key of its own', async (t) => {
    const r = send(['a1111111', 'yes,', 'and', 'update', "the docs' $HOME too"])
    t.equal(r.code, 0, r.stderr)
    t.match(r.stderr, /trailboss: sent to 1 · proj/)
    // The terminal echoes the typed line; after Enter, cat prints it once more.
    const typed = "yes, and update the docs' $HOME too"
    await waitFor(() => capture(idle).split(typed).length === 3, 'the line echoed and printed')
    t.pass('typed literally and submitted')
  })

  await t.test('--no-enter types without submitting', async (t) => {
    server.tmux('send-keys', '-t', idle, 'C-l')
    server.tmux(
      'respawn-pane',
      '-k',
      '-t',
      idle,
      ...agent('02-after-stop.txt', 'a1111111-0000-4000-8000-000000000001', { prompt_id: 'p2', last_assistant_message: 'Next?' }),
    )
    await waitFor(() => /for shortcuts/.test(capture(idle)) && records().includes('Next?'), 'idle screen again, and the new wait', 15_000)
    const r = send(['a1111111', 'draft', 'only', '--no-enter'])
    t.equal(r.code, 0, r.stderr)
    await waitFor(() => capture(idle).includes('draft only'), 'the draft typed')
    // Then a marker and Enter of our own: had send submitted the draft, cat would print it on a
    // line of its own; unsubmitted, the draft and the marker make one line, echoed and printed.
    server.tmux('send-keys', '-t', idle, '-l', '|MARK')
    server.tmux('send-keys', '-t', idle, 'Enter')
    await waitFor(() => capture(idle).split('draft only|MARK').length === 3, 'the draft and the marker, as one line, echoed and printed')
    t.equal(capture(idle).split('draft only').length, 3, 'typed once, not submitted')
  })

  await t.test('refuses a working screen, a dialog, an unknown target; types nothing', async (t) => {
    const before = [capture(busy), capture(dialog)]
    let r = send(['b2222222', 'hello'])
    t.equal(r.code, 1)
    t.match(r.stderr, /not sending to .*: its pane does not show the idle prompt \(it is working\) — nothing was typed/)
    r = send(['c3333333', '1'])
    t.equal(r.code, 1)
    t.match(r.stderr, /waits on a permission dialog.*trailboss ok \d+ allows it, trailboss no \d+ denies it/)
    r = send(['zzzzzzzz', 'hello'])
    t.equal(r.code, 1)
    t.match(r.stderr, /no session matches/)
    // A marker typed now reaches each pane after anything send could have typed: once it shows,
    // the pane is the same as before but for the marker.
    for (const p of [busy, dialog]) server.tmux('send-keys', '-t', p, '-l', 'MARKER-9f2')
    for (const p of [busy, dialog]) await waitFor(() => capture(p).includes('MARKER-9f2'), `the marker in ${p}`)
    t.same(
      [capture(busy), capture(dialog)].map((c) => c.replace('MARKER-9f2', '')),
      before,
    )
  })
})
