// The list of remote hosts: `trailboss hosts add|rm|ls` as the built CLI in a child process, over
// a private TRAILBOSS_HOME; the names it accepts and the hashes that name per-host files.
import * as fs from 'node:fs'
import t from 'tap'
import { checkDestination, DESTINATION_MAX, destinationHash } from '../lib/remote/host-name.js'
import { hostsFile, readHosts } from '../lib/remote/hosts-file.js'
import { runCli } from './helpers/cli.js'
import { baseEnv, tempDir } from './helpers/emitter.js'

const homeOf = (env: Record<string, string | undefined>): string => String(env.TRAILBOSS_HOME)
const modeOf = (path: string): number => fs.statSync(path).mode & 0o777

t.test('checkDestination takes what ssh takes as a destination word, and nothing a shell or ssh reads as more', async (t) => {
  const good = ['devbox', 'me@devbox', 'me@10.0.0.7', '[::1]', 'me@[fe80::1%eth0]', 'gpu-01.lab_b', 'x'.repeat(DESTINATION_MAX)]
  for (const d of good) t.equal(checkDestination(d), null, `${JSON.stringify(d.slice(0, 20))} is fine`)
  const bad: [string, RegExp][] = [
    ['', /empty/],
    ['x'.repeat(DESTINATION_MAX + 1), /longer than 253/],
    ['-oProxyCommand=x', /starts with -/],
    ['-', /starts with -/],
    ['a b', /character/],
    ['a;b', /character/],
    ['$(x)', /character/],
    ['`x`', /character/],
    ['a|b', /character/],
    ['a/b', /character/],
    ['ssh://me@devbox:22', /character/],
    ['a\nb', /character/],
    ['a\tb', /character/],
    ['a\u001b[2Jb', /character/],
    ["a'b", /character/],
    ['a=b', /character/],
    ['dévbox', /character/],
    ['local', /names this machine/],
  ]
  for (const [d, why] of bad) t.match(checkDestination(d), why, `${JSON.stringify(d.slice(0, 20))} is refused`)
})

t.test('destinationHash: 12 hex digits of sha256, the same for the same name', async (t) => {
  // sha256sum of each name, by the shell.
  t.equal(destinationHash('devbox'), '2ff8ddd61f5e')
  t.equal(destinationHash('me@[fe80::1%eth0]'), '7913696e5156')
  t.match(destinationHash('x'.repeat(DESTINATION_MAX)), /^[0-9a-f]{12}$/)
  t.not(destinationHash('devbox'), destinationHash('Devbox'))
})

t.test('add, ls and rm: a round trip through a private file in a private folder', async (t) => {
  const env = baseEnv(tempDir(t))
  const home = homeOf(env)
  // A home the person made loose is tightened; the list is the person's own.
  fs.mkdirSync(home, { mode: 0o755 })
  fs.chmodSync(home, 0o755)

  const empty = await runCli(['hosts', 'ls'], env)
  t.same(empty, { code: 0, stdout: '', stderr: '' }, 'no file: no hosts, no complaint')

  const added = await runCli(['hosts', 'add', 'devbox'], env)
  t.same(added, { code: 0, stdout: 'added devbox; check it with: trailboss doctor\n', stderr: '' })
  t.equal(modeOf(home), 0o700, 'the home is 0700')
  t.equal(modeOf(hostsFile(env)), 0o600, 'hosts.json is 0600')
  t.equal((await runCli(['hosts', 'add', 'me@[fe80::1%eth0]'], env)).code, 0)

  const again = await runCli(['hosts', 'add', 'devbox'], env)
  t.same(again, { code: 0, stdout: 'devbox is listed already\n', stderr: '' }, 'a second add says so, exit 0')

  const ls = await runCli(['hosts', 'ls'], env)
  t.same(ls, { code: 0, stdout: 'devbox\nme@[fe80::1%eth0]\n', stderr: '' }, 'one destination a line, in the order added')
  t.same(readHosts(env), { hosts: ['devbox', 'me@[fe80::1%eth0]'], problem: null }, 'what the CLI wrote, the reader reads')

  const json = await runCli(['hosts', 'ls', '--json'], env)
  t.equal(json.code, 0, json.stderr)
  const doc = JSON.parse(json.stdout) as { version: number; hosts: { destination: string; addedAt: string }[] }
  t.same(Object.keys(doc), ['version', 'hosts'])
  t.equal(doc.version, 1)
  t.same(
    doc.hosts.map((h) => Object.keys(h)),
    [
      ['destination', 'addedAt'],
      ['destination', 'addedAt'],
    ],
  )
  t.same(
    doc.hosts.map((h) => h.destination),
    ['devbox', 'me@[fe80::1%eth0]'],
  )
  for (const h of doc.hosts) t.ok(Math.abs(Date.parse(h.addedAt) - Date.now()) < 10 * 60_000, `${h.addedAt} is when it was added`)
  t.same(JSON.parse(fs.readFileSync(hostsFile(env), 'utf8')), { v: 1, hosts: doc.hosts }, 'the file holds the same')

  const rm = await runCli(['hosts', 'rm', 'devbox'], env)
  t.same(rm, { code: 0, stdout: 'removed devbox\n', stderr: '' })
  const absent = await runCli(['hosts', 'rm', 'devbox'], env)
  t.same(absent, { code: 0, stdout: 'devbox is not listed\n', stderr: '' }, 'removing an absent host says so, exit 0')
  t.same((await runCli(['hosts', 'ls'], env)).stdout, 'me@[fe80::1%eth0]\n')
  t.equal(modeOf(hostsFile(env)), 0o600, 'still 0600 after a rewrite')
  t.same(fs.readdirSync(home).sort(), ['hosts.json'], 'no temp file or lock is left behind')
})

t.test('two adds at once both land (the lock)', async (t) => {
  const env = baseEnv(tempDir(t))
  const names = ['h1', 'h2', 'h3', 'h4']
  const results = await Promise.all(names.map((n) => runCli(['hosts', 'add', n], env)))
  for (const r of results) t.equal(r.code, 0, r.stderr)
  t.same(readHosts(env).hosts.sort(), names)
})

t.test('a bad name is a usage error, and nothing is written', async (t) => {
  const env = baseEnv(tempDir(t))
  const bad: string[][] = [['-oProxyCommand=x'], ['--', '-oProxyCommand=x'], ['a b'], ['a;b'], ['$(x)'], [''], ['x'.repeat(254)]]
  for (const verb of ['add', 'rm']) {
    for (const words of bad) {
      const r = await runCli(['hosts', verb, ...words], env)
      t.equal(r.code, 2, `${verb} ${JSON.stringify(words)}: exit 2`)
      t.equal(r.stdout, '')
      t.match(r.stderr, /^trailboss: .+ — .+\n$/, `one line: ${r.stderr.trim()}`)
    }
  }
  t.notOk(fs.existsSync(homeOf(env)), 'not even the home was made')
  const missing = await runCli(['hosts', 'add'], env)
  t.same(missing, {
    code: 2,
    stdout: '',
    stderr: 'trailboss: hosts needs an ssh destination — e.g. trailboss hosts add devbox; trailboss hosts ls lists them\n',
  })
  const none = await runCli(['hosts'], env)
  t.equal(none.code, 2)
  t.match(none.stderr, /name what to do: add, rm or ls/)

  t.equal((await runCli(['hosts', 'add', 'devbox'], env)).code, 0)
  const before = fs.readFileSync(hostsFile(env), 'utf8')
  t.equal((await runCli(['hosts', 'add', 'a;b'], env)).code, 2)
  t.equal(fs.readFileSync(hostsFile(env), 'utf8'), before, 'a listed file is left unchanged')
  t.match((await runCli(['hosts', 'add', 'a;b'], env)).stderr, /"a;b" is not an ssh destination/)
})

t.test('a file that is not a list of ours is said and left as it is', async (t) => {
  const cases: [string, (file: string) => void, RegExp][] = [
    ['not JSON', (f) => fs.writeFileSync(f, '{"v":1,', { mode: 0o600 }), /not JSON/],
    ['another version', (f) => fs.writeFileSync(f, '{"v":2,"hosts":[]}', { mode: 0o600 }), /not a hosts list of version 1/],
    ['another shape', (f) => fs.writeFileSync(f, '{"v":1,"hosts":["devbox"]}', { mode: 0o600 }), /not a hosts list/],
    [
      'a name ssh would take for an option',
      (f) => fs.writeFileSync(f, JSON.stringify({ v: 1, hosts: [{ destination: '-oProxyCommand=x', addedAt: '' }] }), { mode: 0o600 }),
      /"-oProxyCommand=x", which is not an ssh destination \(starts with -\)/,
    ],
    ['a link', (f) => fs.symlinkSync('/etc/hostname', f), /a symlink, not followed/],
    ['a folder', (f) => fs.mkdirSync(f), /a folder/],
  ]
  for (const [name, make, said] of cases) {
    await t.test(name, async (t) => {
      const env = baseEnv(tempDir(t))
      fs.mkdirSync(homeOf(env), { mode: 0o700 })
      const file = hostsFile(env)
      make(file)
      const snapshot = (): string => (fs.lstatSync(file).isFile() ? fs.readFileSync(file, 'utf8') : String(fs.lstatSync(file).mode))

      const before = snapshot()
      t.match(readHosts(env), { hosts: [], problem: said })
      for (const args of [
        ['hosts', 'ls'],
        ['hosts', 'ls', '--json'],
      ]) {
        const ls = await runCli(args, env)
        t.equal(ls.code, 1, `${args.join(' ')}: exit 1`)
        t.equal(ls.stdout, '', 'nothing on stdout: not taken for an empty list')
        t.match(ls.stderr, said)
        t.match(ls.stderr, /left as it is/)
      }
      for (const verb of ['add', 'rm']) {
        const r = await runCli(['hosts', verb, 'gpu'], env)
        t.equal(r.code, 1, `${verb} refuses`)
        t.match(r.stderr, said)
        t.match(r.stderr, new RegExp(`gpu was not ${verb === 'add' ? 'added' : 'removed'}`))
      }
      t.equal(snapshot(), before, 'the file is as it was')
      t.same(fs.readdirSync(homeOf(env)), ['hosts.json'], 'no temp file or lock is left behind')
    })
  }
})
