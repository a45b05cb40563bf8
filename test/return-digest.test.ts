// The digest of a return, end to end: the built CLI as child processes with a private home, waits
// made by the real emitter in a real tmux server (which logs them to the history), a real
// terminal client for the person's keys, and the clock of a run moved back with
// helpers/clock-ahead.cjs instead of waiting half an hour.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { copyBuilt, emit } from './helpers/navigate-records.js'
import { captureIo } from './helpers/io.js'
import { main } from '../lib/cli/main.js'
import { attachTerminalClient, cleanEnv, newPane, startKeyBindingLab, waitFor } from './helpers/navigate-tmux.js'

const CLOCK = fileURLToPath(new URL('./helpers/clock-ahead.cjs', import.meta.url))
const MIN = 60_000

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

const run = (cli: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

t.test('after a quiet stretch the first interactive command shows the digest, once; status and notify --digest', async (t) => {
  const { cli } = await copyBuilt(t)
  const { home, cwd, server } = startKeyBindingLab(t, cli, 'home', ['bash', '--norc', '--noprofile'])
  const env = cleanEnv({ TRAILBOSS_HOME: home })
  // A command the person ran `ago` ms before now: the last sign of them.
  const ranAgo = (args: string[], ago: number): Promise<Run> =>
    run(cli, args, { ...env, NODE_OPTIONS: `--require=${CLOCK}`, TRAILBOSS_TEST_CLOCK_SHIFT_MS: String(-ago) })
  const DIGEST =
    /While you were away \(40m\):\n {2}1 wait \(1 question\)\n {2}1 turn finished\n {2}1 error\n {2}oldest open: 1 proj \(claude-code, question\), \d+s\n/

  const api = server.newPane(['new-session', '-d', '-s', 'api'])
  const e = newPane(server, ['new-window', '-d', '-t', 'api'])
  const d = newPane(server, ['new-window', '-d', '-t', 'api'])
  // The last command, 40 minutes ago (nothing waited yet: it fails, and still counts).
  const before = await ranAgo(['go', '--print'], 40 * MIN)
  t.match(before.stderr, /nothing is waiting/)
  t.notMatch(before.stderr, /While you were away/, 'nothing known before it: no digest')
  // While away: a question, an error and a finished turn, through the real emitter.
  await emit({ home, cwd, sessionId: 'a0000000-dddd-4000-8000-000000000001', server, pane: api })
  await emit({
    home,
    cwd,
    sessionId: 'a0000000-dddd-4000-8000-000000000002',
    server,
    pane: e,
    event: { hook_event_name: 'StopFailure', error: 'x' },
  })
  await emit({ home, cwd, sessionId: 'a0000000-dddd-4000-8000-000000000003', server, pane: d, event: { last_assistant_message: 'Done.' } })

  await t.test('a command: the digest on stderr, once', async (t) => {
    const back = await run(cli, ['show', '1'], env)
    t.equal(back.code, 0)
    t.match(back.stderr, DIGEST)
    t.notMatch(back.stdout, /While you were away/, "stdout is the command's own")
    const again = await run(cli, ['show', '1'], env)
    t.notMatch(again.stderr, /While you were away/, 'shown once')
    const json = await ranAgo(['ls', '--json'], -60 * MIN)
    t.notMatch(json.stderr + json.stdout, /While you were away/, 'a script is not the person')
  })

  await t.test('two commands racing: one shows it', async (t) => {
    await ranAgo(['go', '--print', '1'], 40 * MIN)
    const both = await Promise.all([run(cli, ['show', '1'], env), run(cli, ['show', '1'], env)])
    t.equal(both.filter((r) => DIGEST.test(r.stderr)).length, 1)
  })

  await t.test('ls in a terminal: above the table; --plain and --json never', async (t) => {
    const ls = async (args: string[]): Promise<string> => {
      const io = captureIo(env)
      io.stdout.isTTY = true
      io.stdout.columns = 160
      t.equal(await main(['ls', ...args], io), 0)
      return io.out() + io.err()
    }
    await ranAgo(['go', '--print', '1'], 40 * MIN)
    t.notMatch(await ls(['--plain']), /While you were away/)
    t.notMatch(await ls(['--json']), /While you were away/)
    const table = await ls([])
    t.match(table, /^While you were away \(40m\):\n {2}1 wait \(1 question\)\n[^]*\n\n.*AGE.*KIND/)
    t.notMatch(await ls([]), /While you were away/, 'once')
  })

  await t.test('a key binding: the digest on the client', async (t) => {
    server.tmux('bind-key', '-n', 'M-n', 'run-shell', "trailboss next --client '#{client_name}' || true")
    const term = await attachTerminalClient(t, server, 'home')
    await ranAgo(['go', '--print', '1'], 40 * MIN)
    term.clear()
    term.write('\u001bn')
    await waitFor(() => term.screen.includes('While you were away (40m)'), 'the digest on the client', 10_000)
    t.pass('shown as a tmux message')
  })

  await t.test("status: the person typed in tmux before the command; status's record of it decides", async (t) => {
    const term = await attachTerminalClient(t, server, 'home')
    await ranAgo(['go', '--print', '1'], 40 * MIN)
    rmSync(join(home, 'activity-tmux.json'), { force: true })
    term.write('x')
    // status saw the keys: a return; the command comes after the keys, so tmux alone sees no gap.
    await waitFor(async () => {
      const s = await run(cli, ['status'], env)
      return s.code === 0 && existsSync(join(home, 'activity-tmux.json'))
    }, 'status recorded the client activity')
    const seen = JSON.parse(readFileSync(join(home, 'activity-tmux.json'), 'utf8')) as { at: number; away?: unknown }
    t.ok(seen.away, 'status saw a return')
    t.ok(Math.abs(seen.at - Date.now()) < 60_000, "the client's activity, now")
    const status = await run(cli, ['status'], env)
    t.notMatch(status.stdout + status.stderr, /While you were away/, 'status is not the person')
    const back = await run(cli, ['show', '1'], env)
    t.match(back.stderr, /While you were away \(\d+m\):\n {2}1 wait/)
  })

  await t.test('notify --digest: what arrived since the last call, through --exec, nothing when nothing did', async (t) => {
    const out = join(home, 'digest.json')
    const notify = (): Promise<Run> => run(cli, ['notify', '--digest', '--exec', `cat > '${out}'`], env)
    t.equal((await notify()).code, 0)
    t.notOk(existsSync(out), 'the first call starts the count')
    const q = newPane(server, ['new-window', '-d', '-t', 'api'])
    await emit({
      home,
      cwd,
      sessionId: 'a0000000-dddd-4000-8000-000000000004',
      server,
      pane: q,
      event: { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'make' } },
    })
    t.equal((await notify()).code, 0)
    const told = JSON.parse(readFileSync(out, 'utf8')) as { version: number; waits: unknown; done: number; errors: number }
    t.same(
      [told.version, told.waits, told.done, told.errors],
      [1, { count: 1, byKind: { permission: 1, question: 0, interrupted: 0 } }, 0, 0],
    )
    rmSync(out)
    t.equal((await notify()).code, 0)
    t.notOk(existsSync(out), 'nothing arrived since: nothing told')
  })
})
