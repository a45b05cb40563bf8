import { execFile, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { captureIo } from './helpers/io.js'
import { runInstall, runUninstall } from '../lib/commands/install.js'
import { HOOK_EVENTS, listOurHooks, unmergeHooks } from '../lib/agents/claude-code/settings-hooks.js'
import type { Json, JsonObject } from '../lib/settings/json-value.js'
import { CLAUDE_QUIET_ENV } from './helpers/claude-quiet-env.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'dist', 'bin', 'trailboss.cjs')
const EMITTER = join(ROOT, 'dist', 'hooks', 'emit.cjs')
/** This checkout's emitter: its folder need not be named trailboss. */
const KNOWN = [EMITTER]
const CLAUDE = join(ROOT, 'test', 'e2e', 'node_modules', '.bin', 'claude')
const PLUGIN = join(ROOT, 'plugin')

/** A person's real-looking settings: foreign keys, and foreign hooks on the events we use. */
const REAL: JsonObject = {
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  model: 'opus',
  permissions: { allow: ['Bash(npm run test:*)', 'Read(~/.zshrc)'], deny: ['Bash(curl:*)'], additionalDirectories: ['../shared'] },
  env: { DISABLE_TELEMETRY: '1', MY_TOKEN_NAME: 'x' },
  statusLine: { type: 'command', command: '~/.claude/statusline.sh' },
  includeCoAuthoredBy: false,
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/home/me/bin/guard.sh', timeout: 5 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'say done', async: true }] }],
    SessionEnd: [{ hooks: [{ type: 'command', command: 'echo bye >> ~/log' }] }],
  },
}
const REAL_TEXT = `${JSON.stringify(REAL, null, 2)}\n`

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

const cli = (args: string[], env: Record<string, string | undefined>, cwd = ROOT): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: env as NodeJS.ProcessEnv, cwd, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })

const setup = (t: Test, settings: string | null = REAL_TEXT) => {
  const dir = t.testdir({ claude: settings === null ? {} : { 'settings.json': settings }, tb: {}, project: {} })
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: join(dir, 'home'),
    CLAUDE_CONFIG_DIR: join(dir, 'claude'),
    TRAILBOSS_HOME: join(dir, 'tb'),
  }
  return { dir, env, file: join(dir, 'claude', 'settings.json'), project: join(dir, 'project') }
}

const read = (file: string): JsonObject => JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject

t.test('install merges our hooks and keeps every foreign key and hook exactly', async (t) => {
  const { env, file, dir } = setup(t)
  const io = captureIo(env, dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, io), 0)
  const after = read(file)
  for (const key of Object.keys(REAL)) if (key !== 'hooks') t.same(after[key], REAL[key], `${key} unchanged`)
  const hooks = after.hooks as Record<string, Json[]>
  const realHooks = REAL.hooks as Record<string, Json[]>
  t.same(hooks.PreToolUse?.[0], realHooks.PreToolUse?.[0], 'foreign PreToolUse hook first and intact')
  t.same(hooks.Stop?.[0], realHooks.Stop?.[0])
  t.same(hooks.SessionEnd?.[0], realHooks.SessionEnd?.[0])
  const ours = listOurHooks(after, KNOWN)
  t.same(ours.map((o) => o.event).sort(), [...HOOK_EVENTS].sort(), 'one entry per event')
  // Async everywhere but SessionEnd, whose async hook would read an empty stdin.
  for (const { event, hook } of ours) {
    t.same(
      hook,
      { type: 'command', command: hook.command, args: [EMITTER], ...(event === 'SessionEnd' ? {} : { async: true }), timeout: 10 },
      event,
    )
  }
  t.ok(fs.existsSync(ours[0]?.hook.command as string), 'the Node binary path exists')
  t.same(unmergeHooks(after, KNOWN), REAL, 'only ours were added')
  t.match(io.out(), /installed hooks for 14 events \(user scope\)/)
  t.match(io.out(), /backup of the previous file: .*\.bak/)
  const backups = fs.readdirSync(join(dir, 'tb', 'backups'))
  t.equal(backups.length, 1)
  t.equal(fs.readFileSync(join(dir, 'tb', 'backups', backups[0] as string), 'utf8'), REAL_TEXT, 'the backup is the previous file')
})

t.test('install twice changes no byte; uninstall gives the original bytes back', async (t) => {
  const { env, file, dir } = setup(t)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, captureIo(env, dir)), 0)
  const once = fs.readFileSync(file)
  const mtime = fs.statSync(file).mtimeMs
  const io = captureIo(env, dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, io), 0)
  t.ok(fs.readFileSync(file).equals(once), 'same bytes')
  t.equal(fs.statSync(file).mtimeMs, mtime, 'not even rewritten')
  t.match(io.out(), /already installed.*nothing changed/)
  t.equal(fs.readdirSync(join(dir, 'tb', 'backups')).length, 1, 'no second backup')
  t.equal(await runUninstall({ scope: 'user', dryRun: false }, captureIo(env, dir)), 0)
  t.equal(fs.readFileSync(file, 'utf8'), REAL_TEXT, 'the original, byte for byte')
  const io2 = captureIo(env, dir)
  t.equal(await runUninstall({ scope: 'user', dryRun: false }, io2), 0)
  t.match(io2.out(), /no Trail Boss hooks .* nothing changed/)
})

t.test('the built CLI: install, --dry-run diff, uninstall', async (t) => {
  const { env, file } = setup(t)
  const dry = await cli(['install', '--dry-run'], env)
  t.equal(dry.code, 0)
  t.match(dry.stdout, /^Index: .*settings\.json/m)
  t.match(dry.stdout, /^\+ +"args": \[$/m)
  t.match(dry.stdout, new RegExp(`^\\+ +"${EMITTER.replace(/[/.]/g, '\\$&')}"$`, 'm'))
  t.equal(fs.readFileSync(file, 'utf8'), REAL_TEXT, 'a dry run writes nothing')
  t.same(fs.readdirSync(join(env.TRAILBOSS_HOME)), [], 'and backs up nothing')
  const inst = await cli(['install'], env)
  t.equal(inst.code, 0, inst.stderr)
  t.equal(listOurHooks(read(file), KNOWN).length, HOOK_EVENTS.length)
  const dryUn = await cli(['uninstall', '--dry-run'], env)
  t.match(dryUn.stdout, /^- +"async": true,$/m)
  const un = await cli(['uninstall'], env)
  t.equal(un.code, 0, un.stderr)
  t.equal(fs.readFileSync(file, 'utf8'), REAL_TEXT)
})

t.test('invalid settings are refused with exit 1 and left untouched', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['comments', '{\n  // mine\n  "model": "opus"\n}\n', /is not valid JSON .*comments are not allowed/],
    ['trailing comma', '{"model": "opus",}', /is not valid JSON/],
    ['an array', '[]\n', /does not hold a JSON object/],
    ['hooks not an object', '{"hooks": []}\n', /"hooks" is not an object/],
    ['an event not a list', '{"hooks": {"Stop": {}}}\n', /"hooks.Stop" is not a list/],
  ]
  for (const [name, text, why] of cases) {
    const { env, file } = setup(t, text)
    const mtime = fs.statSync(file).mtimeMs
    const r = await cli(['install'], env)
    t.equal(r.code, 1, `${name}: exit 1`)
    t.match(r.stderr, /^trailboss: /, name)
    t.match(r.stderr, why, name)
    t.equal(fs.readFileSync(file, 'utf8'), text, `${name}: untouched`)
    t.equal(fs.statSync(file).mtimeMs, mtime)
    t.same(fs.readdirSync(join(env.CLAUDE_CONFIG_DIR)), ['settings.json'], `${name}: no lock or temp file left`)
    t.same(fs.readdirSync(env.TRAILBOSS_HOME), [], `${name}: no backup`)
  }
})

t.test('project and local scope write into the current project', async (t) => {
  const { env, dir, project } = setup(t)
  t.equal(await runInstall({ scope: 'project', dryRun: false }, captureIo(env, project)), 0)
  const shared = read(join(project, '.claude', 'settings.json'))
  for (const { event, hook } of listOurHooks(shared, KNOWN)) {
    t.same(
      hook,
      { type: 'command', command: 'trailboss-emit', ...(event === 'SessionEnd' ? {} : { async: true }), timeout: 10 },
      'shared: from PATH',
    )
  }
  t.equal(listOurHooks(shared, KNOWN).length, HOOK_EVENTS.length)
  t.equal(await runInstall({ scope: 'local', dryRun: false }, captureIo(env, project)), 0)
  const local = read(join(project, '.claude', 'settings.local.json'))
  t.equal(listOurHooks(local, KNOWN).length, HOOK_EVENTS.length)
  for (const { hook } of listOurHooks(local, KNOWN)) t.same(hook.args, [EMITTER], 'local: absolute paths')
  t.equal(fs.readFileSync(join(dir, 'claude', 'settings.json'), 'utf8'), REAL_TEXT, 'user scope untouched')
  t.equal(await runUninstall({ scope: 'project', dryRun: false }, captureIo(env, project)), 0)
  t.notOk(fs.existsSync(join(project, '.claude', 'settings.json')), 'the file install created, with nothing else in it, is gone')
  t.ok(fs.existsSync(join(project, '.claude', 'settings.local.json')), 'the folder stays: the local file is still in it')
  t.equal(await runUninstall({ scope: 'local', dryRun: false }, captureIo(env, project)), 0)
  t.same(fs.readdirSync(join(project, '.claude')), [], 'both files install created are gone')
})

t.test('install warns when the plugin registers the same hooks', async (t) => {
  const { env, dir } = setup(t, JSON.stringify({ ...REAL, enabledPlugins: { 'trailboss@trailboss': true } }))
  const io = captureIo(env, dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, io), 0)
  t.match(io.err(), /plugin is enabled too \(user settings\), so every event runs the emitter twice/)
  const quiet = setup(t)
  const io2 = captureIo(quiet.env, quiet.dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, io2), 0)
  t.equal(io2.err(), '', 'no plugin, no warning')
})

t.test('install replaces entries whose paths a Node upgrade broke, in place', async (t) => {
  const stale = {
    type: 'command',
    command: '/home/me/.nvm/versions/node/v20.1.0/bin/node',
    args: ['/home/me/.nvm/versions/node/v20.1.0/lib/node_modules/trailboss/dist/hooks/emit.cjs'],
    async: true,
    timeout: 10,
  }
  const settings = { hooks: { Stop: [{ hooks: [stale] }, { hooks: [{ type: 'command', command: 'say done' }] }] } }
  const { env, file, dir } = setup(t, JSON.stringify(settings, null, 2))
  t.equal(await runInstall({ scope: 'user', dryRun: false }, captureIo(env, dir)), 0)
  const after = read(file) as { hooks: Record<string, JsonObject[]> }
  t.same(after.hooks.Stop?.[0]?.hooks, [
    { type: 'command', command: (after.hooks.Stop?.[0]?.hooks as JsonObject[])[0]?.command, args: [EMITTER], async: true, timeout: 10 },
  ])
  t.same(after.hooks.Stop?.[1], { hooks: [{ type: 'command', command: 'say done' }] })
  t.notOk(fs.readFileSync(file, 'utf8').includes('v20.1.0'), 'the broken path is gone')
  t.notOk(fs.readFileSync(file, 'utf8').endsWith('\n'), 'the file keeps its missing final newline')
})

t.test('install writes through a symlinked settings file and creates a missing one', async (t) => {
  const dir = t.testdir({
    dotfiles: { 'claude-settings.json': REAL_TEXT },
    claude: { 'settings.json': t.fixture('symlink', '../dotfiles/claude-settings.json') },
    fresh: {},
  })
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    CLAUDE_CONFIG_DIR: join(dir, 'claude'),
    TRAILBOSS_HOME: join(dir, 'tb'),
  }
  const io = captureIo(env, dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, io), 0)
  t.ok(fs.lstatSync(join(dir, 'claude', 'settings.json')).isSymbolicLink(), 'still a symlink')
  t.match(io.out(), /through its symlink to .*claude-settings\.json/)
  t.equal(listOurHooks(read(join(dir, 'dotfiles', 'claude-settings.json')), KNOWN).length, HOOK_EVENTS.length)
  const freshEnv = { ...env, CLAUDE_CONFIG_DIR: join(dir, 'fresh', 'no', 'such') }
  t.equal(await runInstall({ scope: 'user', dryRun: false }, captureIo(freshEnv, dir)), 0)
  const created = join(dir, 'fresh', 'no', 'such', 'settings.json')
  t.equal(fs.statSync(created).mode & 0o777, 0o600)
  t.equal(listOurHooks(read(created), KNOWN).length, HOOK_EVENTS.length)
})

t.test('concurrent installs (separate processes) leave one valid file', async (t) => {
  const { env, file } = setup(t)
  const N = 6
  const runs = await Promise.all(Array.from({ length: N }, () => cli(['install', '--scope', 'user'], env)))
  for (const r of runs) t.equal(r.code, 0, r.stderr)
  const after = read(file)
  t.equal(listOurHooks(after, KNOWN).length, HOOK_EVENTS.length, 'exactly one entry per event')
  t.same(unmergeHooks(after, KNOWN), REAL, 'foreign content intact')
  t.same(fs.readdirSync(join(env.CLAUDE_CONFIG_DIR)), ['settings.json'], 'no lock or temp file left')
  t.equal(runs.filter((r) => /installed hooks/.test(r.stdout)).length, 1, 'one wrote, the others found it done')
})

t.test('concurrent install and uninstall processes never corrupt the file', async (t) => {
  const { env, file } = setup(t)
  const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => cli([i % 2 ? 'uninstall' : 'install'], env)))
  for (const r of runs) t.equal(r.code, 0, r.stderr)
  const after = read(file)
  t.ok([0, HOOK_EVENTS.length].includes(listOurHooks(after, KNOWN).length), 'all of ours or none')
  t.same(unmergeHooks(after, KNOWN), REAL)
})

t.test('install fails clearly when the emitter is not built', async (t) => {
  const { env, dir } = setup(t)
  // A package without dist/: a clone before its first build.
  const pkg = join(dir, 'pkg')
  fs.mkdirSync(join(pkg, 'lib', 'commands'), { recursive: true })
  fs.writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'trailboss' }))
  const io = captureIo(env, dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, io, { selfFile: join(pkg, 'lib', 'commands', 'install.js') }), 1)
  t.match(io.err(), /^trailboss: the emitter .* is missing — build it first: \(cd .* && npm run build\)\n$/)
  t.equal(fs.readFileSync(join(dir, 'claude', 'settings.json'), 'utf8'), REAL_TEXT)
})

t.test('the plugin: manifests in step with the package', async (t) => {
  const pkg = JSON.parse(fs.readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const plugin = JSON.parse(fs.readFileSync(join(PLUGIN, '.claude-plugin', 'plugin.json'), 'utf8'))
  const market = JSON.parse(fs.readFileSync(join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8'))
  t.equal(plugin.name, 'trailboss')
  t.equal(plugin.version, pkg.version)
  t.equal(market.plugins[0].name, 'trailboss')
  t.equal(market.plugins[0].source, './plugin')
  t.equal(market.plugins[0].version, pkg.version)
  // Claude Code runs `npm ci` in a plugin folder that holds a package.json: keep it lean.
  t.same(
    fs
      .readdirSync(PLUGIN)
      .filter((n) => n !== 'node_modules')
      .sort(),
    ['.claude-plugin', 'hooks', 'tests', 'tsconfig.json'],
    "the plugin folder holds the manifest, the hooks, the mod's tests and its tsconfig (no package.json)",
  )
})

const claude = (args: string[], home: string): Promise<Run> =>
  new Promise((resolve) => {
    const child = spawn(CLAUDE, args, {
      env: { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, ...CLAUDE_QUIET_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })

t.test(
  'the real Claude Code CLI (2.1.197) validates the plugin and our hook entries',
  { skip: fs.existsSync(CLAUDE) ? false : 'test/e2e has no Claude Code installed (npm ci in test/e2e)' },
  async (t) => {
    t.setTimeout(180_000)
    const { env, file, dir } = setup(t)
    const home = join(dir, 'home')
    fs.mkdirSync(home)
    const version = await claude(['--version'], home)
    t.match(version.stdout, /^2\.1\.197 /, 'the pinned version')
    const plugin = await claude(['plugin', 'validate', '--strict', join(PLUGIN, '.claude-plugin', 'plugin.json')], home)
    t.equal(plugin.code, 0, plugin.stdout + plugin.stderr)
    t.match(plugin.stdout, /Validation passed/)
    const market = await claude(['plugin', 'validate', '--strict', join(ROOT, '.claude-plugin', 'marketplace.json')], home)
    t.equal(market.code, 0, market.stdout + market.stderr)
    // The validator checks a plugin's hooks.json against Claude Code's hook schema: feed it the
    // entries install writes (exec form with args) to know the schema accepts them.
    await runInstall({ scope: 'user', dryRun: false }, captureIo(env, dir))
    const probe = join(dir, 'probe')
    fs.mkdirSync(join(probe, '.claude-plugin'), { recursive: true })
    fs.mkdirSync(join(probe, 'hooks'))
    fs.writeFileSync(
      join(probe, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'probe', version: '0.0.1', description: 'probe', author: { name: 'probe' } }),
    )
    fs.writeFileSync(join(probe, 'hooks', 'hooks.json'), JSON.stringify({ hooks: read(file).hooks }))
    const ok = await claude(['plugin', 'validate', join(probe, '.claude-plugin', 'plugin.json')], home)
    t.equal(ok.code, 0, ok.stdout + ok.stderr)
    // And it can fail: a wrong type for `args` is rejected.
    fs.writeFileSync(
      join(probe, 'hooks', 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', args: 'y' }] }] } }),
    )
    const bad = await claude(['plugin', 'validate', join(probe, '.claude-plugin', 'plugin.json')], home)
    t.equal(bad.code, 1)
    t.match(bad.stdout + bad.stderr, /args/)
  },
)

t.test(
  'the real Claude Code CLI installs the plugin from a local marketplace and sees every hook',
  { skip: fs.existsSync(CLAUDE) ? false : 'no Claude Code in test/e2e' },
  async (t) => {
    t.setTimeout(180_000)
    const dir = t.testdir({ home: {} })
    const home = join(dir, 'home')
    // The repository as a marketplace: its manifest, and the plugin folder it points at.
    const clone = join(dir, 'clone')
    fs.cpSync(join(ROOT, '.claude-plugin'), join(clone, '.claude-plugin'), { recursive: true })
    fs.cpSync(PLUGIN, join(clone, 'plugin'), { recursive: true })
    fs.writeFileSync(join(clone, 'package.json'), '{"name": "trailboss", "devDependencies": {"left-pad": "1.3.0"}}')
    const add = await claude(['plugin', 'marketplace', 'add', clone], home)
    t.equal(add.code, 0, add.stdout + add.stderr)
    const inst = await claude(['plugin', 'install', 'trailboss@trailboss'], home)
    t.equal(inst.code, 0, inst.stdout + inst.stderr)
    const details = await claude(['plugin', 'details', 'trailboss@trailboss'], home)
    t.match(details.stdout, new RegExp(`Hooks \\(${HOOK_EVENTS.length}\\)`))
    for (const event of HOOK_EVENTS) t.match(details.stdout, event)
    const cached = join(home, '.claude', 'plugins', 'cache', 'trailboss', 'trailboss')
    const [version] = fs.readdirSync(cached)
    t.same(
      fs.readdirSync(join(cached, version as string)).sort(),
      ['.claude-plugin', 'hooks', 'tests', 'tsconfig.json'],
      'only the plugin folder is copied: no npm install of the package',
    )
    const settings = read(join(home, '.claude', 'settings.json'))
    t.same(settings.enabledPlugins, { 'trailboss@trailboss': true }, 'what doctor looks for')
  },
)

/** Every path under `dir`, with a file's bytes: the home as a test compares it. */
const snapshot = (dir: string): Record<string, string | null> => {
  const out: Record<string, string | null> = {}
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      out[p.slice(dir.length)] = e.isDirectory() ? null : fs.readFileSync(p, 'utf8')
      if (e.isDirectory()) walk(p)
    }
  }
  walk(dir)
  return out
}

t.test('a home with no agent config: install then uninstall gives it back as it was, for every agent', async (t) => {
  for (const agent of ['claude-code', 'codex', 'gemini']) {
    await t.test(agent, async (t) => {
      const dir = t.testdir({ home: {}, tb: {} })
      const home = join(dir, 'home')
      const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(dir, 'tb') }
      t.equal(await runInstall({ scope: 'user', dryRun: false, agent }, captureIo(env, dir)), 0)
      t.not(Object.keys(snapshot(home)).length, 0, 'install wrote its files')
      const dry = captureIo(env, dir)
      t.equal(await runUninstall({ scope: 'user', dryRun: true, agent }, dry), 0)
      t.match(dry.out(), /\(removed\)/, 'a dry run shows the file going')
      const io = captureIo(env, dir)
      t.equal(await runUninstall({ scope: 'user', dryRun: false, agent }, io), 0)
      t.same(snapshot(home), {}, 'no file holding {} or nothing, no folder install made')
      t.match(io.out(), /install had created it, and nothing else was in it/)
      t.same(fs.readdirSync(join(dir, 'tb', 'installs')), [], 'the notes are gone too')
    })
  }
})

t.test('a file install created stays when something else was put in it; one that was there keeps its bytes', async (t) => {
  const dir = t.testdir({ home: {}, tb: {} })
  const home = join(dir, 'home')
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(dir, 'tb') }
  t.equal(await runInstall({ scope: 'user', dryRun: false }, captureIo(env, dir)), 0)
  t.equal(await runInstall({ scope: 'user', dryRun: false }, captureIo(env, dir)), 0, "a second install keeps the first one's note")
  // Claude Code writes its own keys into the file install created.
  const file = join(home, '.claude', 'settings.json')
  fs.writeFileSync(file, `${JSON.stringify({ ...read(file), model: 'opus' }, null, 2)}\n`)
  t.equal(await runUninstall({ scope: 'user', dryRun: false }, captureIo(env, dir)), 0)
  t.same(read(file), { model: 'opus' }, 'what the agent put there stays, with its file and folder')

  for (const before of ['', '{}\n', '{}', '  \n']) {
    const d = t.testdir({ home: { '.claude': { 'settings.json': before } }, tb: {} })
    const e = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: join(d, 'home'), TRAILBOSS_HOME: join(d, 'tb') }
    t.equal(await runInstall({ scope: 'user', dryRun: false }, captureIo(e, d)), 0)
    t.equal(await runUninstall({ scope: 'user', dryRun: false }, captureIo(e, d)), 0)
    t.equal(
      fs.readFileSync(join(d, 'home', '.claude', 'settings.json'), 'utf8'),
      before,
      `a file that held ${JSON.stringify(before)} keeps it`,
    )
  }
})

t.test("Codex: a config.toml of the person's stays byte for byte; the hooks.json install created goes", async (t) => {
  const toml = 'model = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
  const dir = t.testdir({ home: { '.codex': { 'config.toml': toml } }, tb: {} })
  const home = join(dir, 'home')
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(dir, 'tb') }
  t.equal(await runInstall({ scope: 'user', dryRun: false, agent: 'codex' }, captureIo(env, dir)), 0)
  t.match(fs.readFileSync(join(home, '.codex', 'config.toml'), 'utf8'), /trusted_hash/)
  t.equal(await runUninstall({ scope: 'user', dryRun: false, agent: 'codex' }, captureIo(env, dir)), 0)
  t.same(snapshot(home), { '/.codex': null, '/.codex/config.toml': toml })
})

t.test("--statusline is the agent's: one that shows no status line refuses it, naming those that do, and writes nothing", async (t) => {
  const { dir, env } = setup(t)
  const io = captureIo({ ...env, GEMINI_CLI_HOME: join(dir, 'home') }, dir)
  t.equal(await runInstall({ scope: 'user', dryRun: false, agent: 'gemini', statusline: true }, io), 2)
  t.equal(io.err(), 'trailboss: --statusline is for Claude Code only, not Gemini CLI — leave it out\n')
  t.notOk(fs.existsSync(join(dir, 'home', '.gemini')), 'no settings file made')
})
