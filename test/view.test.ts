// The view, end to end (docs/design.md §12): records from the real emitter, a real tmux server on
// a private socket, real terminal clients (`script` running `tmux attach`), and the built CLI as
// child processes. A `tmux` on PATH that logs its arguments before running the real one shows
// what a run asked of tmux. Run `npm run build` first.
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { copyBuilt, emit } from './helpers/navigate-records.js'
import { cleanEnv, newPane, startKeyBindingLab, startServer, waitFor, type TestServer } from './helpers/navigate-tmux.js'
import { runCli } from './helpers/cli.js'

t.setTimeout(180_000)

/** A terminal client of `cols`×`rows` attached to `session`, as a person's: its name, and its keyboard. */
const attachSized = async (
  t: { teardown: (fn: () => void) => void },
  server: TestServer,
  session: string,
  cols: number,
  rows: number,
): Promise<{ name: string; type: (keys: string) => void }> => {
  const before = new Set(server.tmux('list-clients', '-F', '#{client_name}').split('\n').filter(Boolean))
  const term = spawn(
    'script',
    ['-qfc', `stty cols ${cols} rows ${rows}; exec tmux -S '${server.socket}' attach-session -t ${session}`, '/dev/null'],
    {
      env: cleanEnv({ TERM: 'xterm' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  term.stdout.resume()
  t.teardown(() => {
    term.kill()
  })
  let name = ''
  await waitFor(() => {
    name =
      server
        .tmux('list-clients', '-F', '#{client_name}')
        .split('\n')
        .find((n) => n && !before.has(n)) ?? ''
    return name !== ''
  }, 'a terminal client')
  return { name, type: (keys) => void term.stdin.write(keys) }
}

/** The person's sessions as tmux holds them: every window and pane with its id, name, layout and size. */
const people = (server: TestServer): string =>
  server
    .tmux(
      'list-panes',
      '-a',
      '-F',
      '#{session_name} #{session_id} #{window_index} #{window_id} #{window_name} #{window_layout} #{window_width}x#{window_height} #{pane_id} #{pane_width}x#{pane_height} #{pane_pid}',
    )
    .split('\n')
    .filter((l) => l && !l.startsWith('trailboss-'))
    .join('\n')

const viewWindows = (server: TestServer): string[] =>
  server
    .tmux('list-windows', '-t', '=trailboss-view:', '-F', '#{window_id} #{pane_id}')
    .split('\n')
    .filter(Boolean)
    .slice(1)
    .map((l) => l.split(' ')[0] ?? '')

/** `session pane` a client shows (display-message -c would answer for the best session, not the client's). */
const clientView = (server: TestServer, name: string): string =>
  server
    .tmux('list-clients', '-F', '#{client_name} #{session_name} #{pane_id}')
    .split('\n')
    .find((l) => l.startsWith(`${name} `))
    ?.slice(name.length + 1) ?? ''

const windowOf = (server: TestServer, pane: string): string => server.tmux('display-message', '-p', '-t', pane, '#{window_id}').trim()

/** The windows the keeper holds. */
const keptWindows = (server: TestServer): string[] =>
  server.tmux('list-windows', '-t', '=trailboss-keep:', '-F', '#{window_id}').split('\n').filter(Boolean).sort()

type Run = { code: number | null; stdout: string; stderr: string; tmux: string[] }

/**
 * The built CLI with a `tmux` on PATH that logs what it is asked before running the real one:
 * `run` outside tmux, `runIn` in another environment; each result carries the tmux calls it made.
 */
const loggingTmux = (
  t: { teardown: (fn: () => void) => void },
  home: string,
): {
  env: NodeJS.ProcessEnv
  run: (...args: string[]) => Promise<Run>
  runIn: (env: NodeJS.ProcessEnv, ...args: string[]) => Promise<Run>
} => {
  const shimDir = mkdtempSync(join(tmpdir(), 'tb-shim-'))
  t.teardown(() => rmSync(shimDir, { recursive: true, force: true }))
  const log = join(shimDir, 'log')
  const realTmux =
    (process.env.PATH ?? '')
      .split(':')
      .map((d) => join(d, 'tmux'))
      .find((p) => existsSync(p)) ?? 'tmux'
  writeFileSync(join(shimDir, 'tmux'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realTmux}' "$@"\n`)
  chmodSync(join(shimDir, 'tmux'), 0o755)
  const env = cleanEnv({ TRAILBOSS_HOME: home, PATH: `${shimDir}:${process.env.PATH ?? ''}` })
  const runIn = async (runEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> => {
    writeFileSync(log, '')
    const r = await runCli(args, runEnv)
    return { ...r, tmux: readFileSync(log, 'utf8').split('\n').filter(Boolean) }
  }
  return { env, run: async (...args) => runIn(env, ...args), runIn }
}

const CHANGING =
  /^(-S \S+ )?(link-window|unlink-window|move-window|select-pane|respawn-pane|set-option|new-session|kill-|switch-client|select-window)/
const changing = (lines: readonly string[]): string[] => lines.filter((l) => CHANGING.test(l))

t.test('the view in a real tmux: built in order, walked with keys, kept in step by status, ended without a trace', async (t) => {
  const { cli } = await copyBuilt(t)
  const { home, cwd, server } = startKeyBindingLab(t, cli, 'home', ['bash', '--norc', '--noprofile'])
  const homePane = server.tmux('display-message', '-p', '-t', 'home', '#{pane_id}').trim()
  // Three sessions, five windows, six waits (two in one window), the size a 160×40 client gives.
  const session = (name: string): string => {
    server.tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '39', 'sleep', '1000')
    return server.tmux('display-message', '-p', '-t', name, '#{pane_id}').trim()
  }
  const a0 = session('api')
  const a0b = newPane(server, ['split-window', '-d', '-t', a0])
  const a1 = newPane(server, ['new-window', '-d', '-t', 'api'])
  const w0 = session('web')
  const w1 = newPane(server, ['new-window', '-d', '-t', 'web'])
  const d0 = session('docs')
  const ids = ['a0b', 'w1', 'a0', 'd0', 'a1', 'w0'].map((k, i) => [k, `${String(i + 1).repeat(8)}-view-4000-8000-00000000000${i}`] as const)
  const id = Object.fromEntries(ids) as Record<string, string>
  const paneOf: Record<string, string> = { a0, a0b, a1, w0, w1, d0 }
  // Oldest first: the order of the queue.
  for (const [k, sessionId] of ids) await emit({ home, cwd, sessionId, server, pane: paneOf[k] ?? '' })
  const person = await attachSized(t, server, 'home', 160, 40)
  const client = person.name
  const clientAt = (name = client): string => clientView(server, name)

  const { env, run, runIn } = loggingTmux(t, home)
  const lsofView = (): string => server.tmux('list-sessions', '-F', '#{session_name}')

  // A status run's own calls are its list-panes and, now and then, a screen check's capture-pane.
  const ofView = (lines: readonly string[]): string[] => lines.filter((l) => !/ (list-panes -a -F #\{pane_id\}|capture-pane )/.test(l))
  const idle = await run('status')
  t.same(ofView(idle.tmux), [], 'no view: status asks tmux nothing for it')
  const before = people(server)
  let w2 = ''
  const order = (): string[] => [a0b, w1, d0, a1, w0].map((p) => windowOf(server, p))

  await t.test('view: the waiting windows linked in queue order, the oldest wait of a window selected', async (t) => {
    const r = await run('view', '--client', client)
    t.equal(r.code, 0, r.stderr)
    t.match(r.stderr, 'the view shows 5 windows')
    t.same(viewWindows(server), order())
    t.equal(server.tmux('display-message', '-p', '-t', windowOf(server, a0), '#{pane_id}').trim(), a0b, 'the older of the two waits')
    t.equal(clientAt(), `trailboss-view ${a0b}`, 'the client is in the view, on the first wait')
    t.equal(server.tmux('show-options', '-v', '-t', '=trailboss-view:', '@trailboss-view').trim(), '1', 'the view says its version')
    t.ok(existsSync(join(home, 'view.json')))
    t.same(keptWindows(server), [...order()].sort(), 'the keeper holds every window the view links')
    t.equal(
      server.tmux('display-message', '-p', '-t', a0b, '#{window_width}x#{window_height}').trim(),
      '160x39',
      "the window the client shows has the client's size: the keeper, with no client, does not shrink it",
    )
  })

  await t.test("tmux's own next-window walks the waits (prefix n, typed by the person)", async (t) => {
    for (const want of [w1, d0, a1, w0]) {
      person.type('\u0002n')
      await waitFor(() => clientAt() === `trailboss-view ${want}`, `the client on ${want}`)
      t.pass(`next-window: ${want}`)
    }
    person.type('\u0002p')
    await waitFor(() => clientAt() === `trailboss-view ${a1}`, 'previous-window')
  })

  await t.test('a status run with the view already right changes nothing in tmux', async (t) => {
    const sessions = server.tmux(
      'list-windows',
      '-a',
      '-F',
      '#{session_id} #{window_id} #{window_index} #{window_linked_sessions} #{pane_id}',
    )
    const r = await run('status')
    t.equal(r.code, 0, r.stderr)
    t.same(changing(r.tmux), [], `only reads: ${r.tmux.join(' | ')}`)
    t.ok(
      r.tmux.some((l) => l.includes('#{@trailboss-view}')),
      'it did read the view',
    )
    t.equal(
      server.tmux('list-windows', '-a', '-F', '#{session_id} #{window_id} #{window_index} #{window_linked_sessions} #{pane_id}'),
      sessions,
    )
  })

  await t.test('--json and --plain runs change nothing, even with the view out of step', async (t) => {
    // The wait in web:1 ends: a new prompt there.
    await emit({ home, cwd, sessionId: id.w1 ?? '', server, pane: w1, event: { hook_event_name: 'UserPromptSubmit', prompt: 'go on' } })
    for (const args of [
      ['ls', '--json'],
      ['ls', '--plain'],
    ]) {
      const r = await run(...args)
      t.equal(r.code, 0, r.stderr)
      t.same(changing(r.tmux), [], `${args.join(' ')}: no changing tmux command`)
      t.same(
        r.tmux.filter((l) => l.includes('#{@trailboss-view}')),
        [],
        `${args.join(' ')}: does not even read the view`,
      )
    }
    t.same(viewWindows(server), order(), 'the ended wait is still linked')
  })

  await t.test('the next status run unlinks the window whose wait ended; a new wait is linked in its place', async (t) => {
    let r = await run('status')
    t.equal(r.code, 0, r.stderr)
    t.same(
      viewWindows(server),
      order().filter((w) => w !== windowOf(server, w1)),
    )
    t.match(changing(r.tmux).join('\n'), /unlink-window/)
    t.equal(server.tmux('display-message', '-p', '-t', w1, '#{session_name}:#{window_index}').trim(), 'web:1', 'web:1 is where it was')
    t.notOk(keptWindows(server).includes(windowOf(server, w1)), 'and the keeper let go of it')
    w2 = newPane(server, ['new-window', '-d', '-t', 'web'])
    await emit({ home, cwd, sessionId: 'f0000000-view-4000-8000-000000000009', server, pane: w2 })
    r = await run('status')
    t.match(changing(r.tmux).join('\n'), /link-window/)
    t.same(viewWindows(server), [...order().filter((w) => w !== windowOf(server, w1)), windowOf(server, w2)])
    r = await run('status')
    t.same(changing(r.tmux), [], 'and then nothing')
  })

  await t.test('back from the view returns to where the person was before entering it, and brings the view in line', async (t) => {
    // A new wait no run has seen yet: back, which reads no queue of its own, links it.
    const a2 = newPane(server, ['new-window', '-d', '-t', 'api'])
    await emit({ home, cwd, sessionId: 'f0000000-view-4000-8000-000000000010', server, pane: a2 })
    // As a key binding runs it: inside tmux (run-shell), naming the client.
    const r = await runIn({ ...env, TMUX: server.tmuxVar() }, 'back', '--client', client)
    t.equal(r.code, 0, r.stderr)
    t.equal(clientAt(), `home ${homePane}`)
    t.equal(viewWindows(server).at(-1), windowOf(server, a2), "the new wait's window is linked last")
    t.match(changing(r.tmux).join('\n'), /link-window -d -s @\d+ -t =trailboss-view:/)
    // The person closes it: gone from every session, the view's and the keeper's too.
    server.tmux('kill-window', '-t', a2)
    t.match(lsofView(), 'trailboss-view', 'the view stays')
    const again = await run('view', '--client', client)
    t.equal(again.code, 0, again.stderr)
    t.match(clientAt(), /^trailboss-view /)
  })

  await t.test("go from inside the view stays in the view; from outside it goes to the person's session", async (t) => {
    const inside = await run('go', w0, '--client', client)
    t.equal(inside.code, 0, inside.stderr)
    t.equal(clientAt(), `trailboss-view ${w0}`, "the view's link of the window")
    const back = await runIn({ ...env, TMUX: server.tmuxVar() }, 'back', '--client', client)
    t.equal(back.code, 0, back.stderr)
    t.equal(clientAt(), `home ${homePane}`, 'back: still where the person was before entering')
    const outside = await run('go', a1, '--client', client)
    t.equal(outside.code, 0, outside.stderr)
    t.equal(clientAt(), `api ${a1}`, "the person's own session, not the view")
    const again = await run('view', '--client', client)
    t.equal(again.code, 0, again.stderr)
  })

  await t.test('--off: a window whose session was closed meanwhile is rescued; the client goes back; no trace', async (t) => {
    const docsWindow = windowOf(server, d0)
    const pid = server.tmux('display-message', '-p', '-t', d0, '#{pane_pid}').trim()
    server.tmux('kill-session', '-t', '=docs:')
    t.equal(
      server.tmux('display-message', '-p', '-t', d0, '#{window_linked_sessions}').trim(),
      '2',
      'only the view and the keeper hold it now',
    )
    const r = await run('view', '--off', '--client', client)
    t.equal(r.code, 0, r.stderr)
    t.match(
      r.stderr,
      `1 window whose session was closed while in the view kept in session trailboss-keep: tmux -S ${server.socket} attach-session -t trailboss-keep`,
    )
    t.equal(clientAt(), `api ${a1}`, 'back where it was before entering (the go above took it to api)')
    t.notMatch(lsofView(), 'trailboss-view')
    t.equal(
      server.tmux('display-message', '-p', '-t', d0, '#{session_name} #{window_id} #{pane_pid}').trim(),
      `trailboss-keep ${docsWindow} ${pid}`,
    )
    t.same(keptWindows(server), [docsWindow], 'the keeper let go of every window that lives elsewhere')
    t.notOk(existsSync(join(home, 'view.json')), 'no view.json')
    t.notOk(existsSync(join(home, 'view.json.lock')), 'no lock')
    t.equal(server.tmux('show-options', '-g').includes('trailboss'), false, 'no global option of ours')
    // The person's sessions as they were, but the one they closed and the window the test added.
    const kept = (text: string): string =>
      text
        .split('\n')
        .filter((l) => !l.startsWith('docs ') && !l.includes(` ${w2} `))
        .join('\n')
    t.equal(kept(people(server)), kept(before), 'windows, layouts and sizes as they were')
    const r2 = await run('status')
    t.same(ofView(r2.tmux), [], 'no view: status asks tmux nothing for it again')
    server.tmux('kill-session', '-t', '=trailboss-keep:')
  })

  await t.test(
    'the person closes a session in the view, then kills the view by hand with no run between: no agent dies; doctor and --off say where it is',
    async (t) => {
      type Doctor = { checks: { id: string; status: string; summary: string; fix: string | null }[] }
      const doctor = async (): Promise<Doctor['checks']> =>
        (JSON.parse((await run('doctor', '--json')).stdout) as Doctor).checks.filter((c) => c.id.startsWith('view'))
      const r = await run('view', '--client', client)
      t.equal(r.code, 0, r.stderr)
      t.match(await doctor(), [{ id: `view:${server.socket}`, status: 'ok' }])
      // The windows of web's waits, which the view links (web:1's wait ended: it is web's alone).
      const webPanes = [w0, w2].map((p) => ({
        pane: p,
        was: server.tmux('display-message', '-p', '-t', p, '#{pane_pid} #{window_width}x#{window_height}').trim(),
      }))
      const webWindows = [w0, w2].map((p) => windowOf(server, p)).sort()
      // The person closes web while its windows are in the view, and then kills the view: no trailboss run between.
      server.tmux('kill-session', '-t', '=web:')
      // Out of the view first: tmux detaches a client whose session is killed.
      server.tmux('switch-client', '-c', client, '-t', '=home:')
      server.tmux('kill-session', '-t', '=trailboss-view:')
      for (const { pane, was } of webPanes)
        t.equal(
          server.tmux('display-message', '-p', '-t', pane, '#{pane_pid} #{window_width}x#{window_height}').trim(),
          was,
          `${pane} lives on, its process and size as they were`,
        )
      t.equal(
        server.tmux('list-panes', '-a', '-f', `#{==:#{pane_id},${w0}}`, '-F', '#{session_name}').trim(),
        'trailboss-keep',
        'held by the keeper alone',
      )
      t.match(await doctor(), [
        { id: `view:${server.socket}`, status: 'info' },
        {
          id: `view-rescued:${server.socket}`,
          status: 'info',
          summary: /^2 windows whose session was closed/,
          fix: /attach -t trailboss-keep/,
        },
      ])
      const off = await run('view', '--off', '--client', client)
      t.equal(off.code, 0, off.stderr)
      t.match(off.stderr, `2 windows whose session was closed while in the view kept in session trailboss-keep: tmux -S ${server.socket}`)
      t.same(keptWindows(server), webWindows, 'the keeper lets go of the windows the person holds elsewhere')
      t.notOk(existsSync(join(home, 'view.json')), 'no view.json')
      server.tmux('kill-session', '-t', '=trailboss-keep:')
      server.tmux('new-session', '-d', '-s', 'trailboss-view', 'sleep', '1000')
      server.tmux('set-option', '-t', '=trailboss-view:', '@trailboss-view', '0')
      t.match(await doctor(), [
        { id: `view:${server.socket}`, status: 'warn', summary: /another trailboss version/, fix: /trailboss view --off/ },
      ])
      const v = await run('view', '--client', client)
      t.equal(v.code, 1, 'view refuses a view of another version')
      t.match(v.stderr, /another trailboss version/)
      // Outside tmux, with view.json gone: --off finds it on the server the waits run on, as doctor does.
      const offOld = await run('view', '--off', '--client', client)
      t.equal(offOld.code, 0, offOld.stderr)
      t.notMatch(lsofView(), /trailboss-view/, 'and --off ends it')
      t.match(offOld.stderr, /1 window whose session was closed/, 'its window, held by no session of the person, kept')
      server.tmux('kill-session', '-t', '=trailboss-keep:')
    },
  )

  await t.test("two clients of different sizes: each keeps its session; a window both show takes one client's size", async (t) => {
    // The other person's client shows api's first window, which the view links too.
    server.tmux('select-window', '-t', `=api:${windowOf(server, a0b)}`)
    const other = await attachSized(t, server, 'api', 100, 30)
    const r = await run('view', '--client', client)
    t.equal(r.code, 0, r.stderr)
    const shared = windowOf(server, a0b)
    t.equal(clientAt(), `trailboss-view ${a0b}`)
    t.equal(
      clientAt(other.name),
      `api ${server.tmux('display-message', '-p', '-t', `=api:${shared}`, '#{pane_id}').trim()}`,
      'the other client shows the same window, in its own session',
    )
    const size = server.tmux('display-message', '-p', '-t', shared, '#{window_width}x#{window_height}').trim()
    const clients = server.tmux('list-clients', '-F', '#{client_width}x#{client_height}').split('\n').filter(Boolean)
    t.ok(['160x39', '100x29'].includes(size), `the window is one client's size (${size}; clients ${clients.join(', ')})`)
    // The keeper holds the window too, with no client (its own size would be the 80×24 default):
    // tmux's other size rules count only sessions a client shows, so it never shrinks the window.
    const sized = (): string => server.tmux('display-message', '-p', '-t', shared, '#{window_width}x#{window_height}').trim()
    for (const [rule, want] of [
      ['smallest', '100x29'],
      ['largest', '160x39'],
    ] as const) {
      server.tmux('set-option', '-g', 'window-size', rule)
      server.tmux('set-option', '-g', 'aggressive-resize', 'on')
      await waitFor(() => sized() === want, `window-size ${rule} with aggressive-resize: ${want} (now ${sized()})`)
      t.pass(`window-size ${rule}, aggressive-resize on: ${want}`)
    }
    server.tmux('set-option', '-gu', 'window-size')
    server.tmux('set-option', '-gu', 'aggressive-resize')
    const off = await run('view', '--off', '--client', client)
    t.equal(off.code, 0, off.stderr)
    t.equal(clientAt(), `home ${homePane}`)
    t.equal(clientAt(other.name).split(' ')[0], 'api', 'the other client never moved')
    t.notMatch(lsofView(), /trailboss-keep/, 'nothing needed rescue: no keeper left')
  })
})

t.test('outside tmux, and the waits on another tmux server in the first window', async (t) => {
  const { cli } = await copyBuilt(t)
  const { home, cwd, server } = startKeyBindingLab(t, cli, 'home', ['bash', '--norc', '--noprofile'])
  const far = startServer(t, 'far')
  const api = newPane(server, ['new-session', '-d', '-s', 'api', '-x', '120', '-y', '30'])
  const farId = 'b2000000-view-4000-8000-000000000002'
  // Oldest first: the view goes on the server of the oldest wait.
  await emit({ home, cwd, sessionId: 'b1000000-view-4000-8000-000000000001', server, pane: api })
  await emit({ home, cwd, sessionId: farId, server: far, pane: far.firstPane })
  const { run } = loggingTmux(t, home)
  const firstWindow = (): string => server.capture('=trailboss-view:0.0')
  const sessionsOfClients = (): string[] => server.tmux('list-clients', '-F', '#{session_name} #{pane_id}').split('\n').filter(Boolean)

  await t.test('no tmux, no terminal, no client: the view is made and the way in printed as is', async (t) => {
    const r = await run('view')
    t.equal(r.code, 0, r.stderr)
    t.match(r.stderr, 'no tmux client to show it to')
    t.equal(r.stdout, `tmux -S ${server.socket} attach-session -t trailboss-view\n`)
    t.same(viewWindows(server), [windowOf(server, api)])
  })

  await t.test("the first window lists the other server's wait with its go, and is run again only when that changes", async (t) => {
    await waitFor(() => firstWindow().includes(far.socket), 'the list')
    t.match(firstWindow(), /trailboss go \S+/)
    let r = await run('status')
    t.same(
      changing(r.tmux).filter((l) => /respawn-pane/.test(l)),
      [],
      'the same text: not run again',
    )
    await emit({
      home,
      cwd,
      sessionId: farId,
      server: far,
      pane: far.firstPane,
      event: { hook_event_name: 'UserPromptSubmit', prompt: 'go on' },
    })
    r = await run('status')
    t.match(changing(r.tmux).join('\n'), /respawn-pane -k -t =trailboss-view:0\.0/)
    await waitFor(() => !firstWindow().includes(far.socket), 'the list without it')
    t.notMatch(firstWindow(), /cannot show/)
    r = await run('status')
    t.same(changing(r.tmux), [], 'and then nothing')
  })

  await t.test("no tmux, on a terminal: that terminal attaches to the view; the person's client stays", async (t) => {
    const person = await attachSized(t, server, 'home', 120, 30)
    const before = sessionsOfClients()
    const term = spawn('script', ['-qfc', `stty cols 100 rows 30; exec '${join(home, '..', 'bin', 'trailboss')}' view`, '/dev/null'], {
      env: cleanEnv({ TERM: 'xterm', TRAILBOSS_HOME: home }),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    term.stdout.resume()
    t.teardown(() => {
      term.kill()
    })
    await waitFor(() => sessionsOfClients().length === before.length + 1, 'a second client')
    t.equal(clientView(server, person.name), before[0], "the person's client did not move")
    t.ok(sessionsOfClients().includes(`trailboss-view ${api}`), 'the terminal shows the view, on the wait')
  })

  await t.test('no tmux, no terminal, a client attached: that client moves, as go moves it', async (t) => {
    await waitFor(() => sessionsOfClients().length === 0, 'the clients of the last test gone')
    const person = await attachSized(t, server, 'home', 120, 30)
    const r = await run('view')
    t.equal(r.code, 0, r.stderr)
    t.equal(r.stdout, '', 'nothing to print: the client is there')
    t.equal(clientView(server, person.name), `trailboss-view ${api}`)
  })
})

/** The README's lines of a kind of fenced block that match `pick`. */
const documented = (kind: string, pick: RegExp): string[] =>
  [...readFileSync(new URL('../README.md', import.meta.url), 'utf8').matchAll(new RegExp(`\`\`\`${kind}\\n([\\s\\S]*?)\`\`\``, 'g'))]
    .map((m) => (m[1] ?? '').replace(/\\\n\s*/g, ''))
    .flatMap((b) => b.split('\n'))
    .filter((l) => pick.test(l))

t.test("the README's view keys and its fzf peek, as documented, in a real terminal client", async (t) => {
  const { cli } = await copyBuilt(t)
  const { home, cwd, server } = startKeyBindingLab(t, cli, 'home', ['bash', '--norc', '--noprofile'])
  const homePane = server.tmux('display-message', '-p', '-t', 'home', '#{pane_id}').trim()
  server.tmux('new-session', '-d', '-s', 'api', '-x', '200', '-y', '50', 'cat')
  // The agent stand-in: `cat` echoes what is typed into its pane, as an agent draws its dialog.
  const agent = server.tmux('display-message', '-p', '-t', 'api', '#{pane_id}').trim()
  server.tmux('send-keys', '-t', agent, 'PEEK-ONE', 'Enter')
  await emit({ home, cwd, sessionId: 'a1000000-view-4000-8000-000000000001', server, pane: agent })
  const keys = documented('tmux', /^bind-key [VX] /)
  t.equal(keys.length, 2, 'a key into the view and one out of it')
  const conf = join(home, 'keys.conf')
  writeFileSync(conf, keys.map((k) => k.replace(/^bind-key ([VX]) /, (_, key: string) => `bind-key -n M-${key.toLowerCase()} `)).join('\n'))
  server.tmux('source-file', conf)
  const person = await attachSized(t, server, 'home', 160, 40)
  const at = (): string => clientView(server, person.name)

  await t.test('prefix V enters the view, prefix X leaves it', async (t) => {
    person.type('\u001bv')
    await waitFor(() => at() === `trailboss-view ${agent}`, 'in the view, on the wait')
    person.type('\u001bx')
    await waitFor(() => at() === `home ${homePane}`, 'back where it was')
    // The client moves first; the view and the keeper end in the same run right after.
    await waitFor(() => !/trailboss-(view|keep)/.test(server.tmux('list-sessions', '-F', '#{session_name}')), 'no session of ours left')
    t.pass('the view and the keeper are gone')
  })

  await t.test("fzf's preview shows the selected wait's live screen, and shows it again as it changes", async (t) => {
    const [recipe] = documented('sh', /--screen/)
    t.ok(recipe, 'the recipe is in the README')
    const shell = server.tmux('new-window', '-d', '-t', 'home', '-P', '-F', '#{pane_id}', 'bash', '--norc', '--noprofile').trim()
    server.tmux('resize-window', '-t', shell, '-x', '200', '-y', '50')
    // A shell of the person's, with `trailboss` on its PATH (the lab's wrapper).
    server.tmux('send-keys', '-t', shell, '-l', `export PATH='${join(home, '..', 'bin')}':"$PATH"; `)
    server.tmux('send-keys', '-t', shell, '-l', recipe ?? '')
    server.tmux('send-keys', '-t', shell, 'Enter')
    await waitFor(() => /│.*PEEK-ONE/.test(server.capture(shell)), 'the agent pane beside the list', 20_000)
    server.tmux('send-keys', '-t', agent, 'PEEK-TWO', 'Enter')
    await waitFor(() => /│.*PEEK-TWO/.test(server.capture(shell)), 'the newer screen', 20_000)
    t.pass('peeked without moving')
    t.equal(at(), `home ${homePane}`, 'the client did not move')
    server.tmux('send-keys', '-t', shell, 'Escape')
  })
})
