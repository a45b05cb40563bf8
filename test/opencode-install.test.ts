import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { deriveOpencodeChecks, opencodeDoctor } from '../lib/agents/opencode/doctor.js'
import { opencodePluginFileFor } from '../lib/agents/opencode/paths.js'
import { isOurPlugin, opencodePluginSource, readPluginEmitter } from '../lib/agents/opencode/plugin.js'
import { runCli, runInProcess } from './helpers/cli.js'
import { BUILT_EMITTER } from './helpers/emitter.js'

const setUp = (t: { teardown: (fn: () => void) => void }) => {
  const home = fs.mkdtempSync(join(tmpdir(), 'tb-opencode-install-'))
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }))
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(home, 'tb') }
  return { home, env, file: join(home, '.config', 'opencode', 'plugins', 'trailboss.js') }
}

t.test('the plugin file of a scope', async (t) => {
  t.equal(opencodePluginFileFor('user', { HOME: '/h' }, '/p'), '/h/.config/opencode/plugins/trailboss.js')
  t.equal(opencodePluginFileFor('user', { HOME: '/h', XDG_CONFIG_HOME: '/x' }, '/p'), '/x/opencode/plugins/trailboss.js')
  t.equal(opencodePluginFileFor('user', { HOME: '/h', XDG_CONFIG_HOME: 'rel' }, '/p'), '/h/.config/opencode/plugins/trailboss.js')
  t.equal(opencodePluginFileFor('project', { HOME: '/h' }, '/p'), '/p/.opencode/plugins/trailboss.js')
  t.throws(() => opencodePluginFileFor('local', { HOME: '/h' }, '/p'), /no local plugins folder/)
})

t.test('install writes the plugin, a second changes nothing, uninstall removes it and the folders it made', async (t) => {
  const { home, env, file } = setUp(t)
  const dry = await runCli(['install', '--agent', 'opencode', '--dry-run'], env)
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, /\(new file\)/)
  t.notOk(fs.existsSync(join(home, '.config')), '--dry-run writes nothing')
  const inst = await runCli(['install', '--agent', 'opencode'], env)
  t.equal(inst.code, 0, inst.stderr)
  t.match(inst.stdout, /installed ours \(user scope\) in .*trailboss\.js/)
  const text = fs.readFileSync(file, 'utf8')
  t.ok(isOurPlugin(text))
  t.match(readPluginEmitter(text), { command: /(^|\/)node$/, args: [BUILT_EMITTER] }, 'it folds with this package’s emitter')
  t.equal(fs.statSync(file).mode & 0o777, 0o600)
  const again = await runCli(['install', '--agent', 'opencode'], env)
  t.match(again.stdout, /already installed \(user scope\) in .*; nothing changed/)
  const undry = await runCli(['uninstall', '--agent', 'opencode', '--dry-run'], env)
  t.match(undry.stdout, /\(removed\)/)
  t.ok(fs.existsSync(file), 'uninstall --dry-run removes nothing')
  const un = await runCli(['uninstall', '--agent', 'opencode'], env)
  t.equal(un.code, 0, un.stderr)
  t.notOk(fs.existsSync(file))
  t.notOk(fs.existsSync(join(home, '.config')), 'the folders install made are gone too')
  t.match((await runCli(['uninstall', '--agent', 'opencode'], env)).stdout, /nothing of ours/)
})

t.test('a foreign file in our place is refused, byte for byte untouched; the folder keeps its other plugins', async (t) => {
  const { env, file } = setUp(t)
  fs.mkdirSync(join(file, '..'), { recursive: true })
  const foreign = '// my own plugin\nexport const Mine = async () => ({})\n'
  fs.writeFileSync(file, foreign)
  const other = join(file, '..', 'other.js')
  fs.writeFileSync(other, 'export const Other = async () => ({})\n')
  for (const args of [['install'], ['install', '--dry-run'], ['uninstall']]) {
    const r = await runCli([...args, '--agent', 'opencode'], env)
    t.equal(r.code, 1, `${args.join(' ')} refuses`)
    t.match(r.stderr, /is not ours; left it untouched/)
    t.equal(fs.readFileSync(file, 'utf8'), foreign)
  }
  fs.rmSync(file)
  t.equal((await runCli(['install', '--agent', 'opencode'], env)).code, 0)
  t.equal((await runCli(['uninstall', '--agent', 'opencode'], env)).code, 0)
  t.equal(fs.readFileSync(other, 'utf8'), 'export const Other = async () => ({})\n', 'another plugin is left as it was')
})

t.test('an older plugin of ours is replaced, with a backup; --scope project runs trailboss-emit from PATH', async (t) => {
  const { home, env, file } = setUp(t)
  fs.mkdirSync(join(file, '..'), { recursive: true })
  const old = opencodePluginSource({ command: '/old/node', args: ['/old/emit.cjs'] })
  fs.writeFileSync(file, old)
  const inst = await runCli(['install', '--agent', 'opencode'], env)
  t.equal(inst.code, 0, inst.stderr)
  const backup = /backup of the previous file: (.*)/.exec(inst.stdout)?.[1]
  t.equal(backup && fs.readFileSync(backup, 'utf8'), old)
  t.match(readPluginEmitter(fs.readFileSync(file, 'utf8')), { args: [BUILT_EMITTER] })
  const project = join(home, 'proj')
  fs.mkdirSync(project)
  const r = await runInProcess(['install', '--agent', 'opencode', '--scope', 'project'], env, '', project)
  t.equal(r.code, 0, r.stderr)
  t.same(readPluginEmitter(fs.readFileSync(join(project, '.opencode', 'plugins', 'trailboss.js'), 'utf8')), {
    command: 'trailboss-emit',
    args: [],
  })
  t.equal((await runCli(['install', '--agent', 'opencode', '--scope', 'local'], env)).code, 2)
})

t.test('doctor: nothing when OpenCode is not set up; the plugin, and an emitter that is gone', async (t) => {
  const { env, file } = setUp(t)
  t.same(opencodeDoctor({ env, cwd: '/', known: [], now: Date.now() }), [])
  t.equal((await runCli(['install', '--agent', 'opencode'], env)).code, 0)
  t.match(opencodeDoctor({ env, cwd: '/', known: [], now: Date.now() }), [
    { id: 'opencode:plugin', status: 'ok', summary: /our plugin in/ },
  ])
  const text = fs.readFileSync(file, 'utf8')
  t.match(
    deriveOpencodeChecks([{ file, text }], () => false),
    [{ status: 'fail', summary: /which is not there/ }],
  )
  t.match(
    deriveOpencodeChecks([{ file, text: '// mine' }], () => true),
    [{ status: 'info', summary: /is not ours/ }],
  )
  t.match(
    deriveOpencodeChecks([{ file, text: null, error: 'a FIFO' }], () => true),
    [{ status: 'warn' }],
  )
  t.match(
    deriveOpencodeChecks([{ file, text }], () => true, [120_000]),
    [{ status: 'ok' }, { id: 'opencode:spool', status: 'warn' }],
  )
})
