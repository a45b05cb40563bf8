// The surfaces over every host, against real OpenSSH servers on loopback (test/helpers/ssh-host.ts)
// running this checkout's trailboss: status and statusline count a remote wait from the cached
// read and say how old a stale host's queue is; a host that went silent never holds up their
// line (it is read after the line is out), then costs nothing until the refresh gap has passed;
// show runs the host's own show; notify
// tells a remote wait once, and a silent host makes none of its waits new or gone; watch shows a
// remote wait, numbered with the local ones, and marks it stale when its host goes silent.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Env } from '../lib/paths.js'
import { readHostCache, writeLastAnswer } from '../lib/remote/last-answer.js'
import { closeMaster, runSsh } from '../lib/remote/ssh-run.js'
import { REFRESH_GAP_MS } from '../lib/remote/cached-fleet.js'
import { checkRemoteShowJson, type ShowJson } from '../lib/remote/remote-show.js'
import { showOutputSchema } from '../lib/schemas/contract.js'
import { payload, runEmitter } from './helpers/emitter.js'
import { CLI, runCli, runCliSeeingEnd, runInProcess } from './helpers/cli.js'
import { startSshHost, trailbossBinDir, writeSshConfig, type SshHost } from './helpers/ssh-host.js'
import { startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

t.setTimeout(240_000)
const root = fs.mkdtempSync(join(tmpdir(), 'tb-surfaces-'))
const bin = trailbossBinDir(join(root, 'tb-bin'))
const config = join(root, 'ssh_config')
const start = (name: string): Promise<SshHost> =>
  startSshHost(join(root, name), name, { path: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` })
const hosta = await start('hosta')
const hostb = await start('hostb')
writeSshConfig(config, [hosta, hostb])

/** This machine: a home of its own, the test's ssh config, no ssh agent. */
const env: Env = {
  PATH: process.env.PATH,
  TMUX_TMPDIR: process.env.TMUX_TMPDIR,
  HOME: join(root, 'home'),
  TRAILBOSS_HOME: join(root, 'tb'),
  TRAILBOSS_SSH_CONFIG: config,
}
// One teardown, in order: the connections, the hosts (whose sshd writes in `root` to the end), then `root`.
t.teardown(async () => {
  for (const h of [hosta, hostb]) {
    h.resume()
    await closeMaster(env, h.name)
    await h.stop()
  }
  // A host's `ls --follow` whose connection ended sees its parent gone within its own check
  // (PARENT_CHECK_MS, 10 s) and may write its home until then.
  await waitFor(
    () => {
      fs.rmSync(root, { recursive: true, force: true })
      return true
    },
    `${root} removed`,
    30_000,
    500,
  )
})

/** A wait recorded on `host` by its own emitter, as its agent's hook would. */
const emitOn = async (host: string, id: string, event: string, extra: Record<string, unknown>): Promise<void> => {
  const r = await runSsh(env, host, ['trailboss-emit'], {
    input: JSON.stringify(payload(id, event, { prompt_id: 'p1', cwd: `/tmp/${id}`, ...extra })),
    timeoutMs: 20_000,
  })
  if (!r.ok) throw new Error(`emit on ${host}: ${r.message}`)
}

const ok = (r: { code: number | null; stderr: string }, what: string): void => {
  if (r.code !== 0) throw new Error(`${what}: exit ${r.code}: ${r.stderr}`)
}
ok(await runInProcess(['hosts', 'add', 'hosta'], env), 'hosts add hosta')
ok(await runInProcess(['hosts', 'add', 'hostb'], env), 'hosts add hostb')
await emitOn('hosta', 'remote-perm', 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'make deploy' } })
await emitOn('hostb', 'remote-quest', 'Stop', { last_assistant_message: 'Which branch?' })
const local = await runEmitter(JSON.stringify(payload('local-quest', 'Stop', { prompt_id: 'p1', last_assistant_message: 'Shall I?' })), env)
if (local.code !== 0) throw new Error(local.stderr)

/** Makes a host's cache look `ageMs` old, so the next cached read is due to refresh it. */
const ageCache = async (host: string, ageMs: number): Promise<void> => {
  const answer = (await readHostCache(env, host)).answer
  if (!answer) throw new Error(`no cache for ${host}`)
  writeLastAnswer(env, host, { ...answer, at: Date.now() - ageMs })
}

t.test('status and statusline count a remote wait, from the cache', async (t) => {
  // No host has been read yet: the first call says so, and reads them once its line is out.
  const first = await runCli(['status', '--format', '{count} [{hosts}] [{stale}]'], env)
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, '1 [hosta ?, hostb ?] [hosta ?, hostb ?]\n', 'the first call: the local wait, the hosts not read yet')
  const status = await runCli(['status', '--format', '{count} [{hosts}] [{stale}]'], env)
  t.equal(status.code, 0, status.stderr)
  t.match(status.stdout, /^3 \[hosta \d+s, hostb \d+s\] \[\]\n$/, 'the local wait and one on each host; no host stale')
  t.ok((await readHostCache(env, 'hosta')).answer, "the host's answer is kept for the next call")
  const line = await runCli(['statusline'], env, JSON.stringify({ session_id: 'nobody-here' }))
  t.match(line.stdout, /^3 others wait · oldest \d+s\n$/)
  const inside = await runInProcess(['statusline'], env, JSON.stringify({ session_id: 'local-quest' }))
  t.match(inside.stdout, /^2 others wait/, 'inside the local session: the two remote ones')
  const local = await runCli(['ls', '--local', '--json'], env)
  t.equal((JSON.parse(local.stdout) as { queue: unknown[] }).queue.length, 1, 'this machine alone holds one')
})

t.test("the mod's pending read holds the remote waits, as ls --json does", async (t) => {
  const ls = JSON.parse((await runCli(['ls', '--json'], env)).stdout) as { digest: string }
  const pending = await runCli(['ls', '--json', '--until-change', 'not-this-one'], env)
  const doc = JSON.parse(pending.stdout) as { digest: string; queue: { destination: string | null }[] }
  t.same(doc.queue.map((i) => i.destination).sort(), ['hosta', 'hostb', null], 'a wait on each host and the local one')
  t.equal(doc.digest, ls.digest, 'the same digest as ls --json: the mod does not see a change that is none')
})

t.test('show of a remote wait prints its host’s show, the host named', async (t) => {
  const listed = JSON.parse((await runInProcess(['ls', '--json'], env)).stdout) as {
    queue: { key: string; n: number; destination: string | null }[]
  }
  const remote = listed.queue.find((i) => i.destination === 'hosta')
  t.ok(remote, 'the wait on hosta is listed')
  const byKey = await runInProcess(['show', remote?.key ?? ''], env)
  t.equal(byKey.code, 0, byKey.stderr)
  t.match(byKey.stdout, /^on hosta: trailboss show [A-Za-z0-9_-]+\n/, 'a first line naming the host')
  t.match(byKey.stdout, /session remote-perm/, "the host's own page")
  t.match(byKey.stdout, /make deploy/)
  const byNumber = await runInProcess(['show', String(remote?.n)], env)
  const ageless = (text: string): string => text.replace(/ · \d+[smhd] · /g, ' · ')
  t.equal(ageless(byNumber.stdout), ageless(byKey.stdout), 'by its number, the same')
})

t.test("show --json of a remote wait gives its host's show --json, checked and named as here", async (t) => {
  const listed = JSON.parse((await runInProcess(['ls', '--json'], env)).stdout) as {
    queue: { key: string; n: number; sessionId: string; destination: string | null }[]
  }
  const remote = listed.queue.find((i) => i.destination === 'hosta')
  t.ok(remote, 'the wait on hosta is listed')
  const r = await runInProcess(['show', '--json', remote?.key ?? ''], env)
  t.equal(r.code, 0, r.stderr)
  const doc = JSON.parse(r.stdout) as ShowJson
  t.equal(doc.version, 2)
  t.match(doc.item, { key: remote?.key, n: remote?.n, sessionId: remote?.sessionId, destination: 'hosta', stale: false })
  t.match(doc.item.ask.input, { command: 'make deploy' }, "the host's own item")
  t.ok(showOutputSchema.safeParse(doc).success, 'the shape show --json has here')
  t.ok('conversation' in doc && 'screen' in doc && 'transcriptPath' in doc)

  // What the host's own show --json says, then altered as a hostile host might.
  const theirKey = remote?.key.slice('hosta:'.length) ?? ''
  const raw = await runSsh(env, 'hosta', ['trailboss', 'show', '--json', theirKey, '--local'])
  t.ok(raw.ok)
  const theirs = JSON.parse(raw.ok ? raw.stdout : '{}') as ShowJson
  t.equal(theirs.item.destination, null, 'the host names its own wait as local')
  const hostile = { ...theirs, screen: 'a\u001b]52;c;eA==\u0007b', item: { ...theirs.item, project: 'p\u001b[2J' } }
  const checked = await checkRemoteShowJson(JSON.stringify(hostile), 'hosta', theirKey, 7)
  t.ok(checked.ok)
  if (checked.ok) {
    t.notMatch(JSON.stringify(checked.show), /\\u001b|\\u0007/, 'no escape or control character is left')
    t.equal(checked.show.item.n, 7)
    t.equal(checked.show.item.key, `hosta:${theirKey}`)
  }
  t.match(await checkRemoteShowJson('not json', 'hosta', theirKey, 1), { ok: false, why: /not JSON/ })
  t.match(await checkRemoteShowJson(JSON.stringify({ ...theirs, item: { ...theirs.item, since: 3 } }), 'hosta', theirKey, 1), {
    ok: false,
    why: /not a show --json document/,
  })
  t.match(await checkRemoteShowJson(JSON.stringify({ ...theirs, version: 3 }), 'hosta', theirKey, 1), { ok: false, why: /version 3/ })
  t.match(await checkRemoteShowJson(raw.ok ? raw.stdout : '', 'hosta', 'another-key', 1), { ok: false, why: /another session/ })
})

t.test('notify tells a remote wait once; a silent host makes none of its waits new or gone', async (t) => {
  const log = join(root, 'notified.jsonl')
  const notify = async (): Promise<string[]> => {
    const r = await runInProcess(['notify', '--exec', `cat >> ${log}; echo >> ${log}`], env)
    t.equal(r.code, 0, r.stderr)
    return fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { key: string }).key)
      : []
  }
  const first = await notify()
  t.equal(first.length, 3, 'the local wait and one on each host')
  t.ok(
    first.some((k) => k.startsWith('hostb:')),
    'the wait on hostb, named with its host',
  )
  t.same(await notify(), first, 'a second call tells nothing')
  hostb.pause()
  try {
    t.same(await notify(), first, 'hostb silent: nothing new')
  } finally {
    hostb.resume()
  }
  await closeMaster(env, 'hostb')
  t.same(await notify(), first, 'hostb back: its wait is not told again')
})

/** `ssh` as found on PATH, behind a shim that notes each call's arguments: which hosts a command contacted. */
const sshShim = (): { env: Env; calls: () => string[] } => {
  const dir = join(root, 'ssh-shim')
  const log = join(dir, 'calls.log')
  const real = execFileSync('sh', ['-c', 'command -v ssh'], { encoding: 'utf8' }).trim()
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(join(dir, 'ssh'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 })
  return {
    env: { ...env, PATH: `${dir}:${env.PATH ?? ''}` },
    calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
  }
}

t.test("a silent host never holds up status's line: it is read once the line is out, then not within the gap", async (t) => {
  const shim = sshShim()
  await ageCache('hosta', 0)
  await ageCache('hostb', REFRESH_GAP_MS + 5000)
  hostb.pause()
  t.teardown(() => hostb.resume())
  const first = await runCliSeeingEnd(['status', '--format', '{count} [{stale}]'], shim.env)
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, '3 []\n', "the line from the caches as they stand: hostb's last queue, not yet stale")
  t.ok(first.runningAtEnd, 'its output ended while the process still ran: the refresh came after the line')
  t.ok(
    shim.calls().some((c) => c.includes(' -- hostb ')),
    'the first call tried hostb',
  )
  const failed = (await readHostCache(env, 'hostb')).failed
  t.ok(failed, 'the failed read is noted in its cache')
  t.ok(failed && failed.at >= first.endAt, 'noted after the output had ended')
  const tried = shim.calls().length
  const second = await runCli(['status'], shim.env)
  t.match(second.stdout, /^3 waiting · \d+s · hostb \d+s old\n$/, 'the next call names the stale host')
  t.same(
    shim
      .calls()
      .slice(tried)
      .filter((c) => c.includes(' -- hostb ')),
    [],
    'the second call did not try hostb: its failed read is recent',
  )
  t.same((await readHostCache(env, 'hostb')).failed, failed, 'and its cache is as the first call left it')
})

t.test("a silent host never holds up statusline's line either", async (t) => {
  await ageCache('hosta', REFRESH_GAP_MS + 5000)
  hosta.pause()
  t.teardown(() => hosta.resume())
  const line = await runCliSeeingEnd(['statusline'], env, JSON.stringify({ session_id: 'nobody-here' }))
  t.equal(line.code, 0, line.stderr)
  t.match(line.stdout, /^3 others wait · oldest \d+[smh] · hostb \d+[sm] old\n$/, "hosta's last queue counts, as its cache stands")
  t.ok(line.runningAtEnd, 'its output ended while the process still ran: the refresh came after the line')
  const failed = (await readHostCache(env, 'hosta')).failed
  t.ok(failed && failed.at >= line.endAt, "hosta's failed read, noted after the output had ended")
})

t.test('watch shows a remote wait and marks it stale when its host goes silent', async (t) => {
  const { SSH_AUTH_SOCK: _agent, TMUX: _tmux, TMUX_PANE: _pane, ...base } = process.env
  const server = startTmuxServer(t, {
    session: 'main',
    sessionArgs: ['-n', 'watch'],
    command: ['sh'],
    size: [150, 30],
    env: { ...base, HOME: env.HOME, TERM: 'xterm-256color', LANG: 'C.UTF-8' },
  })
  const pane = server.firstPane
  const vars = `TRAILBOSS_HOME='${env.TRAILBOSS_HOME}' TRAILBOSS_SSH_CONFIG='${config}'`
  server.tmux('send-keys', '-t', pane, `${vars} ${process.execPath} ${CLI} watch`, 'Enter')
  await waitFor(() => server.capture(pane).includes('Trail Boss · 3 waiting'), 'watch counts the waits of every host', 20_000)
  const text = server.capture(pane)
  t.match(text, /HOST/, 'a HOST column')
  t.match(text, /hosta\s/, 'the wait on hosta has a row')
  t.match(text, /Bash: make deploy/)
  hosta.pause()
  t.teardown(() => hosta.resume())
  // ssh ends a connection whose host stops answering its keep-alives (3 × 5 s).
  await waitFor(() => /hosta: no answer/.test(server.capture(pane)), 'hosta said stale', 60_000, 250)
  // The line comes with the host's news; its row with the read that news starts.
  await waitFor(() => /hosta \(stale\)/.test(server.capture(pane)), 'its row marked stale', 10_000, 100)
  t.pass('its row marked stale')
  t.match(server.capture(pane), /Trail Boss · 3 waiting/, 'its last known wait still counts')
  hosta.resume()
  await waitFor(() => !/hosta: no answer/.test(server.capture(pane)), 'hosta answers again', 60_000, 250)
  server.tmux('send-keys', '-t', pane, 'q')
})
