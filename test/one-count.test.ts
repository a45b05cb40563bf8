// One count: a mixed fleet, recorded by the real emitter, and every surface asked how many waits
// need the person: ls (--json, --exit-status), status, statusline (inside one session and
// outside all), watch's title, notify, and the Claude Code mod's reading of `ls --json`. They must
// agree: the waits that need the person, seen or not; the finished turns only with --all.
import t from 'tap'
import { filterAgents } from '../lib/queue/filter.js'
import { loadQueue } from '../lib/queue/load.js'
import { resolveTarget } from '../lib/queue/target.js'
import { formatWatchScreen } from '../lib/render/watch-screen.js'
import { othersOf, parseListing } from '../plugin/hooks/queue-view.js'
import { baseEnv, payload, runEmitter, tempDir } from './helpers/emitter.js'
import { runInProcess } from './helpers/cli.js'
import { queueItem } from './helpers/queue-item.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadFleetView } from '../lib/navigate/fleet-view.js'
import { closeMaster, runSsh } from '../lib/remote/ssh-run.js'
import { captureIo } from './helpers/io.js'
import { startSshHost, trailbossBinDir, writeSshConfig } from './helpers/ssh-host.js'

t.test('every surface shows the same count of a mixed fleet', async (t) => {
  const env = baseEnv(tempDir(t))
  const emit = async (id: string, name: string, extra: Record<string, unknown> = {}): Promise<void> => {
    const r = await runEmitter(JSON.stringify(payload(id, name, { prompt_id: 'p1', ...extra })), env)
    t.equal(r.code, 0, `${id} ${name}`)
  }
  await emit('s-perm1', 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'npm test' } })
  await emit('s-perm2', 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make' } })
  await emit('s-quest', 'Stop', { last_assistant_message: 'Which one?' })
  await emit('s-error', 'StopFailure', { error: 'rate_limit' })
  await emit('s-done1', 'Stop', { last_assistant_message: 'Done.' })
  await emit('s-done2', 'Stop', { last_assistant_message: 'Finished.' })
  await emit('s-busy1', 'UserPromptSubmit', { prompt: 'go on' })
  // The person looked at the question and at one finished turn.
  const listed = JSON.parse((await runInProcess(['ls', '--json'], env)).stdout) as { queue: { sessionId: string; n: number }[] }
  const numberOf = (id: string): string => String(listed.queue.find((i) => i.sessionId === id)?.n)
  const ack = await runInProcess(['ack', numberOf('s-quest'), numberOf('s-done2')], env)
  t.equal(ack.code, 0, ack.stderr)

  const ls = await runInProcess(['ls', '--json'], env)
  const doc = JSON.parse(ls.stdout) as { queue: { sessionId: string; needsYou: boolean; seen: boolean }[] }
  t.same(
    doc.queue.map((i) => [i.sessionId, i.needsYou, i.seen]),
    [
      ['s-perm1', true, false],
      ['s-perm2', true, false],
      ['s-quest', true, true],
      ['s-error', true, false],
      ['s-done1', false, false],
    ],
    'ls: the waits that need you (the seen question too), then the unseen finished turn',
  )
  const counts = {
    ls: doc.queue.filter((i) => i.needsYou).length,
    status: Number((await runInProcess(['status', '--format', '{count}'], env)).stdout.trim()),
    statusline: (await runInProcess(['statusline'], env, JSON.stringify({ session_id: 'nobody-here' }))).stdout
      .trim()
      .replace(/ · oldest .*/, ''),
    mod: parseListing(ls.stdout).waits.length,
    notify: (await runInProcess(['notify', '--dry-run'], env)).stdout.split('\n').filter((l) => l.startsWith('would notify')).length,
  }
  const view = await loadQueue({ env, now: Date.now })
  const title = formatWatchScreen({
    items: view.queue,
    selected: null,
    now: view.now,
    width: 120,
    height: 30,
    details: false,
    colour: false,
    message: null,
    tmuxAvailable: true,
    digits: '',
  })[0]
  t.same(counts, { ls: 4, status: 4, statusline: '4 others wait', mod: 4, notify: 4 }, 'ls, status, statusline, the mod and notify: 4')
  t.match(title, /^Trail Boss · 4 waiting/, 'watch: 4')
  t.equal((await runInProcess(['ls', '--exit-status'], env)).code, 0, 'ls --exit-status: something needs you')

  // Inside one of the sessions, the others: 3.
  t.match((await runInProcess(['statusline'], env, JSON.stringify({ session_id: 's-perm1' }))).stdout, /^3 others wait/)
  t.equal(othersOf(parseListing(ls.stdout).waits, 's-perm1').length, 3, 'the mod inside s-perm1: 3 others')

  // --all: the finished turns too, seen or not.
  t.equal((await runInProcess(['status', '--all', '--format', '{count}'], env)).stdout.trim(), '6')
  const all = formatWatchScreen({
    items: view.items,
    selected: null,
    now: view.now,
    width: 120,
    height: 30,
    details: false,
    colour: false,
    message: null,
    tmuxAvailable: true,
    digits: '',
    all: true,
  })[0]
  t.match(all, /^Trail Boss · 6 waiting/, 'watch --all: 6')
  t.equal(
    (await runInProcess(['statusline', '--all'], env, JSON.stringify({ session_id: 'nobody-here' }))).stdout.trim().split(' ')[0],
    '6',
  )
})

t.test('every surface gives the same count with a remote host in play', async (t) => {
  t.setTimeout(120_000)
  const root = mkdtempSync(join(tmpdir(), 'tb-one-count-'))
  const host = await startSshHost(join(root, 'devbox'), 'devbox', {
    path: `${trailbossBinDir(join(root, 'bin'))}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  })
  writeSshConfig(join(root, 'ssh_config'), [host])
  const env = baseEnv(root, { TRAILBOSS_SSH_CONFIG: join(root, 'ssh_config') })
  // In order: the connection, the host (its sshd writes in `root` to the end), then `root`.
  t.teardown(async () => {
    await closeMaster(env, 'devbox')
    await host.stop()
    rmSync(root, { recursive: true, force: true, maxRetries: 5 })
  })
  t.equal((await runInProcess(['hosts', 'add', 'devbox'], env)).code, 0)
  const onHost = async (id: string, name: string, extra: Record<string, unknown>): Promise<void> => {
    const input = JSON.stringify(payload(id, name, { prompt_id: 'p1', ...extra }))
    const r = await runSsh(env, 'devbox', ['trailboss-emit'], { input, timeoutMs: 20_000 })
    t.ok(r.ok, `${id} on devbox`)
  }
  await onHost('r-perm', 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make' } })
  await onHost('r-quest', 'Stop', { last_assistant_message: 'Which one?' })
  await onHost('r-done', 'Stop', { last_assistant_message: 'Done.' })
  const here = await runEmitter(JSON.stringify(payload('l-error', 'StopFailure', { prompt_id: 'p1', error: 'rate_limit' })), env)
  t.equal(here.code, 0)

  const ls = await runInProcess(['ls', '--json'], env)
  const doc = JSON.parse(ls.stdout) as { queue: { needsYou: boolean; destination: string | null }[] }
  const fleet = await loadFleetView(captureIo(env), {})
  const title = (all: boolean): string | undefined =>
    formatWatchScreen({
      items: all ? fleet.view.items : fleet.view.queue,
      selected: null,
      now: fleet.view.now,
      width: 120,
      height: 30,
      details: false,
      colour: false,
      message: null,
      tmuxAvailable: true,
      digits: '',
      all,
    })[0]
  const counts = {
    ls: doc.queue.filter((i) => i.needsYou).length,
    remote: doc.queue.filter((i) => i.needsYou && i.destination === 'devbox').length,
    status: Number((await runInProcess(['status', '--format', '{count}'], env)).stdout.trim()),
    statusline: (await runInProcess(['statusline'], env, JSON.stringify({ session_id: 'nobody-here' }))).stdout
      .trim()
      .replace(/ · oldest .*/, ''),
    mod: parseListing(ls.stdout).waits.length,
    notify: (await runInProcess(['notify', '--dry-run'], env)).stdout.split('\n').filter((l) => l.startsWith('would notify')).length,
  }
  t.same(
    counts,
    { ls: 3, remote: 2, status: 3, statusline: '3 others wait', mod: 3, notify: 3 },
    'two waits on devbox and one here, everywhere',
  )
  t.match(title(false), /^Trail Boss · 3 waiting/, 'watch: 3')
  t.equal(
    (await runInProcess(['status', '--all', '--format', '{count}'], env)).stdout.trim(),
    '4',
    '--all: the finished turn on devbox too',
  )
  t.match(title(true), /^Trail Boss · 4 waiting/, 'watch --all: 4')
  const inside = await runInProcess(['statusline'], env, JSON.stringify({ session_id: 'l-error' }))
  t.match(inside.stdout, /^2 others wait/, 'inside the local session: the two on devbox')
})

t.test('a filtered view names the numbers it holds', async (t) => {
  const claude = [1, 2, 3].map((n) => queueItem({ n, sessionId: `c${n}`, key: `c${n}`, agent: 'claude-code' }))
  const codex = queueItem({ n: 4, sessionId: 'x4', key: 'x4', agent: 'codex' })
  const view = filterAgents(
    { queue: [...claude, codex], items: [...claude, codex], skipped: [], tmuxAvailable: true, hookless: [], now: 0 },
    ['codex'],
  )
  t.throws(
    () => resolveTarget(view, '1', { env: {} }),
    /no wait holds number 1; the wait is 4/,
    'show 1 --agent codex: the only number is 4',
  )
  t.equal(resolveTarget(view, '4', { env: {} }).sessionId, 'x4')
})
