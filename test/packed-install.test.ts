// Found in issue #18: installed, `trailboss --version` printed `unknown` (the bundled yargs
// cannot find package.json), and `npm install -g .` links the clone. The version now comes from
// the build; here the built CLI answers it from a copy far from the clone, and a packed copy
// installed into a temp prefix (as the README says) runs on its own. Run `npm run build` first.
import { execFileSync, spawnSync } from 'node:child_process'
import { lstatSync, readFileSync, readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { copyBuilt } from './helpers/navigate-records.js'
import { tempDir } from './helpers/emitter.js'

t.setTimeout(180_000)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: process.env.HOME }

t.test('--version from the built bundle, far from any package.json', async (t) => {
  const built = await copyBuilt(t)
  const r = spawnSync(process.execPath, [built.cli, '--version'], { cwd: tempDir(t), env, encoding: 'utf8', timeout: 20_000 })
  t.equal(r.status, 0, r.stderr)
  t.equal(r.stdout.trim(), version)
})

t.test('npm pack, then npm install -g of the packed copy into a temp prefix', async (t) => {
  const dir = tempDir(t)
  // The dist already built; the cache of `npm ci` serves the dependencies.
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
    cwd: ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))
  t.ok(tgz, 'a tarball')
  const prefix = join(dir, 'prefix')
  execFileSync(
    'npm',
    ['install', '-g', '--prefix', prefix, join(dir, tgz!), '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
    {
      cwd: dir,
      // npm may still ask the registry about a package: give it back the machine's extra CAs.
      env: { ...process.env, NODE_EXTRA_CA_CERTS: process.env.TRAILBOSS_TEST_CA_CERTS },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  const bin = join(prefix, 'bin')
  const installed = realpathSync(join(bin, 'trailboss'))
  t.ok(installed.startsWith(realpathSync(prefix)), `the command is the packed copy, not a link into the clone (${installed})`)
  t.notOk(lstatSync(join(prefix, 'lib', 'node_modules', 'trailboss')).isSymbolicLink(), 'the package folder is a copy')
  const run = (name: string, args: string[], input = ''): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(join(bin, name), args, {
      cwd: dir,
      env: { PATH: `${bin}:${process.env.PATH}`, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: dir, TRAILBOSS_HOME: join(dir, 'tb') },
      input,
      encoding: 'utf8',
      timeout: 20_000,
    })
  const v = run('trailboss', ['--version'])
  t.equal(v.status, 0, v.stderr)
  t.equal(v.stdout.trim(), version)
  const e = run('trailboss-emit', [], 'not json')
  t.equal(e.status, 0, 'the emitter runs from the packed copy and exits 0 whatever stdin holds')
  const ls = run('trailboss', ['ls', '--json'])
  t.equal(ls.status, 0, ls.stderr)
  t.match(JSON.parse(ls.stdout), { version: 2, queue: [] })
})
