// What ssh is run with: the person's config file when given, batch mode and the bounds, a shared
// connection whose socket path fits a Unix socket, no option that touches host-key checking, and
// nothing sent to a remote shell that it would read as more than a word.
import t from 'tap'
import { join } from 'node:path'
import {
  assertSafeDestination,
  assertSafeRemoteWord,
  CONTROL_DIR_MAX_BYTES,
  controlDir,
  SSH_CONNECT_TIMEOUT_S,
  sshArgs,
  sshControlArgs,
  sshPersistSeconds,
} from '../lib/remote/ssh-args.js'

const env = { TRAILBOSS_HOME: '/home/p/.trailboss', TRAILBOSS_SSH_CONFIG: '/etc/tb/ssh_config' }

/** The value of each `-o Name=value` in `args`, by name. */
const options = (args: readonly string[]): Map<string, string> => {
  const m = new Map<string, string>()
  args.forEach((a, i) => {
    if (a === '-o') {
      const [k = '', ...v] = (args[i + 1] ?? '').split('=')
      m.set(k, v.join('='))
    }
  })
  return m
}

t.test('a call: config, batch mode, bounds, a shared connection, then -- and the words', async (t) => {
  const args = sshArgs(env, 'devbox', ['trailboss', 'ls', '--json'])
  t.same(args.slice(0, 2), ['-F', '/etc/tb/ssh_config'])
  t.equal(args[args.indexOf('--') - 1], '-T')
  t.same(args.slice(args.indexOf('--')), ['--', 'devbox', 'trailboss', 'ls', '--json'])
  const o = options(args)
  t.equal(o.get('BatchMode'), 'yes')
  t.equal(o.get('ConnectTimeout'), String(SSH_CONNECT_TIMEOUT_S))
  t.ok(Number(o.get('ServerAliveInterval')) > 0)
  t.equal(o.get('ControlMaster'), 'auto')
  t.equal(o.get('ControlPath'), '/home/p/.trailboss/cm/%C')
  t.equal(o.get('ControlPersist'), '60')
  for (const weak of ['StrictHostKeyChecking', 'UserKnownHostsFile', 'GlobalKnownHostsFile', 'CheckHostIP', 'UpdateHostKeys']) {
    t.notOk(o.has(weak), `no ${weak}`)
  }
  t.notOk(
    args.some((a) => /hostkey/i.test(a)),
    'nothing about host keys at all',
  )
})

t.test('no config file unless one is named; a terminal when asked; no sharing when told', async (t) => {
  const args = sshArgs({ TRAILBOSS_HOME: '/h' }, 'devbox', [], { tty: true, master: false })
  t.notOk(args.includes('-F'))
  t.ok(args.includes('-t'))
  t.notOk(args.includes('-T'))
  t.equal(options(args).get('ControlMaster'), 'no')
  t.equal(options(args).get('ControlPath'), 'none')
  t.notOk(options(args).has('ControlPersist'))
})

t.test('TRAILBOSS_SSH_PERSIST: seconds, 0 shares no connection, anything else is the default', async (t) => {
  for (const [raw, s] of [
    [undefined, 60],
    ['', 60],
    ['0', 0],
    ['5', 5],
    [' 120 ', 120],
    ['86400', 86400],
    ['86401', 60],
    ['-1', 60],
    ['1.5', 60],
    ['yes', 60],
  ] as const) {
    t.equal(sshPersistSeconds({ TRAILBOSS_SSH_PERSIST: raw }), s, `${JSON.stringify(raw)} -> ${s}`)
  }
  const off = options(sshArgs({ ...env, TRAILBOSS_SSH_PERSIST: '0' }, 'devbox', []))
  t.equal(off.get('ControlMaster'), 'no')
  t.equal(off.get('ControlPath'), 'none')
  t.equal(options(sshArgs({ ...env, TRAILBOSS_SSH_PERSIST: '7' }, 'devbox', [])).get('ControlPersist'), '7')
})

t.test('the socket folder: in the home when short and plain, else a short one of this user in /tmp', async (t) => {
  t.equal(controlDir({ TRAILBOSS_HOME: '/home/p/.trailboss' }), '/home/p/.trailboss/cm')
  const long = `/home/${'p'.repeat(60)}/.trailboss`
  const fallback = controlDir({ TRAILBOSS_HOME: long }, 1000)
  t.match(fallback, /^\/tmp\/tb-cm-1000-[0-9a-f]{8}$/)
  t.equal(controlDir({ TRAILBOSS_HOME: long }, 1000), fallback, 'the same home, the same folder')
  t.not(controlDir({ TRAILBOSS_HOME: `${long}2` }, 1000), fallback, 'another home, another folder')
  t.not(controlDir({ TRAILBOSS_HOME: long }, 1001), fallback, 'another user, another folder')
  for (const odd of ['/home/a b/.tb', '/home/100%/.tb']) {
    t.match(controlDir({ TRAILBOSS_HOME: odd }, 0), /^\/tmp\/tb-cm-0-/, `${odd}: ssh would read the path as config`)
  }
  // The longest folder kept in the home, and one byte more.
  const edge = `/${'h'.repeat(CONTROL_DIR_MAX_BYTES - 4)}`
  t.equal(controlDir({ TRAILBOSS_HOME: edge }), join(edge, 'cm'))
  t.match(controlDir({ TRAILBOSS_HOME: `${edge}x` }), /^\/tmp\/tb-cm-/)
  // ssh binds `<dir>/<40 hex of %C>.<16 random>` first: under 108 bytes in every case.
  for (const home of [edge, `${edge}x`, long]) {
    t.ok(Buffer.byteLength(`${controlDir({ TRAILBOSS_HOME: home }, 4294967294)}/${'c'.repeat(40)}.${'r'.repeat(16)}`) < 108)
  }
})

t.test('remote words: only plain words reach the remote shell', async (t) => {
  for (const w of ['trailboss', 'ls', '--json', '--host=a', 'key:abc_1-2', '/dev/zero', '5000000', '%C'])
    t.equal(assertSafeRemoteWord(w), w)
  for (const w of [
    '',
    'a b',
    'a;b',
    '$(id)',
    '`id`',
    'a|b',
    'a&b',
    '>f',
    "it's",
    '"x"',
    '~',
    '*',
    'a\nb',
    'a\\b',
    'é',
    '{a,b}',
    '!x',
    '#c',
  ]) {
    t.throws(() => assertSafeRemoteWord(w), { name: 'TrailbossError' }, JSON.stringify(w))
    t.throws(() => sshArgs(env, 'devbox', ['echo', w]), { name: 'TrailbossError' }, `sshArgs refuses ${JSON.stringify(w)}`)
  }
})

t.test('destinations: never an option, never a word with spaces or controls', async (t) => {
  for (const d of ['devbox', 'me@dev.example.com', 'gpu-1', 'ssh://me@host:2222', '10.0.0.1', 'fe80::1%eth0'])
    t.equal(assertSafeDestination(d), d)
  for (const d of ['', '-oProxyCommand=id', '-p', 'a b', 'host\n', 'a;b', '$(id)', 'x'.repeat(300), '\u001b[31mhost']) {
    t.throws(() => assertSafeDestination(d), { name: 'TrailbossError' }, JSON.stringify(d))
    t.throws(() => sshArgs(env, d, ['true']), { name: 'TrailbossError' })
    t.throws(() => sshControlArgs(env, d, 'exit'), { name: 'TrailbossError' })
  }
})

t.test('-O check/exit look for the socket even with sharing off now', async (t) => {
  const args = sshControlArgs({ ...env, TRAILBOSS_SSH_PERSIST: '0' }, 'devbox', 'exit')
  t.same(args, ['-F', '/etc/tb/ssh_config', '-o', 'ControlPath=/home/p/.trailboss/cm/%C', '-O', 'exit', '--', 'devbox'])
})
