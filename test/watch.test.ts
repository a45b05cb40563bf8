import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process'
import * as fs from 'node:fs'
import type { Readable } from 'node:stream'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { QueueItem } from '../lib/queue/derive.js'
import {
  deriveMove,
  deriveSelectedIndex,
  formatChanges,
  formatDetails,
  formatWatchScreen,
  PEEK_MIN_WIDTH,
  WATCH_KEYS_HELP,
  type WatchScreen,
} from '../lib/render/watch-screen.js'
import { CLI, emitWait, makeHome, type Home, type Wait } from './helpers/surfaces.js'
import { attachControlClient } from './helpers/navigate-tmux.js'
import { startTmuxServer, type TmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

const NOW = Date.parse('2026-01-01T12:00:00Z')

const item = (id: string, n: number | null, over: Partial<QueueItem> = {}): QueueItem =>
  ({
    n,
    key: id.slice(0, 8),
    sessionId: id,
    agent: 'claude-code',
    state: n === null ? 'working' : 'waiting',
    kind: n === null ? null : 'done',
    since: NOW - 90_000,
    cwd: `/w/${id}`,
    project: `proj-${id}`,
    host: 'h',
    headless: false,
    tmux: { pane: `%${n ?? 0}`, socket: '/tmp/s', serverPid: 1, alive: true },
    inferred: false,
    reason: null,
    ask: { tool: null, input: null, message: `Finished ${id}.` },
    record: { lastEventAt: NOW - 90_000 } as QueueItem['record'],
    ...over,
  }) as QueueItem

const screen = (over: Partial<WatchScreen> = {}): WatchScreen => ({
  items: [],
  selected: null,
  now: NOW,
  width: 100,
  height: 20,
  details: false,
  colour: false,
  message: null,
  tmuxAvailable: true,
  digits: '',
  ...over,
})

t.test('formatWatchScreen: title, table, selection, footer', async (t) => {
  const items = [
    item('aaaa1111', 1),
    item('bbbb2222', 2, {
      kind: 'permission',
      state: 'permission',
      needsYou: true,
      ask: { tool: 'Bash', input: { command: 'npm test' }, message: null },
    }),
  ]
  const lines = formatWatchScreen(screen({ items, selected: 'bbbb2222' }))
  // The one count of every surface: the waits that need you (the finished turn only with --all).
  t.match(lines[0], /^Trail Boss · 1 waiting · oldest 1m$/)
  t.match(formatWatchScreen(screen({ items, all: true }))[0], /^Trail Boss · 2 waiting · oldest 1m$/)
  t.match(
    formatWatchScreen(screen({ items: [item('aaaa1111', 1)] }))[0],
    /^Trail Boss · nothing waits on you$/,
    'a finished turn alone: nothing waits on you',
  )
  t.match(lines[2], /^ {2}#\s+AGE\s+KIND/)
  t.match(lines[3], /^ {2}1\s+1m\s+done\s+claude\s+proj-aaaa1111\s+%1\s+Finished aaaa1111\./)
  t.match(lines[4], /^> 2\s+1m\s+permission\s+claude\s+proj-bbbb2222\s+%\d+\s+Bash: npm test/)
  t.equal(lines.at(-1), WATCH_KEYS_HELP)
  t.ok(lines.length <= 20)

  const empty = formatWatchScreen(screen())
  t.equal(empty[0], 'Trail Boss · nothing waits on you')
  t.equal(empty.at(-1), WATCH_KEYS_HELP)

  const withMsg = formatWatchScreen(screen({ items, message: 'trailboss: going to 1 · x · %1', digits: '1' }))
  t.equal(withMsg.at(-2), 'trailboss: going to 1 · x · %1')
  t.match(withMsg.at(-1), /^go to 1…/)
  t.match(formatWatchScreen(screen({ items, tmuxAvailable: false }))[0], /tmux unavailable/)
})

t.test('formatWatchScreen keeps the selection visible and never exceeds the height', async (t) => {
  const items = Array.from({ length: 40 }, (_, i) => item(`s${String(i).padStart(7, '0')}`, i + 1))
  for (const height of [5, 8, 12, 30]) {
    for (const sel of [0, 7, 39]) {
      const lines = formatWatchScreen(screen({ items, height, selected: items[sel]?.sessionId ?? null }))
      t.ok(lines.length <= height, `height ${height}: ${lines.length} lines`)
      t.ok(
        lines.some((l) => l.startsWith(`> ${sel + 1} `)),
        `row ${sel + 1} is shown and marked at height ${height}`,
      )
    }
  }
  const details = formatWatchScreen(screen({ items: items.slice(0, 2), details: true, selected: items[1]?.sessionId ?? null }))
  t.ok(details.some((l) => l.includes('session s0000001')))
  t.ok(details.some((l) => l.includes('cwd /w/s0000001')))
})

t.test("formatWatchScreen: the selected wait's screen beside the list, on a terminal wide enough", async (t) => {
  const items = [item('aaaa1111', 1), item('bbbb2222', 2)]
  const peek = 'line one\n\u001b]0;title\u0007Do you want to proceed?\n❯ 1. Yes\n\n\n'
  const wide = formatWatchScreen(screen({ items, width: PEEK_MIN_WIDTH, peek }))
  t.ok(
    wide.every((l) => l.includes(' │ ')),
    'a panel on every line',
  )
  t.match(wide.join('\n'), /│ .*Do you want to proceed\?/)
  t.match(wide.join('\n'), /│ ❯ 1\. Yes/)
  t.notMatch(wide.join('\n'), /\u0007/, "the pane's control characters are shown visibly, never sent")
  t.ok(wide.length <= 20)
  t.match(formatWatchScreen(screen({ items, width: PEEK_MIN_WIDTH, peek: null })).join('\n'), /│ \(no screen to show/)
  t.notMatch(formatWatchScreen(screen({ items, width: PEEK_MIN_WIDTH - 1, peek })).join('\n'), /│/, 'narrower: the list alone')
  t.notMatch(formatWatchScreen(screen({ width: PEEK_MIN_WIDTH, peek })).join('\n'), /│/, 'nothing waits: no panel')
  // The news keeps its reason: it takes the whole last line, below the list and the panel.
  const message = `trailboss: not answering 2 · proj · %2 (done: Created the file.): it does not wait on a permission dialog (done)`
  const told = formatWatchScreen(screen({ items, width: PEEK_MIN_WIDTH, height: 20, peek, message }))
  t.equal(told.at(-1), message, 'the news whole, on the last line')
  t.ok(told.length <= 20, 'within the height')
  t.ok(
    told.slice(0, -1).every((l) => l.includes(' │ ')),
    'the panel on every other line',
  )
})

t.test('the details view (s) shows a tool call as show does, not as JSON', async (t) => {
  // Codex 0.171.0's question, as its PreToolUse hook gave it (test/fixtures/codex/hooks.jsonl).
  const input = {
    questions: [
      {
        id: 'color',
        header: 'Color',
        question: 'Which color should the marker be?',
        options: [
          { label: 'Red', description: 'warm' },
          { label: 'Blue', description: 'cool' },
        ],
      },
    ],
  }
  const asked = item('cccc3333', 1, {
    agent: 'codex',
    state: 'permission',
    kind: 'question',
    ask: { tool: 'request_user_input', input, message: null },
  })
  const question = formatDetails(asked, NOW, 100)
  t.ok(question.includes('  [Color] Which color should the marker be?'), 'the question')
  t.ok(question.includes('    1. Red — warm') && question.includes('    2. Blue — cool'), 'its options')
  const bash = formatDetails(
    item('bbbb2222', 2, {
      state: 'permission',
      kind: 'permission',
      ask: { tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, message: null },
    }),
    NOW,
    100,
  )
  t.ok(bash.includes('  Bash — Run the tests') && bash.includes('    $ npm test'), 'a command as a command')
  t.notOk(
    [...question, ...bash].some((l) => /[{}"]/.test(l)),
    'no JSON',
  )
})

t.test('deriveMove and deriveSelectedIndex stop at the ends', async (t) => {
  const items = [item('a', 1), item('b', 2), item('c', 3)]
  t.equal(deriveSelectedIndex(items, null), 0)
  t.equal(deriveSelectedIndex(items, 'gone'), 0)
  t.equal(deriveMove(items, null, 1), 'b')
  t.equal(deriveMove(items, 'c', 1), 'c')
  t.equal(deriveMove(items, 'a', -1), 'a')
  t.equal(deriveMove([], 'a', 1), null)
})

t.test('formatChanges: one line per new, changed and departed session', async (t) => {
  const a = item('aaaa1111', 1)
  const b = item('bbbb2222', 2)
  t.equal(formatChanges(new Map(), [a, b], NOW).length, 2)
  const prev = new Map([a, b].map((i) => [i.sessionId, i]))
  t.same(formatChanges(prev, [a, b], NOW + 5000), [], 'nothing changed: nothing printed')
  const bWorking = item('bbbb2222', null)
  const lines = formatChanges(prev, [a], NOW, [a, bWorking])
  t.equal(lines.length, 1)
  t.match(lines[0], /^2026-01-01T12:00:00.000Z {2}- {2}working {2}proj-bbbb2222/)
  const again = formatChanges(prev, [a, { ...b, since: NOW, kind: 'question' }], NOW)
  t.equal(again.length, 1)
  t.match(again[0], /#2 {2}question/)
})

// ---- the real thing: watch in a tmux pane ----

const tmuxEnv = (home: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  TMUX_TMPDIR: process.env.TMUX_TMPDIR,
  HOME: home,
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
})

/** A private tmux server for watch: a shell pane named `watch` in session `main`, a real TERM. */
const startTmux = (t: { teardown: (fn: () => void) => void }, home: Home): TmuxServer =>
  startTmuxServer(t, {
    session: 'main',
    sessionArgs: ['-n', 'watch'],
    command: ['sh'],
    size: [110, 30],
    env: tmuxEnv(join(home.root, 'home')),
  })

/** The node process under the pane's shell. */
const childOf = (pid: number): number | null => {
  try {
    const kids = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
    return kids.length > 0 ? Number(kids[0]) : null
  } catch {
    return null
  }
}

t.test('watch in a real tmux pane', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  t.setTimeout(90_000)
  const home = makeHome(t.testdir())
  const server = startTmux(t, home)
  const tmuxVar = (pane: string): { env: string; pane: string } => ({ env: `${server.socket},${server.pid},0`, pane })
  const agentA = server.tmux('new-window', '-d', '-t', 'main', '-n', 'agents', '-P', '-F', '#{pane_id}', 'sleep', '600').trim()
  const agentB = server.tmux('split-window', '-d', '-t', agentA, '-P', '-F', '#{pane_id}', 'sleep', '600').trim()
  const agentC = server.tmux('split-window', '-d', '-t', agentA, '-P', '-F', '#{pane_id}', 'sleep', '600').trim()
  const watchPane = server.tmux('display-message', '-p', '-t', 'main:watch', '#{pane_id}').trim()

  await emitWait(home, { session: 'aaaa-first', cwd: '/tmp/alpha', message: 'All done. Shall I push?', tmux: tmuxVar(agentA) })

  // A client looking at the watch window: `go` moves the client that shows the caller's pane.
  await attachControlClient(t, server, 'main')
  const views = (): string => server.tmux('list-clients', '-F', '#{pane_id}').trim()

  server.tmux('send-keys', '-t', watchPane, 'echo BEFORE-MARK', 'Enter')
  const cmd = `TRAILBOSS_HOME='${home.tb}' CLAUDE_CONFIG_DIR='${home.claude}' ${process.execPath} ${CLI} watch`
  server.tmux('send-keys', '-t', watchPane, cmd, 'Enter')

  await t.test('initial list', async (t) => {
    await waitFor(() => server.capture(watchPane).includes('Trail Boss · 1 waiting'), 'watch shows the first wait', 10_000)
    const text = server.capture(watchPane)
    t.match(text, /> 1\s+\d+s\s+question\s+claude\s+alpha\s+\S+:\d+ \(.*\)\s+All done\. Shall I push\?/)
    t.match(text, WATCH_KEYS_HELP)
  })

  // How soon each change is on screen is measured by bench/watch.mjs, not asserted here.
  await t.test('a new wait appears once its record is renamed into place', async (t) => {
    await emitWait(home, {
      session: 'bbbb-second',
      event: 'PermissionRequest',
      cwd: '/tmp/beta',
      tool: { name: 'Bash', input: { command: 'rm -rf build' } },
      tmux: tmuxVar(agentB),
    })
    await waitFor(() => server.capture(watchPane).includes('Bash: rm -rf build'), 'the permission wait on screen', 10_000)
    t.match(server.capture(watchPane), /Trail Boss · 2 waiting/)
  })

  await t.test('what only the transcript shows: a new prompt ends the wait', async (t) => {
    const transcript = join(home.claude, 'projects', 'p', 'cccc-third.jsonl')
    fs.writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', promptId: 'p1', message: { role: 'user', content: 'go on' }, timestamp: new Date().toISOString() })}\n`,
    )
    await emitWait(home, { session: 'cccc-third', cwd: '/tmp/gamma', message: 'Finished gamma.', transcript, tmux: tmuxVar(agentC) })
    await waitFor(() => server.capture(watchPane).includes('Finished gamma.'), 'the third wait on screen', 5000)
    fs.appendFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', promptId: 'p2', message: { role: 'user', content: 'next task' }, timestamp: new Date().toISOString() })}\n`,
    )
    await waitFor(() => !server.capture(watchPane).includes('Finished gamma.'), 'the answered wait leaves the screen', 5000)
    t.match(server.capture(watchPane), /Trail Boss · 2 waiting/, 'only the answered wait left')
  })

  await t.test('what only the transcript shows: an interrupt makes a working session wait', async (t) => {
    const agentD = server.tmux('split-window', '-d', '-t', agentA, '-P', '-F', '#{pane_id}', 'sleep', '600').trim()
    const transcript = join(home.claude, 'projects', 'p', 'dddd-fourth.jsonl')
    fs.writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', promptId: 'p1', message: { role: 'user', content: 'refactor delta' }, timestamp: new Date().toISOString() })}\n`,
    )
    await emitWait(home, { session: 'dddd-fourth', event: 'UserPromptSubmit', cwd: '/tmp/delta', transcript, tmux: tmuxVar(agentD) })
    // A later change as a barrier: every rescan reads every record, so once it is on screen the
    // rescan that loaded delta (working: not shown) has happened, and watches its transcript.
    await emitWait(home, { session: 'eeee-barrier', cwd: '/tmp/epsilon', message: 'Barrier reached.' })
    await waitFor(() => server.capture(watchPane).includes('Barrier reached.'), 'the barrier wait on screen', 5000)
    t.notMatch(server.capture(watchPane), /delta/, 'a working session is not listed')
    const line = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      timestamp: new Date().toISOString(),
    }
    fs.appendFileSync(transcript, `${JSON.stringify(line)}\n`)
    await waitFor(() => /interrupted\s+claude\s+delta/.test(server.capture(watchPane)), 'the interrupted session on screen', 5000)
  })

  await t.test('a key press goes there', async (t) => {
    t.equal(views(), watchPane, 'the client shows the watch pane')
    server.tmux('send-keys', '-t', watchPane, '1')
    await waitFor(() => views() === agentA, 'the client moved to wait 1', 5000)
    t.equal(views(), agentA)
    t.match(server.capture(watchPane), /going to 1 · alpha/, 'the view says where it went')
    // Going there made wait 1 seen: it still blocks its agent, so it stays in the view, marked.
    await waitFor(() => /question✓\s+claude\s+alpha/.test(server.capture(watchPane)), 'the seen wait marked, still listed', 10_000)
    t.match(server.capture(watchPane), /Trail Boss · 3 waiting/, 'and still counted')
    // Back to the view, then j + k + j + Enter: the second row, wait 2.
    server.tmux('select-window', '-t', 'main:watch')
    server.tmux('switch-client', '-c', server.tmux('list-clients', '-F', '#{client_name}').trim(), '-t', watchPane)
    server.tmux('send-keys', '-t', watchPane, 'j')
    server.tmux('send-keys', '-t', watchPane, 'k')
    server.tmux('send-keys', '-t', watchPane, 'j')
    server.tmux('send-keys', '-t', watchPane, 'Enter')
    await waitFor(() => views() === agentB, 'the client moved to wait 2', 5000)
    t.equal(views(), agentB)
  })

  await t.test('resize redraws', async (t) => {
    server.tmux('resize-window', '-t', 'main:watch', '-x', '70', '-y', '20')
    await waitFor(
      () =>
        server
          .capture(watchPane)
          .split('\n')
          .some((l) => l.startsWith('1-9/Enter go')),
      'redrawn at the new size',
      5000,
    )
    const lines = server.capture(watchPane).split('\n')
    t.ok(lines.filter((l) => l.includes('Trail Boss ·')).length === 1, 'one title, no leftovers')
  })

  await t.test('q quits and restores the screen and the terminal', async (t) => {
    server.tmux('send-keys', '-t', watchPane, 'q')
    await waitFor(() => !server.capture(watchPane).includes('Trail Boss ·'), 'the view is gone', 5000)
    t.match(server.capture(watchPane), /BEFORE-MARK/, 'what was on screen before is back')
    server.tmux('send-keys', '-t', watchPane, 'stty -a | tr " " "\\n" | grep -x -e icanon -e echo -e -icanon -e -echo', 'Enter')
    // Keys typed while watch is still exiting are echoed before the prompt: `# icanon`.
    await waitFor(
      () => /^(# )?icanon$/m.test(server.capture(watchPane)) && /^echo$/m.test(server.capture(watchPane)),
      'cooked mode again',
      5000,
    )
    t.notMatch(server.capture(watchPane), /^-(icanon|echo)$/m)
    const pane = Number(server.tmux('display-message', '-p', '-t', watchPane, '#{pane_pid}').trim())
    t.equal(childOf(pane), null, 'no process left behind')
  })
})

/** `trailboss watch` with its output to a pipe (log mode), as `watch | …` or cron runs it. */
const spawnWatchLog = (
  t: Test,
  home: Home,
): { child: ChildProcessByStdio<null, Readable, Readable>; out: () => string; err: () => string; exited: Promise<number | null> } => {
  const child = spawn(process.execPath, [CLI, 'watch'], { env: home.env() as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (err += c.toString()))
  t.teardown(() => child.kill('SIGKILL'))
  return { child, out: () => out, err: () => err, exited: new Promise((r) => child.on('exit', (code) => r(code))) }
}

t.test('watch without a TTY prints a line per change, and stops on SIGTERM', async (t) => {
  const home = makeHome(t.testdir())
  await emitWait(home, { session: 'dddd-log', cwd: '/tmp/delta', message: 'Ready?' })
  const { child, out, exited } = spawnWatchLog(t, home)
  await waitFor(() => out().includes('dddd-log'), 'the first line', 10_000)
  t.match(out(), /^\S+Z {2}#1 {2}question {2}delta {2}- {2}dddd-log {2}Ready\?\n$/)
  await emitWait(home, { session: 'eeee-log', cwd: '/tmp/epsilon', message: 'Done.' })
  await waitFor(() => out().includes('eeee-log'), 'a line for the new wait', 5000)
  t.equal(out().trim().split('\n').length, 2, 'one new line, nothing repeated')
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'a clean exit on SIGTERM')
})

t.test('watch without a TTY ends when its reader has gone (| head -1)', async (t) => {
  const home = makeHome(t.testdir())
  await emitWait(home, { session: 'gggg-head', cwd: '/tmp/eta', message: 'Ready?' })
  const { child, err, exited } = spawnWatchLog(t, home)
  // The reader takes the first line and leaves.
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
  child.stdout.destroy()
  // The next change finds nobody to tell.
  await emitWait(home, { session: 'hhhh-head', cwd: '/tmp/theta', message: 'Done.' })
  const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running after 10 s'), 10_000))])
  t.equal(code, 0)
  t.equal(err(), '', 'no stack trace')
})

t.test('watch --once renders once and exits', async (t) => {
  const home = makeHome(t.testdir())
  await emitWait(home, { session: 'ffff-once', cwd: '/tmp/zeta', message: 'Done.' })
  const out = execFileSync(process.execPath, [CLI, 'watch', '--once'], { env: home.env() as NodeJS.ProcessEnv, encoding: 'utf8' })
  t.match(out, /#1 {2}done {2}zeta/)
})

/**
 * Two servers: the inner one holds an agent pane with a finished turn (`wait`); the outer one
 * lends its first pane (`term`) as a real terminal for a client or a view to run in.
 */
const agentAndTerminal = async (t: Test, wait: Omit<Wait, 'tmux'>) => {
  const home = makeHome(t.testdir())
  const inner = startTmux(t, home)
  const outer = startTmux(t, home)
  const agent = inner.tmux('new-window', '-d', '-t', 'main', '-n', 'agents', '-P', '-F', '#{pane_id}', 'sleep', '600').trim()
  await emitWait(home, { ...wait, tmux: { env: `${inner.socket},${inner.pid},0`, pane: agent } })
  const term = outer.tmux('display-message', '-p', '-t', 'main', '#{pane_id}').trim()
  return { home, inner, outer, agent, term }
}

t.test('watch in a display-popup: a jump moves the client and closes the popup', async (t) => {
  t.setTimeout(60_000)
  const { home, inner, outer, agent, term } = await agentAndTerminal(t, {
    session: 'pppp-popup',
    cwd: '/tmp/popproj',
    message: 'Ready for review.',
  })
  outer.tmux('send-keys', '-t', term, `exec tmux -S ${inner.socket} attach -t main`, 'Enter')
  const clients = (): string[] => inner.tmux('list-clients', '-F', '#{client_name} #{pane_id}').split('\n').filter(Boolean)
  await waitFor(() => clients().length === 1, 'a terminal client on the inner server', 5000)
  const clientName = clients()[0]?.split(' ')[0] ?? ''
  const popup = spawn(
    'tmux',
    [
      '-S',
      inner.socket,
      'display-popup',
      '-c',
      clientName,
      '-E',
      '-w',
      '90',
      '-h',
      '20',
      `env TRAILBOSS_HOME='${home.tb}' CLAUDE_CONFIG_DIR='${home.claude}' ${process.execPath} ${CLI} watch`,
    ],
    { env: tmuxEnv(join(home.root, 'home')), stdio: 'ignore' },
  )
  t.teardown(() => popup.kill())
  // A finished turn is listed but counts for nothing: nothing waits on you.
  await waitFor(
    () => /Trail Boss · nothing waits on you[\s\S]*Ready for review\./.test(outer.capture(term)),
    'the view in the popup, with its row',
    10_000,
  )
  t.match(outer.capture(term), /1\s+\d+s\s+done\s+claude\s+popproj\s+\S+:\d+ \(.*\)\s+Ready for review\./)
  // Keys typed in the terminal go to the popup, which has the focus.
  outer.tmux('send-keys', '-t', term, '1')
  await waitFor(() => clients()[0]?.endsWith(` ${agent}`) === true, 'the client moved to the waiting pane', 5000)
  await waitFor(() => !outer.capture(term).includes('Trail Boss ·'), 'the popup closed', 5000)
  t.pass('moved, and the popup closed to show the pane')
})

t.test('watch outside tmux: a jump attaches in this terminal, and the view returns on detach', async (t) => {
  t.setTimeout(60_000)
  const { home, inner, outer, agent, term } = await agentAndTerminal(t, {
    session: 'oooo-outside',
    cwd: '/tmp/outproj',
    message: 'Merged?',
  })
  // The outer server only lends a terminal: without $TMUX the view is outside tmux.
  outer.tmux(
    'send-keys',
    '-t',
    term,
    `env -u TMUX -u TMUX_PANE TRAILBOSS_HOME='${home.tb}' CLAUDE_CONFIG_DIR='${home.claude}' ${process.execPath} ${CLI} watch`,
    'Enter',
  )
  await waitFor(() => outer.capture(term).includes('Trail Boss · 1 waiting'), 'the view', 10_000)
  const clients = (): string[] => inner.tmux('list-clients', '-F', '#{pane_id}').split('\n').filter(Boolean)
  t.same(clients(), [])
  outer.tmux('send-keys', '-t', term, '1')
  await waitFor(() => clients().length === 1, 'attached to the inner server', 5000)
  t.same(clients(), [agent], 'this terminal now shows the waiting pane')
  t.notMatch(outer.capture(term), /Trail Boss ·/)
  inner.tmux('detach-client')
  // Going there made the wait seen: the view is back, and the wait, which still blocks its
  // agent, is still there and counted, marked seen (docs/queue.md).
  await waitFor(() => /question✓\s+claude\s+outproj/.test(outer.capture(term)), 'the view is back after detaching', 5000)
  t.match(outer.capture(term), /Trail Boss · 1 waiting/)
  t.match(outer.capture(term), /going to 1 · outproj/)
  outer.tmux('send-keys', '-t', term, 'q')
  await waitFor(() => !outer.capture(term).includes('Trail Boss ·'), 'quit', 5000)
})

t.test("watch on a wide terminal: the selected wait's live screen beside the list, refreshed while selected", async (t) => {
  t.setTimeout(60_000)
  const home = makeHome(t.testdir())
  const server = startTmuxServer(t, {
    session: 'main',
    sessionArgs: ['-n', 'watch'],
    command: ['sh'],
    size: [180, 40],
    env: tmuxEnv(join(home.root, 'home')),
  })
  // The agent stand-in: `cat` echoes what is typed into its pane, as an agent draws its dialog.
  const agent = server.tmux('new-window', '-d', '-t', 'main', '-n', 'agents', '-P', '-F', '#{pane_id}', 'cat').trim()
  const watchPane = server.tmux('display-message', '-p', '-t', 'main:watch', '#{pane_id}').trim()
  server.tmux('send-keys', '-t', agent, 'PEEK-MARK-ONE', 'Enter')
  await emitWait(home, {
    session: 'kkkk-peek',
    cwd: '/tmp/peekproj',
    message: 'Shall I?',
    tmux: { env: `${server.socket},${server.pid},0`, pane: agent },
  })
  server.tmux(
    'send-keys',
    '-t',
    watchPane,
    `TRAILBOSS_HOME='${home.tb}' CLAUDE_CONFIG_DIR='${home.claude}' ${process.execPath} ${CLI} watch`,
    'Enter',
  )
  await waitFor(() => /│ PEEK-MARK-ONE/.test(server.capture(watchPane)), "the agent's screen beside the list", 10_000)
  t.match(server.capture(watchPane), /Trail Boss · 1 waiting/)
  server.tmux('send-keys', '-t', agent, 'PEEK-MARK-TWO', 'Enter')
  await waitFor(() => /│ PEEK-MARK-TWO/.test(server.capture(watchPane)), 'the screen refreshed while it stays selected', 10_000)
  t.equal(server.tmux('display-message', '-p', '-t', agent, '#{pane_current_command}').trim(), 'cat', 'nothing was typed into the agent')
  server.tmux('send-keys', '-t', watchPane, 'q')
  await waitFor(() => !server.capture(watchPane).includes('Trail Boss ·'), 'quit', 5000)
})
