import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { deriveChannels } from '../lib/commands/notify.js'
import { checkDesktop, escapeTmuxFormat, formatNotice } from '../lib/notify/channels.js'
import { deriveNew, deriveNotes, parseNotifyState, waitId } from '../lib/notify/state.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { attachControlClient, startServer } from './helpers/navigate-tmux.js'
import { emitWait, fakeNotifier, makeHome, runCli, runInProcess, type CliResult } from './helpers/surfaces.js'
import { waitFor } from './helpers/wait-for.js'

const item = (id: string, over: Partial<QueueItem> = {}): QueueItem =>
  ({
    n: 1,
    key: id,
    sessionId: id,
    state: 'waiting',
    kind: 'done',
    since: 1000,
    project: `proj-${id}`,
    ask: { tool: null, input: null, message: 'All done.' },
    ...over,
  }) as QueueItem

t.test('deriveNotes: a note about an unusable channel is said once, again only after it stopped', async (t) => {
  const empty = parseNotifyState(null)
  const first = deriveNotes(empty, ['no desktop session here'])
  t.same(first.say, ['no desktop session here'])
  const second = deriveNotes(first.next, ['no desktop session here'])
  t.same(second.say, [], 'the same note: quiet')
  const gone = deriveNotes(second.next, [])
  t.same(gone.next.said, undefined, 'the desktop works again: forgotten')
  t.same(deriveNotes(gone.next, ['no desktop session here']).say, ['no desktop session here'], 'said again when it comes back')
  t.same(parseNotifyState(JSON.stringify(second.next)).said, ['no desktop session here'], 'kept in notify.json')
  t.same(deriveNew(second.next, '', ['a@1'], ['a@1']).next.said, ['no desktop session here'], 'telling waits keeps the notes')
})

t.test('deriveNew: new waits only, and only current ones remembered', async (t) => {
  const empty = parseNotifyState(null)
  const first = deriveNew(empty, '', ['a@1', 'b@2'], ['a@1', 'b@2'])
  t.same(first.fresh, ['a@1', 'b@2'])
  t.same(first.next.told, { '': ['a@1', 'b@2'] })
  const second = deriveNew(first.next, '', ['b@2', 'c@3'], ['c@3'])
  t.same(second.fresh, ['c@3'], 'b was told before')
  t.same(second.next.told[''], ['b@2', 'c@3'], 'a left the queue: forgotten')
  const reminder = deriveNew(second.next, '300000', ['b@2'], [])
  t.same(reminder.fresh, ['b@2'], 'a reminder profile has its own memory')
  t.same(deriveNew(first.next, '', ['a@1'], []).next.told[''], ['a@1'], 'untold waits are not remembered')
  t.equal(waitId({ sessionId: 's', since: 5 }), 's@5')
  t.same(parseNotifyState('not json'), empty, 'a damaged file starts afresh')
  t.same(parseNotifyState('{"v":1,"told":{"":["x",3]}}'), empty, 'so does one of another shape')
  t.same(parseNotifyState('{"v":1,"told":{"":["x"]}}').told, { '': ['x'] })
})

t.test('formatNotice batches several waits into one message', async (t) => {
  const one = formatNotice([item('a')])
  t.equal(one.title, 'Trail Boss: 1 session waits')
  t.equal(one.body, 'proj-a · done: All done.')
  const seven = formatNotice(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => item(id)))
  t.equal(seven.title, 'Trail Boss: 7 sessions wait')
  t.equal(seven.body.split('\n').length, 5)
  t.match(seven.body, /… and 3 more$/)
  t.notMatch(seven.line, /\n/)
  t.ok(seven.line.length <= 200)
  t.equal(escapeTmuxFormat('#{pane_id} #(rm x)'), '##{pane_id} ##(rm x)')
})

t.test('deriveChannels and checkDesktop', async (t) => {
  t.same(deriveChannels({ via: undefined, exec: undefined }), ['desktop', 'tmux', 'bell'])
  t.same(deriveChannels({ via: undefined, exec: 'cat' }), ['exec'])
  t.same(deriveChannels({ via: ['tmux'], exec: 'cat' }), ['tmux', 'exec'])
  t.throws(() => deriveChannels({ via: ['exec'], exec: undefined }), /--via exec needs --exec/)
  t.match(checkDesktop({ PATH: '/nonexistent' }, 'linux'), { ok: false, why: /notify-send is not on PATH/ })
  const mac = checkDesktop({ PATH: '' }, 'darwin')
  t.ok(mac.ok)
  if (mac.ok)
    t.same(
      mac.args({ title: 'T', body: 'it "quotes" & $(x)', line: '' }).slice(-2),
      ['T', 'it "quotes" & $(x)'],
      'osascript gets the text as arguments, not as script',
    )
})

const count = (r: CliResult): string => `${r.code} ${r.stderr.trim()}`

t.test('notify through a notify-send stand-in: twice in a row tells once', async (t) => {
  const home = makeHome(t.testdir())
  const fake = fakeNotifier(home.root, 'notify-send')
  const env = home.env({ PATH: `${fake.bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' })
  t.equal(count(await runInProcess(['notify', '--via', 'desktop'], env)), '0 ', 'an empty queue: nothing to do')
  t.same(fake.calls(), [])

  await emitWait(home, { session: 'aaaa-n1', cwd: '/tmp/alpha', message: 'Deploy now?' })
  t.equal(count(await runInProcess(['notify', '--via', 'desktop'], env)), '0 ')
  t.equal(count(await runInProcess(['notify', '--via', 'desktop'], env)), '0 ')
  t.same(fake.calls(), [['--app-name=Trail Boss', 'Trail Boss: 1 session waits', 'alpha · question: Deploy now?']])

  await emitWait(home, {
    session: 'bbbb-n2',
    cwd: '/tmp/beta',
    event: 'PermissionRequest',
    tool: { name: 'Bash', input: { command: 'make' } },
  })
  await emitWait(home, { session: 'cccc-n3', cwd: '/tmp/gamma', message: 'Done.' })
  await runInProcess(['notify', '--via', 'desktop'], env)
  t.equal(fake.calls().length, 2, 'one message for the new wait that needs you')
  t.same(fake.calls()[1]?.slice(1), ['Trail Boss: 1 session waits', 'beta · permission: Bash: make'], 'not the finished turn')
  await runInProcess(['notify', '--via', 'desktop', '--all'], env)
  const calls = fake.calls()
  t.equal(calls.length, 3, '--all tells of the finished turn too, once')
  t.same(calls[2]?.slice(1), ['Trail Boss: 1 session waits', 'gamma · done: Done.'])
  const state = JSON.parse(fs.readFileSync(join(home.tb, 'notify.json'), 'utf8')) as { told: Record<string, string[]> }
  t.equal(state.told['']?.length, 3)
  t.equal(fs.statSync(join(home.tb, 'notify.json')).mode & 0o777, 0o600)

  await t.test('--dry-run tells and remembers nothing', async (t) => {
    await emitWait(home, { session: 'dddd-n4', cwd: '/tmp/delta', message: 'Ok?' })
    const r = await runInProcess(['notify', '--dry-run'], env)
    t.match(r.stdout, /^would notify: dddd-n4 delta question\n$/)
    t.equal(fake.calls().length, 3)
  })

  await t.test('--older-than waits until a wait is old enough, with its own memory', async (t) => {
    const r = await runInProcess(['notify', '--via', 'desktop', '--older-than', '1h'], env)
    t.equal(r.code, 0)
    t.equal(fake.calls().length, 3, 'nothing is an hour old')
    const ls = JSON.parse((await runInProcess(['ls', '--json'], env)).stdout) as { queue: { since: string }[] }
    const newest = Math.max(...ls.queue.map((i) => Date.parse(i.since)))
    await waitFor(() => Date.now() - newest > 1001, 'every wait over a second old')
    await runInProcess(['notify', '--via', 'desktop', '--older-than', '1s'], env)
    const last = fake.calls().at(-1)
    t.equal(
      last?.[1],
      'Trail Boss: 3 sessions wait',
      'the reminder tells every wait over a second old that needs you, even ones told before',
    )
  })
})

t.test('overlapping notify runs tell once', async (t) => {
  const home = makeHome(t.testdir())
  // A slow notifier keeps the first run inside its lock while the others start.
  const fake = fakeNotifier(home.root, 'notify-send', { sleepMs: 400 })
  const env = home.env({ PATH: `${fake.bin}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' })
  await emitWait(home, { session: 'aaaa-o1', cwd: '/tmp/alpha', message: 'Ready?' })
  await emitWait(home, { session: 'bbbb-o2', cwd: '/tmp/beta', message: 'Ready?' })
  const runs = await Promise.all([1, 2, 3, 4].map(() => runCli(['notify', '--via', 'desktop'], env)))
  t.same(
    runs.map((r) => r.code),
    [0, 0, 0, 0],
  )
  t.equal(fake.calls().length, 1, 'four overlapping runs, one notification')
  t.equal(fake.calls()[0]?.[1], 'Trail Boss: 2 sessions wait')
})

t.test('--exec gets each new item as JSON on stdin, never in its command line', async (t) => {
  const home = makeHome(t.testdir())
  const out = join(home.root, 'out')
  fs.mkdirSync(out)
  const pwned = join(home.root, 'pwned')
  await emitWait(home, { session: 'aaaa-x1', cwd: '/tmp/alpha', message: `Run $(touch ${pwned}) and \`touch ${pwned}\`; "quoted" 'too'` })
  await emitWait(home, {
    session: 'bbbb-x2',
    cwd: '/tmp/beta',
    event: 'PermissionRequest',
    tool: { name: 'Bash', input: { command: `touch ${pwned}` } },
  })
  const cmd = `cat > "${out}/$TRAILBOSS_KEY.json"`
  const r = await runInProcess(['notify', '--all', '--exec', cmd], home.env())
  t.equal(r.code, 0, r.stderr)
  const files = fs.readdirSync(out).sort()
  t.same(files, ['aaaa-x1.json', 'bbbb-x2.json'], 'once per new wait')
  const a = JSON.parse(fs.readFileSync(join(out, 'aaaa-x1.json'), 'utf8')) as Record<string, unknown>
  t.match(a, {
    n: 2,
    needsYou: false,
    key: 'aaaa-x1',
    sessionId: 'aaaa-x1',
    state: 'waiting',
    kind: 'done',
    project: 'alpha',
    ask: { message: /\$\(touch/ },
  })
  t.type(a.since, 'string')
  const b = JSON.parse(fs.readFileSync(join(out, 'bbbb-x2.json'), 'utf8')) as Record<string, unknown>
  t.match(b, { n: 1, needsYou: true, kind: 'permission', ask: { tool: 'Bash', input: { command: `touch ${pwned}` } } })
  t.notOk(fs.existsSync(pwned), 'payload text was never run')
  const again = await runInProcess(['notify', '--all', '--exec', cmd], home.env())
  t.equal(again.code, 0)
  t.equal(fs.readdirSync(out).length, 2, 'told once')

  await emitWait(home, { session: 'cccc-x3', cwd: '/tmp/gamma' })
  const failing = await runInProcess(['notify', '--all', '--exec', 'exit 7'], home.env())
  t.equal(failing.code, 1)
  t.match(failing.stderr, /--exec for cccc-x3 exited 7/)
})

t.test('from cron: no desktop session, so it says so and uses tmux', async (t) => {
  const home = makeHome(t.testdir())
  const fake = fakeNotifier(home.root, 'notify-send')
  const server = startServer(t, 'agents')
  const pane = server.tmux('display-message', '-p', '-t', 'agents', '#{pane_id}').trim()
  await emitWait(home, {
    session: 'aaaa-c1',
    cwd: '/tmp/alpha',
    message: 'Merge it?',
    tmux: { env: `${server.socket},${server.pid},0`, pane },
  })
  // The client that attaches below shows another window: a wait in front of it for a few
  // seconds would count as seen (docs/queue.md).
  server.tmux('new-window', '-t', 'agents')
  // Cron: a short PATH with no tmux on it is common; here tmux is found, but no desktop bus is.
  const env = home.env({ PATH: `${fake.bin}:${process.env.PATH}` })

  // In-process: the command's tmux runs with the Io's environment, this PATH included.
  const noTmux = await runInProcess(['notify'], { ...env, PATH: fake.bin })
  t.equal(noTmux.code, 1, "cron's short PATH without tmux")
  t.match(noTmux.stderr, /could not notify \(no desktop session here \(run from cron\?\); tmux is not on PATH; no terminal to ring\)/)

  const nobody = await runInProcess(['notify'], env)
  t.equal(nobody.code, 1, 'no client attached and no desktop: nobody to tell')
  t.match(
    nobody.stderr,
    /could not notify \(no desktop session here \(run from cron\?\); no tmux client is attached; no terminal to ring\)/,
  )
  t.notOk(
    fs.existsSync(join(home.tb, 'notify.json')) && /aaaa-c1/.test(fs.readFileSync(join(home.tb, 'notify.json'), 'utf8')),
    'nothing remembered, so a later call tells',
  )
  const again = await runInProcess(['notify'], env)
  t.same([again.code, again.stderr], [1, ''], 'the same reason is said once, not on every cron run (each line is a mail)')

  await attachControlClient(t, server, 'agents')
  const r = await runInProcess(['notify'], env)
  t.equal(r.code, 0, r.stderr)
  t.match(r.stderr, /no desktop session here \(run from cron\?\); notified by tmux message on 1 client/)
  t.same(fake.calls(), [], 'notify-send was not run without a session bus')
  const twice = await runInProcess(['notify'], env)
  t.same([twice.code, twice.stderr], [0, ''], 'told once')
  // A new wait later: told by tmux again, and no desktop line this time (it was said).
  const other = server.tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'agents', 'sleep', '1000').trim()
  await emitWait(home, {
    session: 'bbbb-c2',
    cwd: '/tmp/beta',
    message: 'Ship it?',
    tmux: { env: `${server.socket},${server.pid},0`, pane: other },
  })
  const later = await runInProcess(['notify'], env)
  t.same([later.code, later.stderr], [0, ''], 'no desktop: said once, not again')
  const state = JSON.parse(fs.readFileSync(join(home.tb, 'notify.json'), 'utf8')) as { told: Record<string, string[]> }
  t.ok(
    state.told['']?.some((id) => id.startsWith('bbbb-c2@')),
    'and it was told',
  )
})

t.test('notify --via exec without --exec is a usage error', async (t) => {
  const home = makeHome(t.testdir())
  const r = await runInProcess(['notify', '--via', 'exec'], home.env())
  t.equal(r.code, 2)
  t.match(r.stderr, /--via exec needs --exec/)
})
