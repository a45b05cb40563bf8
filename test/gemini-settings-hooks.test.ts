import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import {
  deriveGeminiHookEntry,
  deriveHooksDisabled,
  GEMINI_HOOK_EVENTS,
  geminiSettingsFileFor,
  isOurGeminiHook,
  listOurGeminiHooks,
  mergeGeminiHooks,
  unmergeGeminiHooks,
} from '../lib/agents/gemini/settings-hooks.js'
import { deriveGeminiChecks, geminiDoctor } from '../lib/agents/gemini/doctor.js'
import { runCli } from './helpers/cli.js'
import { BUILT_EMITTER } from './helpers/emitter.js'
import type { JsonObject } from '../lib/settings/json-value.js'
import { shellQuote, splitShellWords } from '../lib/settings/shell-line.js'

const EMITTER = '/home/u/.npm-global/lib/node_modules/trailboss/dist/hooks/emit.cjs'
const CLONE = '/home/u/my clone/dist/hooks/emit.cjs'
const entry = deriveGeminiHookEntry({ command: '/usr/bin/node', args: [EMITTER, '--agent', 'gemini'] })

t.test('shell words: quoted only where needed, split back the same', async (t) => {
  const cases: [string, string][] = [
    ['/usr/bin/node', '/usr/bin/node'],
    ['/home/u/my clone/emit.cjs', "'/home/u/my clone/emit.cjs'"],
    ["it's", `'it'\\''s'`],
    ['$HOME', "'$HOME'"],
  ]
  for (const [word, quoted] of cases) {
    t.equal(shellQuote(word), quoted, word)
    t.same(splitShellWords(quoted), [word], `round trip ${word}`)
  }
  t.same(splitShellWords('a  b\tc'), ['a', 'b', 'c'])
  t.equal(splitShellWords('a; rm -rf x'), null, 'operators are never ours')
  t.equal(splitShellWords('echo $(id)'), null)
  t.equal(splitShellWords("'open"), null)
})

t.test('our entry and what counts as ours', async (t) => {
  t.same(entry, { type: 'command', name: 'trailboss', command: `/usr/bin/node ${EMITTER} --agent gemini`, timeout: 10_000 })
  const cmd = (command: string, extra: JsonObject = {}) => ({ type: 'command', command, ...extra })
  const cases: [unknown, boolean, string][] = [
    [entry, true, 'the entry we write'],
    [cmd(`/usr/bin/node ${EMITTER}`), true, 'without --agent'],
    [cmd('trailboss-emit --agent gemini'), true, 'project scope: from PATH'],
    [cmd(`/usr/bin/node '${CLONE}' --agent gemini`), false, 'a clone not known to be ours'],
    [cmd(`/usr/bin/node /opt/other-tool/dist/hooks/emit.cjs --agent gemini`), false, "another package's emitter"],
    [cmd(`/usr/bin/node ${EMITTER} --agent gemini; curl x`), false, 'more than our command'],
    [cmd(`/usr/bin/node ${EMITTER} --verbose`), false, 'other arguments'],
    [cmd('true'), false, 'a foreign hook'],
    [{ type: 'command', command: '/usr/bin/node', args: [EMITTER] }, false, 'exec form is not Gemini CLI hook syntax'],
    [{ type: 'plugin', command: `/usr/bin/node ${EMITTER}` }, false, 'not a command hook'],
    [null, false, 'null'],
  ]
  for (const [hook, want, why] of cases) t.equal(isOurGeminiHook(hook), want, why)
  t.ok(isOurGeminiHook(cmd(`/usr/bin/node '${CLONE}' --agent gemini`), [CLONE]), 'a clone known to be ours')
})

t.test('merge: our entry once per event, foreign hooks kept in place; unmerge: back to the start', async (t) => {
  const foreign: JsonObject = {
    general: { vimMode: true },
    hooksConfig: { enabled: true },
    hooks: {
      AfterAgent: [{ matcher: '*', hooks: [{ type: 'command', command: 'notify-send done' }] }],
      BeforeModel: [{ hooks: [{ type: 'command', command: 'my-logger' }] }],
    },
  }
  const merged = mergeGeminiHooks(foreign, entry)
  const hooks = merged.hooks as Record<string, { hooks: JsonObject[] }[]>
  t.same(Object.keys(hooks), ['AfterAgent', 'BeforeModel', ...GEMINI_HOOK_EVENTS.filter((e) => e !== 'AfterAgent')])
  t.same(hooks.AfterAgent![0], (foreign.hooks as Record<string, unknown[]>).AfterAgent![0], 'the foreign group stays first, untouched')
  t.same(hooks.AfterAgent![1], { hooks: [entry] })
  t.equal(listOurGeminiHooks(merged).length, GEMINI_HOOK_EVENTS.length)
  t.same(mergeGeminiHooks(merged, entry), merged, 'a second install changes nothing')
  // A new emitter path replaces ours in place.
  const moved = deriveGeminiHookEntry({ command: '/usr/local/bin/node', args: [EMITTER, '--agent', 'gemini'] })
  const again = mergeGeminiHooks(merged, moved)
  t.equal(listOurGeminiHooks(again).length, GEMINI_HOOK_EVENTS.length)
  t.same((again.hooks as Record<string, { hooks: JsonObject[] }[]>).AfterAgent![1], { hooks: [moved] })
  t.same(unmergeGeminiHooks(merged), foreign)
  t.same(unmergeGeminiHooks({ hooks: { SessionStart: [{ hooks: [entry] }] } }), {}, 'hooks that only ours filled go')
  t.equal(unmergeGeminiHooks(foreign), foreign, 'nothing of ours: the very same object')
})

t.test('settings merge refuses what it cannot read', async (t) => {
  t.throws(() => mergeGeminiHooks({ hooks: [] as unknown as JsonObject }, entry), /"hooks" is not an object/)
  t.throws(() => mergeGeminiHooks({ hooks: { AfterAgent: {} } }, entry), /"hooks.AfterAgent" is not a list/)
  t.doesNotThrow(() => mergeGeminiHooks({ hooks: { enabled: true } }, entry), 'hooks.enabled is a setting, not an event')
})

t.test('settings files per scope', async (t) => {
  t.equal(geminiSettingsFileFor('user', { HOME: '/home/u' }, '/w'), '/home/u/.gemini/settings.json')
  t.equal(geminiSettingsFileFor('user', { HOME: '/home/u', GEMINI_CLI_HOME: '/g' }, '/w'), '/g/.gemini/settings.json')
  t.equal(geminiSettingsFileFor('project', { HOME: '/home/u' }, '/w/p'), '/w/p/.gemini/settings.json')
  t.throws(() => geminiSettingsFileFor('local', { HOME: '/home/u' }, '/w'), /no local settings/)
})

t.test('hooks turned off in the settings', async (t) => {
  t.equal(deriveHooksDisabled({}), null)
  t.equal(deriveHooksDisabled({ hooksConfig: { enabled: true } }), null)
  t.match(deriveHooksDisabled({ hooksConfig: { enabled: false } }), /runs no hooks/)
  t.match(deriveHooksDisabled({ hooksConfig: { disabled: ['trailboss'] } }), /disabled lists "trailboss"/)
})

t.test('doctor: nothing when Gemini CLI is not set up; what is wrong when it is', async (t) => {
  const file = '/home/u/.gemini/settings.json'
  const there = (p: string) => p === '/usr/bin/node' || p === EMITTER
  const checks = (settings: JsonObject | null, exists = there, error: string | null = null) =>
    deriveGeminiChecks(file, { settings, error }, [], exists)
  t.same(checks(null), [], 'no settings file')
  t.same(checks({ general: {} }), [], 'settings without our hooks')
  const merged = mergeGeminiHooks({}, entry)
  t.match(checks(merged), [{ status: 'ok', summary: /hooks for 7 events/ }])
  t.match(checks({ hooks: { SessionStart: [{ hooks: [entry] }] } }), [
    { status: 'warn', summary: /no hook of ours for BeforeAgent, BeforeTool/ },
  ])
  t.match(checks({ ...merged, hooksConfig: { enabled: false } }), [{ status: 'warn', summary: /runs no hooks/ }])
  t.match(
    checks(merged, (p) => p === '/usr/bin/node'),
    [{ status: 'fail', summary: /emit\.cjs, which is not there/ }],
  )
  t.match(checks(null, there, 'EACCES'), [{ status: 'warn', summary: /cannot read/ }])
})

t.test('install moves an earlier install’s Node hooks to the spool hook; doctor and uninstall know both', async (t) => {
  const home = fs.mkdtempSync(join(tmpdir(), 'tb-gemini-install-'))
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }))
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(home, 'tb') }
  const spool = join(dirname(BUILT_EMITTER), 'spool.sh')
  const file = join(home, '.gemini', 'settings.json')
  const foreign = { BeforeTool: [{ hooks: [{ type: 'command', name: 'mine', command: 'echo hi' }] }] }
  // What an install of the earlier version wrote: the Node emitter of this very package.
  const before = mergeGeminiHooks(
    { hooks: structuredClone(foreign) },
    deriveGeminiHookEntry({ command: process.execPath, args: [BUILT_EMITTER, '--agent', 'gemini'] }),
  )
  fs.mkdirSync(dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(before, null, 2))
  t.match(
    geminiDoctor({ env, cwd: '/', known: [BUILT_EMITTER], now: Date.now() }),
    [{ status: 'ok', summary: /hooks for 7 events/ }],
    'doctor knows the Node form',
  )
  const inst = await runCli(['install', '--agent', 'gemini'], env)
  t.equal(inst.code, 0, inst.stderr)
  const after = JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject
  const ours = listOurGeminiHooks(after, [BUILT_EMITTER, spool])
  t.same(ours.map((o) => o.event).sort(), [...GEMINI_HOOK_EVENTS].sort(), 'one hook of ours per event, the old one replaced')
  for (const o of ours)
    t.match(splitShellWords(String(o.hook.command)), ['/bin/sh', spool, 'gemini', /(^|\/)node$/], `${o.event} runs the spool hook`)
  t.match(after, { hooks: { BeforeTool: [{ hooks: [{ name: 'mine' }] }] } }, 'the foreign hook kept in place')
  t.match(
    geminiDoctor({ env, cwd: '/', known: [BUILT_EMITTER], now: Date.now() }),
    [{ status: 'ok', summary: /hooks for 7 events/ }],
    'doctor knows the spool form',
  )
  const un = await runCli(['uninstall', '--agent', 'gemini'], env)
  t.equal(un.code, 0, un.stderr)
  t.same(JSON.parse(fs.readFileSync(file, 'utf8')), { hooks: foreign }, 'uninstall takes out exactly ours')
  // An earlier install's Node hooks are taken out by uninstall too.
  fs.writeFileSync(file, JSON.stringify(before, null, 2))
  t.equal((await runCli(['uninstall', '--agent', 'gemini'], env)).code, 0)
  t.same(JSON.parse(fs.readFileSync(file, 'utf8')), { hooks: foreign }, 'the Node form too')
})

t.test('doctor: Gemini CLI events stuck in the spool', async (t) => {
  const merged = mergeGeminiHooks({}, entry)
  const checks = deriveGeminiChecks('/home/u/.gemini/settings.json', { settings: merged, error: null }, [], () => true, [5_000, 120_000])
  t.match(checks, [{ id: 'gemini:spool', status: 'warn', summary: /1 event\(s\) waited in the spool over 60 s/ }])
  t.match(
    deriveGeminiChecks('/f', { settings: merged, error: null }, [], () => true, [5_000]),
    [{ status: 'ok' }],
    'a young one is just being folded',
  )
})
