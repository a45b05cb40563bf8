// Issue #13, settings files lose bytes: a file with duplicate keys is refused untouched; line
// endings, indentation, key order, number formats and mode survive; only the exact commands
// our install writes (or wrote) are taken for ours; install → uninstall gives the original
// bytes back, over generated files.
import * as fs from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { cliBounded } from './helpers/bounded.js'
import { runInProcess } from './helpers/cli.js'
import { tempDir } from './helpers/emitter.js'
import { homeEnv } from './helpers/hostile.js'
import { claudeCodeSetup } from '../lib/agents/claude-code/setup.js'
import { deriveHookEntry, isOurHook } from '../lib/agents/claude-code/settings-hooks.js'
import { geminiSetup } from '../lib/agents/gemini/setup.js'
import { deriveEmptyHooks, type EmptyHooks } from '../lib/settings/empty-hooks.js'
import { deriveEmitterCommand } from '../lib/settings/package-root.js'
import { updateSettingsFile } from '../lib/settings/settings-file.js'

const NODE = '/usr/local/bin/node'
const EMITTER = '/usr/local/lib/node_modules/trailboss/dist/hooks/emit.cjs'
const ENTRY = deriveHookEntry(deriveEmitterCommand('user', NODE, EMITTER))
const PROJECT_ENTRY = deriveHookEntry(deriveEmitterCommand('project', NODE, EMITTER))

/** Hooks of other tools whose commands merely contain our name. */
const LOOKALIKES = [
  { type: 'command', command: 'node', args: ['/home/me/src/trailboss-slack/dist/hooks/emit.cjs'] },
  { type: 'command', command: 'node /home/me/src/trailboss-slack/dist/hooks/emit.cjs' },
  { type: 'command', command: 'python3 /opt/tools/trailboss-emit' },
  { type: 'command', command: '/usr/bin/node', args: ['/opt/trailboss-metrics/dist/hooks/emit.cjs'] },
  { type: 'command', command: '/usr/bin/node', args: ['/srv/mytrailbosstool/dist/hooks/emit.cjs'] },
  { type: 'command', command: 'trailboss-emit --other-tool' },
]

t.test('hooks of other tools that look like ours are not ours', async (t) => {
  for (const hook of LOOKALIKES) t.notOk(isOurHook(hook), JSON.stringify(hook))
  t.ok(isOurHook(ENTRY), 'what install writes for user scope')
  t.ok(isOurHook(PROJECT_ENTRY), 'what install writes for project scope')
})

t.test('duplicate keys: the file is refused, untouched', async (t) => {
  const home = tempDir(t)
  const file = join(home, 'claude', 'settings.json')
  fs.mkdirSync(join(home, 'claude'))
  const text =
    '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n  },\n  "model": "opus",\n  "hooks": {}\n}\n'
  fs.writeFileSync(file, text)
  for (const args of [['install'], ['uninstall'], ['install', '--dry-run']]) {
    const r = await cliBounded(args, homeEnv(home))
    t.equal(r.code, 1, `${args.join(' ')} refuses`)
    t.match(r.stderr, /has the key "hooks" twice \(at hooks\); left it untouched/, 'and names the key')
    t.equal(fs.readFileSync(file, 'utf8'), text, 'untouched')
  }
  const nested = '{"hooks": {"Stop": [], "Stop": [{"hooks": []}]}}'
  fs.writeFileSync(file, nested)
  const r = await cliBounded(['install'], homeEnv(home))
  t.equal(r.code, 1, 'a duplicate deeper down too')
  t.equal(fs.readFileSync(file, 'utf8'), nested)
})

t.test('a CRLF file with foreign hooks comes back byte for byte, mode kept', async (t) => {
  const home = tempDir(t)
  const file = join(home, 'claude', 'settings.json')
  fs.mkdirSync(join(home, 'claude'))
  const text = [
    '{',
    '\t"model": "opus",',
    '\t"cleanupPeriodDays": 30.0,',
    '\t"hooks": {',
    '\t\t"Stop": [',
    '\t\t\t{ "hooks": [ { "type": "command", "command": "python3 /opt/tools/trailboss-emit" } ] }',
    '\t\t]',
    '\t},',
    '\t"ratio": 1e3',
    '}',
    '',
  ].join('\r\n')
  fs.writeFileSync(file, text)
  fs.chmodSync(file, 0o640)
  const inst = await cliBounded(['install'], homeEnv(home))
  t.equal(inst.code, 0, inst.stderr)
  const installed = fs.readFileSync(file, 'utf8')
  t.notMatch(installed.replaceAll('\r\n', ''), /\n/, 'every line still ends in CRLF')
  t.match(installed, /python3 \/opt\/tools\/trailboss-emit/, 'the other tool stays')
  t.match(installed, /30\.0/, 'number formats kept')
  t.equal((fs.statSync(file).mode & 0o777).toString(8), '640', 'mode kept')
  const un = await cliBounded(['uninstall'], homeEnv(home))
  t.equal(un.code, 0, un.stderr)
  t.equal(fs.readFileSync(file, 'utf8'), text, 'install → uninstall: the original bytes')
  t.equal((fs.statSync(file).mode & 0o777).toString(8), '640', 'mode kept')
})

// ---- generated files ------------------------------------------------------------------------

type Doc = { kind: 'obj'; entries: [string, Doc][] } | { kind: 'arr'; items: Doc[] } | { kind: 'raw'; text: string }

const NUMBERS = ['0', '-0', '1', '1.0', '0.10', '1e3', '1E+2', '2.5e-3', '-12', '123456789012345678901234567890', '1.50']
const scalar: fc.Arbitrary<Doc> = fc.oneof(
  fc.constantFrom(...NUMBERS).map((text) => ({ kind: 'raw' as const, text })),
  fc.constantFrom('true', 'false', 'null').map((text) => ({ kind: 'raw' as const, text })),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => ({ kind: 'raw' as const, text: JSON.stringify(s) })),
)
const key = fc
  .oneof(fc.constantFrom('model', 'env', 'permissions', 'statusLine', 'x', 'ünï', '日本', 'a b'), fc.string({ maxLength: 8 }))
  .filter((k) => k !== 'hooks')
const value: fc.Arbitrary<Doc> = fc.letrec<{ v: Doc }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.uniqueArray(fc.tuple(key, tie('v')), { maxLength: 3, selector: ([k]) => k }).map((entries) => ({ kind: 'obj' as const, entries })),
    fc.array(tie('v'), { maxLength: 3 }).map((items) => ({ kind: 'arr' as const, items })),
  ),
})).v

const str = (s: string): Doc => ({ kind: 'raw', text: JSON.stringify(s) })
const hookDoc = (h: Record<string, unknown>): Doc => ({
  kind: 'obj',
  entries: Object.entries(h).map(([k, v]) => [
    k,
    Array.isArray(v)
      ? { kind: 'arr', items: v.map((x) => str(String(x))) }
      : typeof v === 'number'
        ? { kind: 'raw', text: String(v) }
        : str(String(v)),
  ]),
})
const foreignHook = fc.oneof(
  fc.constantFrom(...LOOKALIKES).map(hookDoc),
  fc
    .record({ type: fc.constant('command'), command: fc.constantFrom('say done', '/usr/bin/guard.sh', 'node /opt/x/index.js') })
    .map(hookDoc),
)
// Events of both agents, ours among them; an empty list and an empty hooks object are shapes too.
const hooksDoc: fc.Arbitrary<Doc> = fc
  .uniqueArray(
    fc.tuple(
      fc.constantFrom('Stop', 'PreToolUse', 'Notification', 'PreCompact', 'SessionEnd', 'SessionStart', 'BeforeTool', 'AfterAgent'),
      fc.array(fc.array(foreignHook, { minLength: 1, maxLength: 2 }), { minLength: 0, maxLength: 2 }),
    ),
    { minLength: 0, maxLength: 3, selector: ([e]) => e },
  )
  .map((events) => ({
    kind: 'obj',
    entries: events.map(
      ([e, groups]) =>
        [e, { kind: 'arr', items: groups.map((hooks) => ({ kind: 'obj', entries: [['hooks', { kind: 'arr', items: hooks }]] })) }] as [
          string,
          Doc,
        ],
    ),
  }))

const settingsDoc = fc
  .record({
    top: fc.uniqueArray(fc.tuple(key, value), { maxLength: 5, selector: ([k]) => k }),
    hooks: fc.option(hooksDoc, { nil: undefined }),
    at: fc.nat(),
  })
  .map(({ top, hooks, at }): Doc => {
    const entries = [...top]
    if (hooks) entries.splice(at % (entries.length + 1), 0, ['hooks', hooks])
    return { kind: 'obj', entries }
  })

interface Layout {
  eol: string
  indent: string
  /** Space after the colon. */
  colon: string
  finalEol: boolean
}

const layout: fc.Arbitrary<Layout> = fc.record({
  eol: fc.constantFrom('\n', '\r\n'),
  indent: fc.constantFrom('  ', '    ', '\t'),
  colon: fc.constantFrom(' ', ''),
  finalEol: fc.boolean(),
})

const render = (doc: Doc, l: Layout, depth = 0): string => {
  const pad = l.indent.repeat(depth + 1)
  const end = l.indent.repeat(depth)
  if (doc.kind === 'raw') return doc.text
  if (doc.kind === 'arr')
    return doc.items.length === 0
      ? '[]'
      : `[${l.eol}${doc.items.map((d) => pad + render(d, l, depth + 1)).join(`,${l.eol}`)}${l.eol}${end}]`
  return doc.entries.length === 0
    ? '{}'
    : `{${l.eol}${doc.entries.map(([k, d]) => `${pad}${JSON.stringify(k)}:${l.colon}${render(d, l, depth + 1)}`).join(`,${l.eol}`)}${l.eol}${end}}`
}

const COMMAND = deriveEmitterCommand('user', NODE, EMITTER)
/** Each agent's install target with the command its install writes. */
const TARGETS = [
  { agent: 'claude-code, user scope', target: claudeCodeSetup.install, command: COMMAND },
  { agent: 'claude-code, project scope', target: claudeCodeSetup.install, command: deriveEmitterCommand('project', NODE, EMITTER) },
  {
    agent: 'gemini',
    target: geminiSetup.install,
    command: { command: COMMAND.command, args: [...(COMMAND.args ?? []), '--agent', 'gemini'] },
  },
]

t.test('property: install → uninstall gives back the original bytes of generated files', async (t) => {
  const dir = tempDir(t)
  const env = { TRAILBOSS_HOME: join(dir, 'tb') }
  let n = 0
  await fc.assert(
    fc.asyncProperty(
      settingsDoc,
      layout,
      fc.constantFrom(...TARGETS.map((c) => c.agent)),
      fc.constantFrom(0o600, 0o644, 0o640),
      async (doc, l, agent, mode) => {
        const { target, command } = TARGETS.find((c) => c.agent === agent) ?? TARGETS[0]!
        const file = join(dir, `settings-${n++}.json`)
        const text = render(doc, l) + (l.finalEol ? l.eol : '')
        fs.writeFileSync(file, text)
        fs.chmodSync(file, mode)
        // What install notes before its first merge, and uninstall gives back (settings/install-note.ts).
        let keep: EmptyHooks | null = null
        await updateSettingsFile(file, env, (s) => {
          keep = deriveEmptyHooks(s)
          return target.merge(s, command, [])
        })
        const installed = fs.readFileSync(file, 'utf8')
        if (text.includes('\r\n') && /[^\r]\n/.test(installed)) throw new Error(`an LF line in a CRLF file:\n${JSON.stringify(installed)}`)
        if ((fs.statSync(file).mode & 0o777) !== mode) throw new Error('mode changed on install')
        await updateSettingsFile(file, env, (s) => target.unmerge(s, [], keep))
        const back = fs.readFileSync(file, 'utf8')
        if (back !== text) throw new Error(`bytes differ:\n${JSON.stringify(text)}\n${JSON.stringify(installed)}\n${JSON.stringify(back)}`)
        if ((fs.statSync(file).mode & 0o777) !== mode) throw new Error('mode changed on uninstall')
        fs.rmSync(file)
      },
    ),
    { numRuns: 300 },
  )
  t.pass('300 generated files')
})

// The command in-process: the settings files are what is checked; the tests above run the built CLI.
t.test('empty hooks and empty event lists come back through the CLI (Claude Code and Gemini CLI)', async (t) => {
  const home = tempDir(t)
  const env = { ...homeEnv(home), GEMINI_CLI_HOME: home }
  const cases = [
    { args: [], file: join(home, 'claude', 'settings.json'), text: '{\n  "model": "opus",\n  "hooks": {}\n}\n' },
    {
      args: [],
      file: join(home, 'claude', 'settings.json'),
      text: '{\n  "hooks": {\n    "Stop": [],\n    "PreCompact": [{"hooks": [{"type": "command", "command": "say done"}]}]\n  },\n  "x": 1\n}\n',
    },
    {
      args: ['--agent', 'gemini'],
      file: join(home, '.gemini', 'settings.json'),
      text: '{\n  "hooks": {\n    "BeforeTool": [],\n    "AfterAgent": []\n  }\n}\n',
    },
    { args: ['--agent', 'gemini'], file: join(home, '.gemini', 'settings.json'), text: '{"hooks": {}}' },
  ]
  for (const c of cases) {
    fs.mkdirSync(join(c.file, '..'), { recursive: true })
    fs.writeFileSync(c.file, c.text)
    const inst = await runInProcess(['install', ...c.args], env)
    t.equal(inst.code, 0, inst.stderr)
    t.not(fs.readFileSync(c.file, 'utf8'), c.text, 'installed')
    // A second install finds ours there; the note of the first stays.
    t.equal((await runInProcess(['install', ...c.args], env)).code, 0)
    const un = await runInProcess(['uninstall', ...c.args], env)
    t.equal(un.code, 0, un.stderr)
    t.equal(fs.readFileSync(c.file, 'utf8'), c.text, `${c.args.join(' ') || 'claude-code'}: ${JSON.stringify(c.text)} back byte for byte`)
  }
  t.same(fs.readdirSync(join(home, 'tb', 'installs')), [], 'uninstall removed the notes it used')
})
