import * as fs from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import {
  deriveHookEntry,
  derivePluginHooks,
  entryForEvent,
  HOOK_EVENTS,
  HOOK_TIMEOUT_S,
  isOurHook,
  listOurHooks,
  mergeHooks,
  settingsFile,
  unmergeHooks,
} from '../lib/agents/claude-code/settings-hooks.js'
import type { Json, JsonObject } from '../lib/settings/json-value.js'
import { deriveEmitterCommand, findPackageRoot, isEphemeralPath } from '../lib/settings/package-root.js'
import {
  detectIndent,
  formatSettings,
  formatSettingsEdit,
  parseSettings,
  resolveSettingsTarget,
  updateSettingsFile,
} from '../lib/settings/settings-file.js'

const NODE = '/usr/local/bin/node'
const EMITTER = '/usr/local/lib/node_modules/trailboss/dist/hooks/emit.cjs'
const ENTRY = deriveHookEntry(deriveEmitterCommand('user', NODE, EMITTER))
const PROJECT_ENTRY = deriveHookEntry(deriveEmitterCommand('project', NODE, EMITTER))

/** Settings as people have them: permissions, env, a status line, and foreign hooks on our events. */
const REAL: JsonObject = {
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  model: 'opus',
  permissions: { allow: ['Bash(npm run test:*)', 'Read(~/.zshrc)'], deny: ['Bash(curl:*)'], defaultMode: 'acceptEdits' },
  env: { DISABLE_TELEMETRY: '1', FOO: 'bar' },
  statusLine: { type: 'command', command: '~/.claude/statusline.sh', padding: 0 },
  enabledPlugins: { 'formatter@acme': true },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/home/me/bin/guard.sh', timeout: 5 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
    Notification: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send "Claude" "needs you"' }] }],
    PreCompact: [{ hooks: [{ type: 'command', command: 'backup-transcript' }] }],
  },
}

t.test('the hook entry: exec form for user and local scope, PATH for project scope', async (t) => {
  t.same(ENTRY, { type: 'command', command: NODE, args: [EMITTER], async: true, timeout: HOOK_TIMEOUT_S })
  t.same(deriveHookEntry(deriveEmitterCommand('local', NODE, EMITTER)), ENTRY)
  t.same(PROJECT_ENTRY, { type: 'command', command: 'trailboss-emit', async: true, timeout: HOOK_TIMEOUT_S })
  t.strictSame(Object.keys(ENTRY), ['type', 'command', 'args', 'async', 'timeout'])
  t.notOk(HOOK_EVENTS.includes('MessageDisplay' as never), 'MessageDisplay fires per displayed chunk')
  t.notOk(HOOK_EVENTS.includes('SubagentStop' as never))
  t.ok(HOOK_TIMEOUT_S > 1.5, 'SessionEnd needs a declared timeout over its 1.5 s default')
})

t.test('isOurHook recognises our entries by the exact command they run, nothing else', async (t) => {
  const cases: [unknown, boolean, string][] = [
    [ENTRY, true, 'exec form, npm prefix'],
    [PROJECT_ENTRY, true, 'trailboss-emit from PATH'],
    [
      {
        type: 'command',
        command: '/home/me/.nvm/versions/node/v20.1.0/bin/node',
        args: ['/home/me/.nvm/versions/node/v20.1.0/lib/node_modules/trailboss/dist/hooks/emit.cjs'],
      },
      true,
      'old nvm path',
    ],
    [{ type: 'command', command: 'node', args: ['/home/me/.npm/_npx/ab12/node_modules/trailboss/dist/hooks/emit.cjs'] }, true, 'npx cache'],
    [
      { type: 'command', command: '/usr/bin/node', args: ['/home/me/src/trail-boss/dist/hooks/emit.cjs'] },
      false,
      'a clone is ours only when known (install checks its package.json)',
    ],
    [
      { type: 'command', command: 'node /home/me/src/trailboss/dist/hooks/emit.cjs' },
      false,
      'a shell line written by hand: never what install writes',
    ],
    [
      { type: 'command', command: '/usr/local/bin/trailboss-emit' },
      false,
      'a bin by absolute path: install writes trailboss-emit from PATH',
    ],
    [
      { type: 'command', command: '/home/me/src/trailboss/dist/hooks/emit.cjs', async: true },
      false,
      'the emitter file as the command: never what install writes',
    ],
    [{ type: 'command', command: 'echo trailboss-emit' }, false, 'a foreign command naming us'],
    [{ type: 'command', command: 'trailboss-emit; rm -rf x' }, false, 'a longer shell line'],
    [{ type: 'command', command: '/usr/bin/node', args: ['/opt/other-tool/dist/hooks/emit.cjs'] }, false, "another tool's emit.cjs"],
    [{ type: 'command', command: '/usr/bin/node', args: [EMITTER, '--flag'] }, false, 'extra arguments: not what we write'],
    [{ type: 'http', url: 'http://localhost/trailboss-emit' }, false, 'http hook'],
    [{ type: 'command', command: 'trailboss-emitter' }, false, 'similar name'],
    [null, false, 'null'],
    ['trailboss-emit', false, 'a bare string'],
  ]
  for (const [hook, want, why] of cases) t.equal(isOurHook(hook), want, why)
  const clone = { type: 'command', command: '/usr/bin/node', args: ['/home/me/tb/dist/hooks/emit.cjs'] }
  t.notOk(isOurHook(clone), 'a clone in a folder of another name is unknown…')
  t.ok(isOurHook(clone, ['/home/me/tb/dist/hooks/emit.cjs']), '…unless it is the running package')
})

t.test('mergeHooks adds one group per event and keeps every foreign key and hook', async (t) => {
  const before = structuredClone(REAL)
  const merged = mergeHooks(REAL, ENTRY)
  t.same(REAL, before, 'the input is not mutated')
  for (const key of Object.keys(REAL)) if (key !== 'hooks') t.same(merged[key], REAL[key], key)
  t.strictSame(Object.keys(merged), Object.keys(REAL), 'key order kept')
  const hooks = merged.hooks as Record<string, Json[]>
  for (const event of HOOK_EVENTS)
    t.same(
      hooks[event]?.filter((g) => JSON.stringify(g).includes(EMITTER)),
      [{ hooks: [entryForEvent(ENTRY, event)] }],
      event,
    )
  t.notOk('async' in ((hooks.SessionEnd?.at(-1) as { hooks: JsonObject[] }).hooks[0] ?? {}), 'SessionEnd runs in the foreground')
  t.same(hooks.PreToolUse?.[0], (REAL.hooks as Record<string, Json[]>).PreToolUse?.[0], 'foreign group first, as before')
  t.same(hooks.PreCompact, (REAL.hooks as Record<string, Json[]>).PreCompact, 'an event we do not use is untouched')
  t.equal(listOurHooks(merged).length, HOOK_EVENTS.length)
  t.same(mergeHooks(merged, ENTRY), merged, 'idempotent')
  t.same(unmergeHooks(merged), REAL, 'unmerge gives the original back')
})

t.test('mergeHooks replaces our old entries in place and removes strays', async (t) => {
  const old = {
    type: 'command',
    command: '/old/node',
    args: ['/old/lib/node_modules/trailboss/dist/hooks/emit.cjs'],
    async: true,
    timeout: 10,
  }
  const settings: JsonObject = {
    hooks: {
      Stop: [{ hooks: [old] }, { hooks: [{ type: 'command', command: 'say done' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }, old] }],
      MessageDisplay: [{ hooks: [old] }],
    },
  }
  const merged = mergeHooks(settings, ENTRY) as { hooks: Record<string, Json[]> }
  t.same(
    merged.hooks.Stop,
    [{ hooks: [ENTRY] }, { hooks: [{ type: 'command', command: 'say done' }] }],
    'in place, before the foreign group',
  )
  t.same(
    merged.hooks.PreToolUse,
    [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }, { hooks: [ENTRY] }],
    'stray taken out of a mixed group',
  )
  t.notOk('MessageDisplay' in merged.hooks, 'an event we no longer use loses our entry')
  t.equal(listOurHooks(merged).length, HOOK_EVENTS.length)
})

t.test('mergeHooks refuses hooks it cannot merge into without guessing', async (t) => {
  t.throws(() => mergeHooks({ hooks: [] }, ENTRY), /"hooks" is not an object/)
  t.throws(() => mergeHooks({ hooks: { Stop: { hooks: [] } } }, ENTRY), /"hooks.Stop" is not a list/)
})

t.test('unmergeHooks removes exactly ours', async (t) => {
  t.equal(unmergeHooks(REAL), REAL, 'nothing of ours: the very same object')
  t.same(unmergeHooks(mergeHooks({}, ENTRY)), {}, 'hooks that held only ours go with them')
  t.same(unmergeHooks(mergeHooks({ a: 1 }, PROJECT_ENTRY)), { a: 1 })
  const weird: JsonObject = { hooks: { Stop: 'not a list', X: [1, { hooks: 'no' }, { hooks: [PROJECT_ENTRY, 'junk'] }] } }
  t.same(
    unmergeHooks(weird),
    { hooks: { Stop: 'not a list', X: [1, { hooks: 'no' }, { hooks: ['junk'] }] } },
    'odd foreign shapes left alone',
  )
})

t.test('parseSettings refuses what is not one JSON object', async (t) => {
  t.same(parseSettings('{"a":1}', 'f'), { a: 1 })
  t.same(parseSettings('  \n', 'f'), {}, 'an empty (touched) file counts as {}')
  t.throws(() => parseSettings('{\n  // my comment\n  "a": 1\n}', 'f'), /not valid JSON/, 'comments are not JSON')
  t.throws(() => parseSettings('{"a":1,}', 'f'), /not valid JSON/)
  t.throws(() => parseSettings('[1]', 'f'), /does not hold a JSON object/)
  t.throws(() => parseSettings('null', 'f'), /does not hold a JSON object/)
})

t.test('formatSettings keeps the file’s indentation and final newline', async (t) => {
  t.equal(detectIndent(null), '  ')
  t.equal(detectIndent('{\n    "a": 1\n}'), '    ')
  t.equal(detectIndent('{\n\t"a": 1\n}'), '\t')
  t.equal(detectIndent('{}'), '  ')
  t.equal(formatSettings({ a: 1 }, '{\n\t"b": 2\n}'), '{\n\t"a": 1\n}')
  t.equal(formatSettings({ a: 1 }, '{\n    "b": 2\n}\n'), '{\n    "a": 1\n}\n')
  t.equal(formatSettings({ a: 1 }, null), '{\n  "a": 1\n}\n')
})

t.test('formatSettingsEdit rewrites only what changed and keeps hand formatting elsewhere', async (t) => {
  const text =
    '{\n    "permissions": {"allow": ["Bash(ls)", "Read(x)"]},\n    "env": { "A": "1" },\n    "hooks": {\n        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n    }\n}\n'
  const before = parseSettings(text, 'f')
  const merged = mergeHooks(before, ENTRY)
  const installed = formatSettingsEdit(text, before, merged)
  t.same(JSON.parse(installed), merged)
  t.ok(
    installed.startsWith('{\n    "permissions": {"allow": ["Bash(ls)", "Read(x)"]},\n    "env": { "A": "1" },\n'),
    'untouched lines keep their bytes',
  )
  t.match(installed, /\n {8}"SessionStart": \[\n {12}\{/, 'new entries in the file’s four-space indentation')
  // Taking our group back out of a one-line array is an edit jsonc-parser gets wrong; the
  // result is checked, and a full rewrite in the file's indentation takes its place.
  t.same(JSON.parse(formatSettingsEdit(installed, merged, unmergeHooks(merged))), before, 'uninstall: the same settings')
  const oneLine = '{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n'
  const oneLineMerged = mergeHooks(parseSettings(oneLine, 'f'), ENTRY)
  const oneLineInstalled = formatSettingsEdit(oneLine, parseSettings(oneLine, 'f'), oneLineMerged)
  t.ok(
    oneLineInstalled.startsWith('{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls)"]},\n  "hooks": {\n'),
    'the line before an insertion keeps its layout',
  )
  t.equal(formatSettingsEdit(oneLineInstalled, oneLineMerged, parseSettings(oneLine, 'f')), oneLine)
  const plain = `${JSON.stringify(REAL, null, 2)}\n`
  const plainMerged = mergeHooks(REAL, ENTRY)
  const plainInstalled = formatSettingsEdit(plain, REAL, plainMerged)
  t.equal(plainInstalled, formatSettings(plainMerged, plain), 'Claude Code’s own format: the same as a full rewrite')
  t.equal(formatSettingsEdit(plainInstalled, plainMerged, REAL), plain, 'and back, byte for byte')
  t.equal(formatSettingsEdit('{"a": 1}', { a: 1 }, {}), '{}', 'emptied: a plain {}')
  t.equal(formatSettingsEdit(null, {}, { a: 1 }), '{\n  "a": 1\n}\n', 'a new file')
})

t.test('the plugin hooks are the project-scope entry for every event, and plugin/hooks/hooks.json is them', async (t) => {
  const plugin = derivePluginHooks() as { hooks: Record<string, Json[]> }
  t.same(Object.keys(plugin.hooks), [...HOOK_EVENTS])
  for (const [event, groups] of Object.entries(plugin.hooks)) t.same(groups, [{ hooks: [entryForEvent(PROJECT_ENTRY, event)] }])
  const file = JSON.parse(fs.readFileSync(new URL('../plugin/hooks/hooks.json', import.meta.url), 'utf8'))
  t.same(file, plugin, 'plugin/hooks/hooks.json is in step with the code')
})

t.test('paths: scopes, package root, npx cache', async (t) => {
  t.equal(settingsFile('user', { CLAUDE_CONFIG_DIR: '/c' }, '/p'), '/c/settings.json')
  t.equal(settingsFile('user', { HOME: '/h' }, '/p'), '/h/.claude/settings.json')
  t.equal(settingsFile('project', {}, '/p'), '/p/.claude/settings.json')
  t.equal(settingsFile('local', {}, '/p'), '/p/.claude/settings.local.json')
  const root = findPackageRoot(new URL(import.meta.url).pathname)
  t.ok(root && fs.existsSync(join(root, 'package.json')))
  const dir = t.testdir({
    package: { 'package.json': JSON.stringify({ name: 'trailboss' }), dist: { bin: { chunks: { 'x.js': '' } } } },
    'package.json': JSON.stringify({ name: 'other' }),
  })
  t.equal(findPackageRoot(join(dir, 'package/dist/bin/chunks/x.js')), join(dir, 'package'), 'a bundled chunk deep in dist/')
  t.equal(findPackageRoot(join(dir, 'elsewhere/x.js')), findPackageRoot(dir), 'a foreign package.json is walked past')
  t.equal(findPackageRoot('/no-such-folder-of-trailboss/x.js'), null, 'no trailboss package above')
  t.ok(isEphemeralPath('/home/me/.npm/_npx/ab12/node_modules/trailboss/dist/hooks/emit.cjs'))
  t.notOk(isEphemeralPath(EMITTER))
})

// ---- random foreign settings ----------------------------------------------------------------

const foreignHook = fc.record(
  {
    type: fc.constantFrom('command', 'http', 'prompt'),
    command: fc.oneof(fc.string(), fc.constantFrom('say done', '/usr/bin/guard.sh', 'node /opt/x/index.js')),
    args: fc.array(fc.string(), { maxLength: 2 }),
    timeout: fc.integer({ min: 1, max: 600 }),
    async: fc.boolean(),
    extra: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['type', 'command'] },
) as fc.Arbitrary<JsonObject>
const foreignGroup = fc.record(
  { matcher: fc.constantFrom('', 'Bash', 'Edit|Write', '*'), hooks: fc.array(foreignHook, { minLength: 1, maxLength: 3 }) },
  { requiredKeys: ['hooks'] },
) as fc.Arbitrary<JsonObject>
const eventName = fc.oneof(fc.constantFrom(...HOOK_EVENTS, 'PreCompact', 'MessageDisplay', 'SubagentStop'), fc.string({ minLength: 1 }))
const foreignSettings = fc
  .record(
    {
      top: fc.dictionary(
        fc.string().filter((k) => k !== 'hooks'),
        fc.jsonValue({ maxDepth: 3 }),
        { maxKeys: 6 },
      ),
      hooks: fc.option(fc.dictionary(eventName, fc.array(foreignGroup, { minLength: 1, maxLength: 3 }), { minKeys: 1, maxKeys: 6 }), {
        nil: undefined,
      }),
    },
    { requiredKeys: ['top'] },
  )
  .map(({ top, hooks }) => (hooks ? { ...top, hooks } : top) as JsonObject)
  // A random string may happen to be our emitter's path; such settings are not foreign.
  .filter((s) => listOurHooks(s).length === 0)

t.test('property: random foreign settings survive install + uninstall byte for byte', async (t) => {
  fc.assert(
    fc.property(foreignSettings, fc.constantFrom(ENTRY, PROJECT_ENTRY), fc.constantFrom('  ', '    ', '\t'), (settings, entry, indent) => {
      const text = `${JSON.stringify(settings, null, indent)}\n`
      const installed = mergeHooks(parseSettings(text, 'f'), entry)
      const installedText = formatSettings(installed, text)
      // Install twice: the same bytes.
      if (formatSettings(mergeHooks(parseSettings(installedText, 'f'), entry), installedText) !== installedText) return false
      // Every foreign key is there, unchanged, apart from hooks.
      for (const key of Object.keys(settings))
        if (key !== 'hooks' && JSON.stringify(installed[key]) !== JSON.stringify(settings[key])) return false
      // Exactly one entry of ours per event.
      if (listOurHooks(installed).length !== HOOK_EVENTS.length) return false
      // Uninstall: the original bytes.
      return formatSettings(unmergeHooks(parseSettings(installedText, 'f')), installedText) === text
    }),
    { numRuns: 300 },
  )
  t.pass('300 random settings')
})

t.test('property: the minimal edit survives install + uninstall byte for byte, and parses to the merge', async (t) => {
  fc.assert(
    fc.property(foreignSettings, fc.constantFrom(ENTRY, PROJECT_ENTRY), fc.constantFrom('  ', '    ', '\t'), (settings, entry, indent) => {
      const text = `${JSON.stringify(settings, null, indent)}\n`
      const before = parseSettings(text, 'f')
      const merged = mergeHooks(before, entry)
      const installed = formatSettingsEdit(text, before, merged)
      if (JSON.stringify(JSON.parse(installed)) !== JSON.stringify(merged)) return false
      const again = parseSettings(installed, 'f')
      return formatSettingsEdit(installed, again, unmergeHooks(again)) === text
    }),
    { numRuns: 300 },
  )
  t.pass('300 random settings')
})

t.test('property: foreign hooks keep their order and content after install', async (t) => {
  fc.assert(
    fc.property(foreignSettings, (settings) => {
      const installed = mergeHooks(settings, ENTRY)
      const foreignOf = (s: JsonObject): string => JSON.stringify(unmergeHooks(s))
      return foreignOf(installed) === JSON.stringify(settings)
    }),
    { numRuns: 300 },
  )
  t.pass('300 random settings')
})

// ---- guarded file I/O -----------------------------------------------------------------------

t.test('updateSettingsFile: creates a missing file 0600, locks it, backs up what it replaces', async (t) => {
  const dir = t.testdir({ tb: {} })
  const env = { TRAILBOSS_HOME: join(dir, 'tb') }
  const file = join(dir, 'claude', 'settings.json')
  const u = await updateSettingsFile(file, env, (s) => mergeHooks(s, ENTRY))
  t.ok(u.changed)
  t.equal(u.backup, null, 'nothing to back up')
  t.equal(fs.statSync(file).mode & 0o777, 0o600)
  t.equal(fs.statSync(join(dir, 'claude')).mode & 0o777, 0o700)
  t.notOk(fs.existsSync(`${file}.lock`), 'lock released')
  const text = fs.readFileSync(file, 'utf8')
  fs.chmodSync(file, 0o644)
  const again = await updateSettingsFile(file, env, (s) => mergeHooks(s, ENTRY))
  t.notOk(again.changed, 'no change, no write')
  t.equal(again.backup, null)
  const removed = await updateSettingsFile(file, env, (s) => unmergeHooks(s))
  t.ok(removed.backup)
  t.equal(fs.readFileSync(removed.backup as string, 'utf8'), text, 'the backup holds the previous file')
  t.equal(fs.statSync(removed.backup as string).mode & 0o777, 0o600)
  t.equal(fs.statSync(file).mode & 0o777, 0o644, 'the file keeps its mode')
  t.equal(fs.readFileSync(file, 'utf8'), '{}\n')
  t.same(fs.readdirSync(join(dir, 'claude')), ['settings.json'], 'no temp or lock files left')
})

t.test('updateSettingsFile writes through a symlink chain, also to a missing target', async (t) => {
  const dir = t.testdir({
    dotfiles: { 'claude.json': JSON.stringify(REAL, null, 2) },
    claude: { 'settings.json': t.fixture('symlink', '../link2'), 'other.json': t.fixture('symlink', '../dotfiles/none.json') },
    link2: t.fixture('symlink', 'dotfiles/claude.json'),
  })
  const file = join(dir, 'claude', 'settings.json')
  t.equal(resolveSettingsTarget(file), join(dir, 'dotfiles', 'claude.json'))
  const u = await updateSettingsFile(file, { TRAILBOSS_HOME: join(dir, 'tb') }, (s) => mergeHooks(s, ENTRY))
  t.equal(u.target, join(dir, 'dotfiles', 'claude.json'))
  t.ok(fs.lstatSync(file).isSymbolicLink(), 'the link stays a link')
  t.equal(listOurHooks(JSON.parse(fs.readFileSync(join(dir, 'dotfiles', 'claude.json'), 'utf8'))).length, HOOK_EVENTS.length)
  const dangling = join(dir, 'claude', 'other.json')
  await updateSettingsFile(dangling, { TRAILBOSS_HOME: join(dir, 'tb') }, (s) => mergeHooks(s, ENTRY))
  t.ok(fs.lstatSync(dangling).isSymbolicLink())
  t.ok(fs.existsSync(join(dir, 'dotfiles', 'none.json')), 'the dangling link’s target was created')
  const loop = t.testdir({ a: t.fixture('symlink', 'b'), b: t.fixture('symlink', 'a') })
  t.throws(() => resolveSettingsTarget(join(loop, 'a')), /symlink loop/)
})

t.test('updateSettingsFile refuses an unparseable file and leaves it untouched', async (t) => {
  const text = '{\n  // permissions\n  "permissions": {}\n}\n'
  const dir = t.testdir({ 'settings.json': text })
  const file = join(dir, 'settings.json')
  const before = fs.statSync(file).mtimeMs
  await t.rejects(
    updateSettingsFile(file, { TRAILBOSS_HOME: join(dir, 'tb') }, (s) => mergeHooks(s, ENTRY)),
    /not valid JSON/,
  )
  t.equal(fs.readFileSync(file, 'utf8'), text)
  t.equal(fs.statSync(file).mtimeMs, before)
  t.same(fs.readdirSync(dir), ['settings.json'], 'no backup, no lock, no temp file')
})

t.test('a dry run and an uninstall of a missing file create nothing', async (t) => {
  const dir = t.testdir({})
  const file = join(dir, 'claude', 'settings.json')
  const dry = await updateSettingsFile(file, {}, (s) => mergeHooks(s, ENTRY), { dryRun: true })
  t.ok(dry.changed)
  t.equal(dry.before, null)
  const un = await updateSettingsFile(file, {}, (s) => unmergeHooks(s))
  t.notOk(un.changed)
  t.same(fs.readdirSync(dir), [], 'no folder created')
})
