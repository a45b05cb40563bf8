// doctor over real hosts (docs/design.md §10.6): OpenSSH servers on loopback, one set up right and
// one for each way a host goes wrong: no trailboss on the PATH ssh commands get, no node there,
// an old trailboss, a host stopped, a host gone silent. Each gets its own check and its fix;
// the hosts list and the socket folder are checked too.
import { checkRemoteAnswer } from '../lib/remote/answer.js'
import t from 'tap'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRemoteLab } from './helpers/remote-lab.js'
import { checkControlDir, checkHost, checkHostsFile, parseRemoteVersion } from '../lib/doctor/host-checks.js'
import type { SshResult } from '../lib/remote/ssh-run.js'

interface Report {
  ok: boolean
  checks: { id: string; status: string; summary: string; fix: string | null }[]
}

const root = t.testdir()
// An old Trail Boss: version 0.0.1, whose ls --json is of version 1.
const oldBin = join(root, 'old-bin')
mkdirSync(oldBin)
writeFileSync(
  join(oldBin, 'trailboss'),
  '#!/bin/sh\nif [ "$1" = --version ]; then echo 0.0.1; exit 0; fi\necho \'{"version":1,"queue":[]}\'\n',
)
chmodSync(join(oldBin, 'trailboss'), 0o755)
// A trailboss as npm installs it (a node script), on a PATH without node.
const noNodeBin = join(root, 'no-node-bin')
mkdirSync(noNodeBin)
writeFileSync(join(noNodeBin, 'trailboss'), '#!/usr/bin/env node\nconsole.log("0.1.0")\n')
chmodSync(join(noNodeBin, 'trailboss'), 0o755)

const lab = await startRemoteLab(t, ['good', 'nopath', 'nonode', 'old', 'down', 'silent'], {
  pathFirst: { old: oldBin },
  pathOnly: { nopath: '/usr/bin:/bin', nonode: noNodeBin },
})
await lab.hosts.down!.stop()
lab.hosts.silent!.pause()
t.teardown(() => lab.hosts.silent!.resume())

// Asserted by the tests that read it: an assertion out here would end the file's test first.
const doctorJson = async (extra: Record<string, string> = {}): Promise<Report & { code: number | null }> => {
  const r = await lab.run(['doctor', '--json'], extra)
  return { ...(JSON.parse(r.stdout) as Report), code: r.code }
}

const report = await doctorJson()
const text = await lab.run(['doctor'])
const check = (id: string) => report.checks.find((c) => c.id === id)

t.test('the list and a host set up right pass', async (t) => {
  t.equal(report.code, 1, 'the hosts set up wrong fail doctor')
  t.match(check('hosts'), { status: 'ok', summary: /6 remote hosts listed in .*hosts\.json/ })
  t.match(check('host:good'), {
    status: 'ok',
    summary: /good: reached without a prompt, trailboss \d+\.\d+\.\d+, its queue read \(0 items\)/,
  })
  t.match(check('ssh-sockets'), { status: 'ok', summary: /cm \(ssh connection sockets\) is private to you/ })
  t.same(
    report.checks.filter((c) => c.id.startsWith('host:')).map((c) => c.id),
    ['host:good', 'host:nopath', 'host:nonode', 'host:old', 'host:down', 'host:silent'],
    "one check a host, in the list's order, after this machine's",
  )
  t.equal(report.checks.at(-1)?.id, 'host:silent', 'the hosts come last')
})

t.test('no trailboss on the PATH ssh commands get: said, with where to set PATH', async (t) => {
  const c = check('host:nopath')
  t.match(c, { status: 'fail', summary: /nopath: trailboss is not on the PATH ssh commands get/ })
  t.match(c?.fix, /~\/\.zshenv/)
  t.match(c?.fix, /~\/\.bashrc, before the line that returns when not interactive/)
  t.match(c?.fix, /ln -s "\$\(command -v trailboss\)" \/usr\/local\/bin\//)
  t.notMatch(c?.fix, /\.ssh\/environment/, 'not a file sshd reads only when PermitUserEnvironment is on')
  t.match(
    text.stdout,
    /✗ nopath: trailboss is not on the PATH[^\n]*\n {4}→ ssh runs commands in a non-interactive shell/,
    'the fix is printed',
  )
})

t.test('trailboss there but not node: said apart', async (t) => {
  t.match(check('host:nonode'), {
    status: 'fail',
    summary: /nonode: trailboss is there but node is not on the PATH/,
    fix: /folder of node/,
  })
})

t.test('an old trailboss is told to update', async (t) => {
  t.match(check('host:old'), {
    status: 'fail',
    summary: /old: runs trailboss 0\.0\.1, whose queue cannot be read here: its ls --json is version 1, this one reads 2/,
    fix: /update Trail Boss on old \(it runs trailboss 0\.0\.1, this machine \d+\.\d+\.\d+\): npm install -g trailboss@latest there/,
  })
})

t.test('a host stopped or silent: a warning within the bound, not a failure of this setup', async (t) => {
  t.match(check('host:down'), {
    status: 'warn',
    summary: /down: did not answer \(.*Connection refused.*\)/,
    fix: /trailboss hosts rm down/,
  })
  t.match(check('host:silent'), { status: 'warn', summary: /silent: no answer within the bound/ })
})

t.test('a hosts list that cannot be read fails, and no host is asked', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'tb-dr-'))
  t.teardown(() => rmSync(home, { recursive: true, force: true }))
  chmodSync(home, 0o700)
  writeFileSync(join(home, 'hosts.json'), '{"v":1,"hosts":[{"destination":"-oProxyCommand=x","addedAt":"2025-01-01T00:00:00.000Z"}]}', {
    mode: 0o600,
  })
  const r = await doctorJson({ TRAILBOSS_HOME: home })
  t.equal(r.ok, false)
  t.match(
    r.checks.find((c) => c.id === 'hosts'),
    { status: 'fail', summary: /hosts\.json: lists "-oProxyCommand=x", which is not an ssh destination/, fix: /fix it or move it away/ },
  )
  t.notOk(
    r.checks.some((c) => c.id.startsWith('host:')),
    'no host check',
  )
})

t.test('a socket folder that is a link fails', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'tb-dr-'))
  t.teardown(() => rmSync(home, { recursive: true, force: true }))
  chmodSync(home, 0o700)
  const elsewhere = join(home, 'elsewhere')
  mkdirSync(elsewhere, { mode: 0o700 })
  symlinkSync(elsewhere, join(home, 'cm'))
  writeFileSync(join(home, 'hosts.json'), JSON.stringify({ v: 1, hosts: [{ destination: 'good', addedAt: '2025-01-01T00:00:00.000Z' }] }), {
    mode: 0o600,
  })
  const r = await doctorJson({ TRAILBOSS_HOME: home })
  t.match(
    r.checks.find((c) => c.id === 'ssh-sockets'),
    { status: 'fail', summary: /cm is a link: ssh connections to the hosts are not shared/ },
  )
  t.match(
    r.checks.find((c) => c.id === 'host:good'),
    { status: 'ok' },
    'the host is read all the same, without a shared connection',
  )
})

// Pure cases the lab does not stage.
const failed = (reason: Extract<SshResult, { ok: false }>['reason'], stderr: string, code: number | null = 255): SshResult => ({
  ok: false,
  reason,
  message: stderr.split('\n')[0] ?? '',
  code,
  stderr,
  ms: 1,
})
const answered = (stdout: string): SshResult => ({ ok: true, stdout, stderr: '', ms: 1 })
const LS = JSON.stringify({ version: 2, queue: [], tmux: 'ok', skipped: [], digest: '22c7d43a4aa38246', hosts: [] })

t.test('verdicts', async (t) => {
  const probe = async (version: SshResult, listing: SshResult | null = null) =>
    checkHost({ destination: 'devbox', version, listing, answer: listing?.ok ? await checkRemoteAnswer(listing.stdout) : null }, '1.2.0')
  t.match(await probe(failed('connect', 'me@devbox: Permission denied (publickey).')), {
    status: 'fail',
    summary: /cannot log in without a prompt/,
    fix: /ssh-copy-id devbox/,
  })
  const hostKey = await probe(
    failed('connect', 'No ED25519 host key is known for devbox and you have requested strict checking.\nHost key verification failed.'),
  )
  t.match(hostKey, { status: 'fail', summary: /host key is not known/ })
  t.notMatch(hostKey.fix, /StrictHostKeyChecking|accept-new|UserKnownHostsFile/, 'never weakened')
  t.match(await probe(failed('connect', 'ssh: Could not resolve hostname devbox: Name or service not known')), {
    status: 'fail',
    summary: /does not know this name/,
  })
  t.match(await probe(failed('exit', 'bash: line 1: trailboss: command not found', 127)), { status: 'fail', summary: /not on the PATH/ })
  t.match(await probe(failed('exit', 'zsh:1: command not found: trailboss', 127)), { status: 'fail', summary: /not on the PATH/ })
  t.match(await probe(failed('no-ssh', '', null)), { status: 'fail', summary: /ssh cannot be run here/ })
  t.match(await probe(answered('1.2.0\n'), answered(LS)), { status: 'ok' })
  t.match(await probe(answered('1.1.0\n'), answered(LS)), { status: 'warn', fix: /update Trail Boss on devbox/ })
  t.match(await probe(answered('1.3.0\n'), answered(LS)), { status: 'warn', fix: /update Trail Boss here to 1\.3\.0/ })
  t.match(await probe(answered('1.2.0\n'), answered('\x1b]0;hi\x07')), { status: 'fail', summary: /its answer is not JSON/ })
  t.match(await probe(answered('1.2.0\n'), failed('timeout', 'no answer within 3 s', null)), {
    status: 'warn',
    summary: /did not come within the bound/,
  })
  t.equal(parseRemoteVersion('v1.2.3\n'), '1.2.3')
  t.equal(parseRemoteVersion('\x1b[2J1.2.3'), null, 'anything else is no version')
  t.match(checkHostsFile('/h/hosts.json', 1, null), { status: 'ok', summary: '1 remote host listed in /h/hosts.json' })
  t.match(checkControlDir({ path: '/h/cm', persistS: 60, kind: 'dir', mode: 0o755, ownedByMe: true }), {
    status: 'fail',
    fix: 'chmod 700 /h/cm',
  })
  t.match(checkControlDir({ path: '/h/cm', persistS: 60, kind: 'dir', mode: 0o700, ownedByMe: false }), {
    status: 'fail',
    summary: /another user/,
  })
  t.match(checkControlDir({ path: '/h/cm', persistS: 0, kind: 'missing', mode: null, ownedByMe: true }), { status: 'info' })
})
