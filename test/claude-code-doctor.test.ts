// Claude Code's own doctor checks (lib/agents/claude-code/doctor.ts): the claude on PATH against
// the builds tested, our hooks in each settings scope, and the plugin route. Moved here from
// test/doctor.test.ts with the checks; doctor's run of them is still tested there ("doctor runs
// the claude on PATH, bounded by a timeout", the healthy and broken setups).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import {
  checkClaudeVersion,
  checkRoutes,
  checkScopeHooks,
  claudeCodeDoctor,
  type ClaudeVersionRun,
  isNotSetUp,
  type HookFacts,
  type ScopeSettings,
} from '../lib/agents/claude-code/doctor.js'
import { deriveHookEntry, mergeHooks } from '../lib/agents/claude-code/settings-hooks.js'
import { NEWEST_TESTED, OLDEST_SUPPORTED } from '../lib/agents/claude-code/versions.js'
import type { JsonObject } from '../lib/settings/json-value.js'
import { deriveEmitterCommand } from '../lib/settings/package-root.js'

const NODE = '/usr/bin/node'
const EMIT = '/usr/lib/node_modules/trailboss/dist/hooks/emit.cjs'
const userEntry = deriveHookEntry(deriveEmitterCommand('user', NODE, EMIT))
const pathEntry = deriveHookEntry(deriveEmitterCommand('project', NODE, EMIT))

const facts = (present: string[], onPath: string[] = []): HookFacts => ({
  exists: (p) => present.includes(p),
  which: (n) => (onPath.includes(n) ? `/usr/bin/${n}` : null),
  known: [],
})
const scope = (s: Partial<ScopeSettings> & { settings: JsonObject | null }): ScopeSettings => ({
  scope: 'user',
  file: '/c/settings.json',
  error: null,
  ...s,
})

t.test('checkScopeHooks: healthy, missing events, broken paths, PATH, async, disableAllHooks', async (t) => {
  const all = mergeHooks({}, userEntry)
  t.equal(checkScopeHooks(scope({ settings: all }), facts([NODE, EMIT])).status, 'ok')
  t.equal(checkScopeHooks(scope({ settings: {} }), facts([])).status, 'info', 'nothing of ours: not a fault in itself')
  t.equal(checkScopeHooks(scope({ settings: null }), facts([])).status, 'info', 'no file')

  const broken = checkScopeHooks(scope({ settings: all }), facts([EMIT]))
  t.equal(broken.status, 'fail', 'the Node binary is gone (nvm upgrade)')
  t.match(broken.details?.join('\n'), /\/usr\/bin\/node does not exist/)
  t.equal(broken.fix, 'trailboss install')
  const local = checkScopeHooks(scope({ scope: 'local', settings: all }), facts([NODE]))
  t.equal(local.status, 'fail', 'the emitter is gone')
  t.equal(local.fix, 'trailboss install --scope local')

  const some = mergeHooks({}, userEntry, [], ['Stop', 'SessionEnd'])
  const partial = checkScopeHooks(scope({ settings: some }), facts([NODE, EMIT]))
  t.equal(partial.status, 'warn')
  t.match(partial.details?.join('\n'), /no hook for SessionStart, UserPromptSubmit/)

  const npx = deriveHookEntry({ command: NODE, args: ['/home/me/.npm/_npx/ab/node_modules/trailboss/dist/hooks/emit.cjs'] })
  const cached = checkScopeHooks(
    scope({ settings: mergeHooks({}, npx) }),
    facts([NODE, '/home/me/.npm/_npx/ab/node_modules/trailboss/dist/hooks/emit.cjs']),
  )
  t.equal(cached.status, 'warn')
  t.match(cached.details?.join('\n'), /npx's cache/)

  const shared = mergeHooks({}, pathEntry)
  t.equal(checkScopeHooks(scope({ scope: 'project', settings: shared }), facts([], ['trailboss-emit'])).status, 'ok')
  const noBin = checkScopeHooks(scope({ scope: 'project', settings: shared }), facts([]))
  t.equal(noBin.status, 'fail')
  t.match(noBin.fix, /npm install -g trailboss/)
  const absInProject = checkScopeHooks(scope({ scope: 'project', settings: all }), facts([NODE, EMIT]))
  t.equal(absInProject.status, 'warn', "a shared file with this machine's paths")

  const sync = mergeHooks({}, { ...userEntry, async: false } as never)
  t.equal(checkScopeHooks(scope({ settings: sync }), facts([NODE, EMIT])).status, 'warn')
  const off = checkScopeHooks(scope({ settings: { ...all, disableAllHooks: true } }), facts([NODE, EMIT]))
  t.equal(off.status, 'fail')
  t.match(off.fix, /remove "disableAllHooks"/)
  const bad = checkScopeHooks(scope({ settings: null, error: 'not valid JSON' }), facts([]))
  t.equal(bad.status, 'fail')
})

t.test('isNotSetUp: only with Claude Code off PATH and no hook of ours in any scope or plugin', async (t) => {
  const none = [scope({ settings: {} }), scope({ scope: 'project', settings: null })]
  t.equal(isNotSetUp({ path: null }, none, facts([])), true, 'not on PATH, nothing of ours: not set up')
  t.equal(isNotSetUp({ path: '/usr/bin/claude' }, none, facts([])), false, 'on PATH: its missing hooks are a problem')
  t.equal(isNotSetUp({ path: null }, [scope({ settings: mergeHooks({}, userEntry) })], facts([])), false, 'hooks in a scope')
  const plugin = scope({ settings: { enabledPlugins: { 'trailboss@trailboss': true } } })
  t.equal(isNotSetUp({ path: null }, [plugin], facts([])), false, 'the plugin enabled')
})

t.test('checkRoutes: none, plugin, and double registration', async (t) => {
  const none = checkRoutes([scope({ settings: {} })], facts([]))
  t.same(
    none.map((c) => [c.id, c.status]),
    [['routes', 'fail']],
  )
  t.equal(none[0]?.fix, 'trailboss install')
  const plugin = scope({ settings: { enabledPlugins: { 'trailboss@trailboss': true, 'x@y': true } } })
  t.same(
    checkRoutes([plugin], facts([], ['trailboss-emit'])).map((c) => [c.id, c.status]),
    [['plugin', 'ok']],
  )
  const noBin = checkRoutes([plugin], facts([]))
  t.same(
    noBin.map((c) => [c.id, c.status]),
    [['plugin', 'fail']],
  )
  t.match(noBin[0]?.fix, /npm install -g trailboss/)
  const disabled = scope({ settings: { enabledPlugins: { 'trailboss@trailboss': false } } })
  t.same(
    checkRoutes([disabled], facts([])).map((c) => c.id),
    ['routes'],
    'a disabled plugin is no route',
  )
  const both = checkRoutes(
    [plugin, scope({ scope: 'local', settings: mergeHooks({}, userEntry) })],
    facts([NODE, EMIT], ['trailboss-emit']),
  )
  t.same(
    both.map((c) => [c.id, c.status]),
    [
      ['plugin', 'ok'],
      ['double-registration', 'warn'],
    ],
  )
  t.match(both[1]?.fix, /trailboss uninstall --scope local/)
})

t.test('checkClaudeVersion: found, missing, too old, newer than tested, silent', async (t) => {
  const run = (output: string, over: Partial<ClaudeVersionRun> = {}): ClaudeVersionRun => ({
    path: '/usr/bin/claude',
    code: 0,
    output,
    timedOut: false,
    ...over,
  })
  t.match(checkClaudeVersion(run(`${OLDEST_SUPPORTED} (Claude Code)\n`)), {
    status: 'ok',
    summary: `Claude Code ${OLDEST_SUPPORTED} (/usr/bin/claude; tested with ${OLDEST_SUPPORTED} to ${NEWEST_TESTED})`,
  })
  t.match(checkClaudeVersion(run(`${NEWEST_TESTED} (Claude Code)`)), { status: 'ok' })
  t.match(checkClaudeVersion(run('2.1.100 (Claude Code)')), {
    status: 'warn',
    summary: /2\.1\.100 .* older than the oldest supported, 2\.1\.197/,
    fix: /update Claude Code/,
  })
  t.match(checkClaudeVersion(run('2.2.0 (Claude Code)')), { status: 'info', summary: /2\.2\.0 .* newer than the newest tested, 2\.1\.332/ })
  t.match(checkClaudeVersion(run('', { path: null })), { status: 'warn', summary: /not on PATH/ })
  t.match(checkClaudeVersion(run('', { code: null, timedOut: true })), { status: 'warn', summary: /did not answer in time/ })
  t.match(checkClaudeVersion(run('boom', { code: 2 })), { status: 'warn', summary: /exited 2/ })
  t.match(checkClaudeVersion(run('Claude Code, some build')), { status: 'warn', summary: /said "Claude Code, some build"/ })
})

t.test(
  'claudeCodeDoctor: its version, each scope once (in the home folder project scope is the user file), the routes, in that order',
  async (t) => {
    const root = t.testdir({ bin: {}, home: { '.claude': {} }, proj: {}, dist: { hooks: { 'emit.cjs': '' } } })
    writeFileSync(join(root, 'bin', 'claude'), `#!/bin/sh\necho "${NEWEST_TESTED} (Claude Code)"\n`, { mode: 0o755 })
    const env = { HOME: join(root, 'home'), PATH: join(root, 'bin') }
    const emitter = join(root, 'dist', 'hooks', 'emit.cjs')
    writeFileSync(
      join(root, 'home', '.claude', 'settings.json'),
      JSON.stringify(mergeHooks({}, deriveHookEntry(deriveEmitterCommand('user', process.execPath, emitter)))),
    )
    const ids = (checks: { id: string; status: string }[]): string[][] => checks.map((c) => [c.id, c.status])
    t.same(ids(await claudeCodeDoctor({ env, cwd: join(root, 'proj'), known: [emitter], now: 0 })), [
      ['claude-code', 'ok'],
      ['hooks:user', 'ok'],
      ['hooks:project', 'info'],
      ['hooks:local', 'info'],
    ])
    t.same(
      ids(await claudeCodeDoctor({ env, cwd: env.HOME, known: [emitter], now: 0 })),
      [
        ['claude-code', 'ok'],
        ['hooks:user', 'ok'],
        ['hooks:local', 'info'],
      ],
      'the user file is read once',
    )
    t.same(
      ids(await claudeCodeDoctor({ env: { ...env, PATH: '' }, cwd: join(root, 'proj'), known: [], now: 0 })),
      [['claude-code', 'info']],
      'no claude on PATH, no hook known to be ours: not set up here (doctor itself fails when no agent is)',
    )
  },
)
