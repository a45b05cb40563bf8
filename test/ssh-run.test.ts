// The ssh adapter against real OpenSSH servers on loopback (test/helpers/ssh-host.ts): a command
// runs in the host's own home; a shared connection is opened, reused, left out when
// TRAILBOSS_SSH_PERSIST=0 and closed on request; a host that refuses, goes silent or floods us
// ends within its bound with the reason; unsafe words never reach ssh; the socket path fits.
// ssh reads only the test's config (TRAILBOSS_SSH_CONFIG), with no agent.
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Env } from '../lib/paths.js'
import { controlDir } from '../lib/remote/ssh-args.js'
import { closeMaster, deriveSshResult, formatSshMessage, runSsh } from '../lib/remote/ssh-run.js'
import { startSshHost, trailbossBinDir, writeSshConfig, type SshHost } from './helpers/ssh-host.js'

const root = t.testdir()
const config = join(root, 'ssh_config')
const { SSH_AUTH_SOCK: _agent, ...base } = process.env

const start = async (name: string): Promise<SshHost> => {
  const host = await startSshHost(join(root, name), name)
  t.teardown(() => host.stop())
  return host
}
const hosta = await start('hosta')
const refusing = await start('refusing')
const silent = await start('silent')
const silentMaster = await start('silentmaster')
writeSshConfig(config, [hosta, refusing, silent, silentMaster])

/** A home too long for a socket folder inside it. */
const LONG = 'a-home-long-enough'.repeat(6)

/**
 * An environment with a Trail Boss home of its own (so a master of its own), short enough for
 * the socket folder to sit in it unless `long`; its masters are closed and the home removed at
 * teardown.
 */
const freshEnv = (t: Test, extra: Env = {}, long = false): Env => {
  const made = mkdtempSync(join(tmpdir(), 'tb-ssh-'))
  const home = long ? join(made, LONG) : made
  const env: Env = { ...base, TRAILBOSS_SSH_CONFIG: config, TRAILBOSS_HOME: home, ...extra }
  t.teardown(async () => {
    for (const h of [hosta, refusing, silent, silentMaster]) await closeMaster(env, h.name)
    rmSync(made, { recursive: true, force: true })
    if (!controlDir(env).startsWith(home)) rmSync(controlDir(env), { recursive: true, force: true })
  })
  return env
}

/** `ssh -O check`, as a person would ask: whether a master runs, and its pid. */
const masterPid = (env: Env, name: string): number | null => {
  const r = spawnSync('ssh', ['-F', config, '-o', `ControlPath=${join(controlDir(env), '%C')}`, '-O', 'check', '--', name], {
    env: env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 5000,
  })
  const m = /Master running \(pid=(\d+)\)/.exec(r.stderr)
  return r.status === 0 && m ? Number(m[1]) : null
}

/** How many connections the host let in, from its log. */
const logins = (host: SshHost): number => (readFileSync(join(host.dir, 'sshd.log'), 'utf8').match(/Accepted publickey/g) ?? []).length

t.test('a command runs on the host, in its own home', async (t) => {
  const env = freshEnv(t)
  const r = await runSsh(env, 'hosta', ['printenv', 'HOME'])
  t.same(r.ok && r.stdout, `${hosta.home}\n`)
  const pwd = await runSsh(env, 'hosta', ['pwd'])
  t.same(pwd.ok && pwd.stdout, `${hosta.home}\n`)
  const input = await runSsh(env, 'hosta', ['cat'], { input: 'to the remote stdin\n' })
  t.same(input.ok && input.stdout, 'to the remote stdin\n')
})

t.test("a second call goes over the first call's master: one login, one master", async (t) => {
  const env = freshEnv(t)
  const before = logins(hosta)
  t.ok((await runSsh(env, 'hosta', ['true'])).ok)
  const pid = masterPid(env, 'hosta')
  t.ok(pid, 'the first call left a master running')
  t.ok((await runSsh(env, 'hosta', ['true'])).ok)
  t.equal(masterPid(env, 'hosta'), pid, 'the same master')
  t.equal(logins(hosta) - before, 1, 'the second call logged in no more')
})

t.test('TRAILBOSS_SSH_PERSIST=0: every call connects afresh and leaves no master', async (t) => {
  const env = freshEnv(t, { TRAILBOSS_SSH_PERSIST: '0' })
  const before = logins(hosta)
  t.ok((await runSsh(env, 'hosta', ['true'])).ok)
  t.ok((await runSsh(env, 'hosta', ['true'])).ok)
  t.equal(masterPid(env, 'hosta'), null)
  t.same(readdirSync(controlDir(env)), [], 'no socket')
  t.equal(logins(hosta) - before, 2)
})

t.test('closeMaster ends the master; with none it says so and does not throw', async (t) => {
  const env = freshEnv(t)
  t.equal(await closeMaster(env, 'hosta'), false, 'none yet')
  t.ok((await runSsh(env, 'hosta', ['true'])).ok)
  t.ok(masterPid(env, 'hosta'))
  t.equal(await closeMaster(env, 'hosta'), true)
  t.equal(masterPid(env, 'hosta'), null)
  t.equal(await closeMaster(env, 'hosta'), false)
  t.equal(await closeMaster(env, '-oProxyCommand=id'), false, 'a bad destination is no master either')
})

t.test('a host that refuses connections: reason connect, its own words as the message', async (t) => {
  const env = freshEnv(t)
  await refusing.stop()
  const r = await runSsh(env, 'refusing', ['true'])
  t.equal(r.ok, false)
  if (r.ok) return
  t.equal(r.reason, 'connect')
  t.equal(r.code, 255)
  t.match(r.message, /Connection refused/)
  t.notMatch(r.message, /[\r\n]/)
})

t.test('a silent host (sshd stopped with SIGSTOP): reason timeout, and the call returns', async (t) => {
  t.test('no master: ssh gives up on the handshake', async (t) => {
    const env = freshEnv(t)
    silent.pause()
    t.teardown(() => silent.resume())
    const started = Date.now()
    const r = await runSsh(env, 'silent', ['true'])
    t.equal(r.ok || r.reason, 'timeout')
    t.ok(Date.now() - started < 10_000, 'returned well within a sanity bound')
  })
  t.test('a master open before the host went silent: our own bound ends the call', async (t) => {
    const env = freshEnv(t)
    t.ok((await runSsh(env, 'silentmaster', ['true'])).ok)
    t.ok(masterPid(env, 'silentmaster'), 'a master runs')
    silentMaster.pause()
    t.teardown(() => silentMaster.resume())
    const started = Date.now()
    const r = await runSsh(env, 'silentmaster', ['true'])
    t.equal(r.ok || r.reason, 'timeout')
    t.ok(Date.now() - started < 10_000, 'returned well within a sanity bound')
  })
})

t.test('an answer over the cap is refused; one at the cap is not', async (t) => {
  const env = freshEnv(t)
  const big = await runSsh(env, 'hosta', ['head', '-c', '5000000', '/dev/zero'])
  t.equal(big.ok || big.reason, 'too-big', 'over the default 4 MB')
  const over = await runSsh(env, 'hosta', ['head', '-c', '2001', '/dev/zero'], { maxBytes: 2000 })
  t.equal(over.ok || over.reason, 'too-big')
  const at = await runSsh(env, 'hosta', ['head', '-c', '2000', '/dev/zero'], { maxBytes: 2000 })
  t.equal(at.ok && at.stdout.length, 2000)
})

t.test('a remote command that fails is exit, even when it exits 255 as ssh would', async (t) => {
  const env = freshEnv(t)
  const no = await runSsh(env, 'hosta', ['false'])
  t.same(no.ok ? null : [no.reason, no.code], ['exit', 1])
  const like = await runSsh(env, 'hosta', ['exit', '255'])
  t.same(like.ok ? null : [like.reason, like.code], ['exit', 255])
})

t.test('ssh off PATH: reason no-ssh', async (t) => {
  const env = freshEnv(t, { PATH: t.testdir() })
  const r = await runSsh(env, 'hosta', ['true'])
  t.equal(r.ok || r.reason, 'no-ssh')
})

t.test('an unsafe word or destination is refused before ssh runs', async (t) => {
  // An `ssh` that only leaves a mark: whatever reaches it would have run.
  const bin = t.testdir()
  const mark = join(bin, 'ran')
  writeFileSync(join(bin, 'ssh'), `#!/bin/sh\necho "$@" >> '${mark}'\n`)
  chmodSync(join(bin, 'ssh'), 0o755)
  const env = freshEnv(t, { PATH: `${bin}:/usr/bin:/bin` })
  for (const [dest, words] of [
    ['hosta', ['echo', 'a;touch', 'pwned']],
    ['hosta', ['echo', '$(id)']],
    ['hosta', ['echo', 'a b']],
    ['-oProxyCommand=touch pwned', ['true']],
    ['-p', ['true']],
  ] as const) {
    await t.rejects(runSsh(env, dest, words), { name: 'TrailbossError' }, `${dest} ${words.join(' ')}`)
  }
  t.throws(() => readFileSync(mark), 'ssh never ran')
  await runSsh(env, 'hosta', ['true'])
  t.match(readFileSync(mark, 'utf8'), /-- hosta true\n$/, 'a safe call does reach it')
})

t.test('the socket folder is 0700; with a long home the socket path still fits', async (t) => {
  const env = freshEnv(t)
  t.ok((await runSsh(env, 'hosta', ['true'])).ok)
  t.equal(lstatSync(controlDir(env)).mode & 0o777, 0o700)

  const long = freshEnv(t, {}, true)
  const dir = controlDir(long)
  t.notOk(dir.startsWith(long.TRAILBOSS_HOME!), 'not in the home: too long for a socket there')
  t.ok((await runSsh(long, 'hosta', ['true'])).ok)
  t.ok(masterPid(long, 'hosta'), 'a master runs through the short folder')
  t.equal(lstatSync(dir).mode & 0o777, 0o700)
  const sockets = readdirSync(dir)
  t.equal(sockets.length, 1)
  for (const s of sockets) t.ok(Buffer.byteLength(join(dir, s)) < 108, `${join(dir, s)} fits a Unix socket`)
})

t.test('a socket folder in /tmp that is not ours is not used: no master, the call still runs', async (t) => {
  const env = freshEnv(t, {}, true)
  // Someone made the short folder first, as a link to a folder they can read.
  const theirs = t.testdir()
  symlinkSync(theirs, controlDir(env))
  t.teardown(() => rmSync(controlDir(env), { force: true }))
  const r = await runSsh(env, 'hosta', ['printenv', 'HOME'])
  t.same(r.ok && r.stdout, `${hosta.home}\n`)
  t.same(readdirSync(theirs), [], 'no socket in their folder')
  t.ok(lstatSync(controlDir(env)).isSymbolicLink(), 'their link left as it was')
})

t.test('messages: the first line, visible text only, short', async (t) => {
  t.equal(
    formatSshMessage('\r\nssh: connect to host x port 22: Connection refused\r\nmore\n'),
    'ssh: connect to host x port 22: Connection refused',
  )
  t.equal(formatSshMessage('Permission denied \u001b[31m(publickey)\u0007\r\n'), 'Permission denied [31m(publickey)')
  t.equal(formatSshMessage('a\u202eb'), 'a\\u202eb')
  t.ok([...formatSshMessage('x'.repeat(5000))].length <= 200)
  const limits = { timeoutMs: 3000, maxBytes: 10 }
  const exit = (code: number | null, stderr: string) => deriveSshResult({ code, stdout: '', stderr, cut: null, ms: 1 }, limits)
  for (const [stderr, reason] of [
    ['Host key verification failed.\r\n', 'connect'],
    ['root@127.0.0.1: Permission denied (publickey).\r\n', 'connect'],
    ['ssh: Could not resolve hostname nowhere: Name or service not known\r\n', 'connect'],
    ['kex_exchange_identification: Connection closed by remote host\r\n', 'connect'],
    ['Connection timed out during banner exchange\r\n', 'timeout'],
    ['ssh: connect to host 10.1.1.1 port 22: Connection timed out\r\n', 'timeout'],
    ['', 'exit'],
    ['my script failed\n', 'exit'],
  ] as const) {
    const r = exit(255, stderr)
    t.equal(r.ok || r.reason, reason, JSON.stringify(stderr))
  }
  const one = exit(1, 'Connection refused\n')
  t.equal(one.ok || one.reason, 'exit', 'only ssh exits 255 for its own trouble')
  const killed = exit(null, '')
  t.equal(killed.ok || killed.reason, 'exit')
})

// The harness itself: a host's PATH and environment reach its sessions.
t.test('a host started with a PATH and variables of its own', async (t) => {
  const td = t.testdir()
  const bin = join(td, 'bin')
  mkdirSync(bin)
  writeFileSync(join(bin, 'only-here'), '#!/bin/sh\necho "here $TRAILBOSS_HOME"\n')
  chmodSync(join(bin, 'only-here'), 0o755)
  const shims = trailbossBinDir(join(td, 'shims'))
  const host = await startSshHost(join(td, 'h'), 'own', { path: `${shims}:${bin}:/usr/bin:/bin`, env: { TRAILBOSS_HOME: '/srv/tb' } })
  t.teardown(() => host.stop())
  const own = join(td, 'own_config')
  writeSshConfig(own, [host])
  t.equal(lstatSync(own).mode & 0o777, 0o600)
  t.notMatch(host.configText, /Control|BatchMode|ConnectTimeout/)
  const env = freshEnv(t, { TRAILBOSS_SSH_CONFIG: own })
  const r = await runSsh(env, 'own', ['only-here'])
  t.same(r.ok && r.stdout, 'here /srv/tb\n')
  const tmux = await runSsh(env, 'own', ['printenv', 'TMUX_TMPDIR'])
  t.same(tmux.ok && tmux.stdout, `${host.tmuxTmpdir}\n`)
  t.equal(lstatSync(host.tmuxTmpdir).mode & 0o777, 0o700)
  // This checkout's build answers as `trailboss` there (npm run build first).
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  const tb = await runSsh(env, 'own', ['trailboss', '--version'])
  t.same(tb.ok && tb.stdout.trim(), version)
  const emit = await runSsh(env, 'own', ['command', '-v', 'trailboss-emit'])
  t.same(emit.ok && emit.stdout, `${join(shims, 'trailboss-emit')}\n`)
})
