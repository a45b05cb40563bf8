import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { captureIo } from './helpers/io.js'
import { runInstall, runUninstall } from '../lib/commands/install.js'
import { hookTrustHash } from '../lib/agents/codex/hook-trust.js'
import {
  CODEX_INSTALL_EVENTS,
  deriveCodexCommand,
  deriveForeignMoves,
  deriveTrustEntries,
  isOurCodexHandler,
  mergeCodexHooks,
  unmergeCodexHooks,
} from '../lib/agents/codex/settings-hooks.js'
import { applyTrustPlan } from '../lib/agents/codex/trust-config.js'
import { shellQuote } from '../lib/settings/shell-line.js'
import type { JsonObject } from '../lib/settings/json-value.js'
import { followTrust, HOOKS_FILE, trustEntriesOf } from './helpers/codex-trust.js'

const SPOOL = '/usr/lib/node_modules/trailboss/dist/hooks/spool.sh'
const NODE = '/usr/bin/node'
const CMD = deriveCodexCommand(SPOOL, NODE)

const foreign: JsonObject = {
  hooks: {
    Stop: [{ hooks: [{ type: 'command', command: '/opt/notify.sh', timeout: 3 }] }],
    PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: 'audit' }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'x' }] }],
  },
  other: true,
}

t.test('the command: /bin/sh, the spool hook, codex, the node; quoted for sh -c', async (t) => {
  t.equal(CMD, `/bin/sh ${SPOOL} codex ${NODE}`)
  t.equal(
    deriveCodexCommand("/home/o'neil/my tools/trailboss/dist/hooks/spool.sh", NODE),
    `/bin/sh '/home/o'\\''neil/my tools/trailboss/dist/hooks/spool.sh' codex /usr/bin/node`,
  )
  t.equal(shellQuote('$(rm -rf ~)'), `'$(rm -rf ~)'`)
})

t.test('ours: exactly our command, for our package only', async (t) => {
  t.ok(isOurCodexHandler({ type: 'command', command: CMD }))
  const clone = '/home/me/src/tb/dist/hooks/spool.sh'
  t.notOk(isOurCodexHandler({ type: 'command', command: deriveCodexCommand(clone, NODE) }), 'a clone only when known')
  t.ok(isOurCodexHandler({ type: 'command', command: deriveCodexCommand(clone, NODE) }, [clone]))
  t.ok(
    isOurCodexHandler({ type: 'command', command: deriveCodexCommand("/o'x/node_modules/trailboss/dist/hooks/spool.sh", NODE) }),
    'quoted words',
  )
  for (const command of [
    `${CMD} extra`,
    `/bin/sh ${SPOOL} gemini ${NODE}`,
    `/bin/sh /x/node_modules/trailboss-slack/dist/hooks/spool.sh codex ${NODE}`,
    `sh ${SPOOL} codex ${NODE}`,
    'audit',
  ])
    t.notOk(isOurCodexHandler({ type: 'command', command }), command)
})

t.test('merge adds one group of ours per event at the end, keeps everything foreign; unmerge undoes it', async (t) => {
  const merged = mergeCodexHooks(foreign, CMD)
  const hooks = merged.hooks as Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]>
  t.same(Object.keys(hooks).sort(), [...new Set([...CODEX_INSTALL_EVENTS, 'Notification'])].sort())
  t.same(hooks.Stop![0], ((foreign.hooks as JsonObject).Stop as JsonObject[])[0], 'a foreign Stop group first, unchanged')
  t.same(hooks.Stop![1], { hooks: [{ type: 'command', command: CMD, timeout: 5 }] }, 'ours after it')
  t.equal(merged.other, true)
  t.same(mergeCodexHooks(merged, CMD), merged, 'idempotent')
  t.same(unmergeCodexHooks(merged), foreign, 'unmerge gives the foreign file back')
  const moved = mergeCodexHooks(merged, deriveCodexCommand('/usr/local/lib/node_modules/trailboss/dist/hooks/spool.sh', NODE))
  t.equal((moved.hooks as typeof hooks).Stop!.length, 2, 'a new install path replaces the old entry')
})

t.test('trust entries: the key of each handler of ours and the hash Codex computes for it', async (t) => {
  const merged = mergeCodexHooks(foreign, CMD)
  const entries = deriveTrustEntries(merged, HOOKS_FILE)
  t.equal(entries.length, CODEX_INSTALL_EVENTS.length)
  t.same(
    entries.find((e) => e.key.includes(':stop:')),
    { key: `${HOOKS_FILE}:stop:1:0`, hash: hookTrustHash('Stop', { command: CMD, timeout: 5 }) },
  )
  t.same(entries.find((e) => e.key.includes(':pre_tool_use:'))?.key, `${HOOKS_FILE}:pre_tool_use:1:0`)
  t.same(entries.find((e) => e.key.includes(':session_start:'))?.key, `${HOOKS_FILE}:session_start:0:0`)
})

const CONFIG = `model = "gpt"
# my comment

[hooks.state."/home/me/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:mine"

[tui]
x = 1
`

t.test('config.toml: our trust tables added and removed; every other byte kept', async (t) => {
  const merged = mergeCodexHooks(foreign, CMD)
  const entries = deriveTrustEntries(merged, HOOKS_FILE)
  const added = followTrust(CONFIG, foreign, merged)!
  t.ok(added.startsWith(CONFIG), 'the person’s file stays as it was, ours appended')
  const trusted = trustEntriesOf(added)
  t.equal(trusted.size, entries.length + 1)
  t.equal(trusted.get(`${HOOKS_FILE}:stop:0:0`), 'sha256:mine', 'the foreign entry kept')
  for (const e of entries) t.equal(trusted.get(e.key), e.hash, e.key)
  t.equal(followTrust(added, merged, merged), added, 'idempotent')
  t.equal(followTrust(added, merged, unmergeCodexHooks(merged)), CONFIG, 'removing ours gives the file back, byte for byte')
  t.equal(
    followTrust('', foreign, { hooks: { Stop: (merged.hooks as JsonObject).Stop! } }),
    `[hooks.state.${JSON.stringify(`${HOOKS_FILE}:stop:1:0`)}]\ntrusted_hash = ${JSON.stringify(entries.find((e) => e.key.endsWith(':stop:1:0'))!.hash)}\n`,
  )
  t.equal(followTrust(null, null, foreign), null, 'no file made for no hook of ours')
})

t.test('config.toml that is not TOML, or whose hooks.state is not a table, is refused untouched', async (t) => {
  const merged = mergeCodexHooks(foreign, CMD)
  t.throws(
    () => followTrust('model = "gpt"\nmodel = "o3"\n', foreign, merged),
    /config\.toml is not valid TOML \(.* at line 2, column \d+\); left it untouched/,
  )
  t.throws(() => followTrust('[hooks\n', foreign, merged), /is not valid TOML/)
  t.throws(() => followTrust('hooks = 1\n', foreign, merged), /its "hooks" is not a table; left it untouched/)
  t.throws(() => followTrust('[[hooks.state]]\nx = 1\n', foreign, merged), /its "hooks.state" is not a table/)
})

t.test('an edit that cannot be carried out is refused', async (t) => {
  // An array of tables cannot be renamed as a key: the edit stops, nothing to write.
  const text = `[[hooks.state."${HOOKS_FILE}:stop:1:0"]]\ntrusted_hash = "x"\n`
  t.throws(
    () =>
      applyTrustPlan(
        text,
        { drop: [], moves: [{ from: `${HOOKS_FILE}:stop:1:0`, to: `${HOOKS_FILE}:stop:0:0` }], want: [] },
        'config.toml',
      ),
    /editing the trust entries would leave config\.toml unreadable/,
  )
})

t.test('foreign handlers that ours moved: the n-th one before is the n-th one after', async (t) => {
  const theirs = { type: 'command', command: '/opt/after.sh', timeout: 7 }
  const before: JsonObject = {
    hooks: {
      Stop: [{ hooks: [{ type: 'command', command: CMD, timeout: 5 }] }, { hooks: [theirs] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [theirs] }],
    },
  }
  const after = mergeCodexHooks(before, CMD)
  t.same(deriveForeignMoves(before, after, HOOKS_FILE), [
    { from: `${HOOKS_FILE}:stop:1:0`, to: `${HOOKS_FILE}:stop:0:0`, hashes: [hookTrustHash('Stop', theirs)] },
  ])
  t.same(
    deriveForeignMoves(before, unmergeCodexHooks(before), HOOKS_FILE).map((m) => m.to),
    [`${HOOKS_FILE}:stop:0:0`],
    'uninstall moves it too',
  )
  t.same(
    deriveForeignMoves(before, { hooks: { Stop: [{ hooks: [{ ...theirs, timeout: 8 }] }] } }, HOOKS_FILE),
    [],
    'a handler that changed is not followed',
  )
  t.same(deriveForeignMoves(before, before, HOOKS_FILE), [], 'nothing moved')
})

t.test('doctor: our hooks, their trust, the command’s files, a stuck spool', async (t) => {
  const { deriveCodexChecks } = await import('../lib/agents/codex/doctor.js')
  const merged = mergeCodexHooks(foreign, CMD)
  const entries = deriveTrustEntries(merged, HOOKS_FILE)
  const trusted = followTrust(CONFIG, foreign, merged)!
  const base = { hooksFile: HOOKS_FILE, configFile: '/home/me/.codex/config.toml', known: [], missing: [], spoolAges: [] }
  t.same(deriveCodexChecks({ ...base, hooks: foreign, config: CONFIG }), [], 'nothing said when Codex is not set up')
  const ok = deriveCodexChecks({ ...base, hooks: merged, config: trusted })
  t.same(
    ok.map((c) => [c.id, c.status]),
    [
      ['codex:hooks', 'ok'],
      ['codex:trust', 'ok'],
    ],
  )
  const untrusted = deriveCodexChecks({ ...base, hooks: merged, config: CONFIG })
  t.match(untrusted[1], { id: 'codex:trust', status: 'fail', fix: 'trailboss install --agent codex' })
  t.equal(untrusted[1]!.details?.length, entries.length)
  const partial = deriveCodexChecks({ ...base, hooks: { hooks: { Stop: (merged.hooks as JsonObject).Stop! } }, config: trusted })
  t.match(partial[0], { id: 'codex:hooks', status: 'warn', summary: /no hook of ours for SessionStart, UserPromptSubmit/ })
  t.match(deriveCodexChecks({ ...base, hooks: merged, config: trusted, missing: ['/gone/node'] }).at(-1), {
    id: 'codex:command',
    status: 'fail',
  })
  t.match(deriveCodexChecks({ ...base, hooks: merged, config: trusted, spoolAges: [5_000, 120_000] }).at(-1), {
    id: 'codex:spool',
    status: 'warn',
    summary: /^Codex: 1 event\(s\) waited in the spool over 60 s/,
  })
  t.match(deriveCodexChecks({ ...base, hooks: 'not valid JSON', config: null }), [{ id: 'codex:hooks', status: 'fail' }])
  t.match(deriveCodexChecks({ ...base, hooks: merged, config: 'a = 1\na = 2\n' })[1], {
    id: 'codex:trust',
    status: 'fail',
    summary: /^Codex cannot read its config: .*config\.toml is not valid TOML/,
  })
  const inline = `[hooks.state]\n${entries.map((e) => `'${e.key}' = { trusted_hash = '${e.hash}' } # ours`).join('\n')}\n`
  t.match(
    deriveCodexChecks({ ...base, hooks: merged, config: inline })[1],
    { id: 'codex:trust', status: 'ok' },
    'trust in any TOML spelling counts',
  )
})

// ---- install and uninstall on real files (in-process, this checkout's spool hook) ----

const SPOOL_HERE = fileURLToPath(new URL('../dist/hooks/spool.sh', import.meta.url))

interface CodexHome {
  dir: string
  env: Record<string, string | undefined>
  hooksFile: string
  configFile: string
}

const codexHome = (t: Test, files: { 'hooks.json'?: string; 'config.toml'?: string } = {}): CodexHome => {
  const dir = t.testdir({ home: { '.codex': files }, tb: {} })
  const codex = join(dir, 'home', '.codex')
  return {
    dir,
    env: { PATH: process.env.PATH, HOME: join(dir, 'home'), TRAILBOSS_HOME: join(dir, 'tb') },
    hooksFile: join(codex, 'hooks.json'),
    configFile: join(codex, 'config.toml'),
  }
}

const runCodex = async (
  h: CodexHome,
  what: 'install' | 'uninstall',
  dryRun = false,
): Promise<{ code: number; out: string; err: string }> => {
  const io = captureIo(h.env, h.dir)
  const code = await (what === 'install' ? runInstall : runUninstall)({ scope: 'user', dryRun, agent: 'codex' }, io)
  return { code, out: io.out(), err: io.err() }
}

const readText = (file: string): string | null => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null)

/** The trust entries of ours that the hooks.json on disk needs. */
const ourEntries = (h: CodexHome): { key: string; hash: string }[] =>
  deriveTrustEntries(JSON.parse(readText(h.hooksFile)!) as JsonObject, h.hooksFile, [SPOOL_HERE])

type Entries = readonly { key: string; hash: string }[]

/**
 * Each way TOML lets a person (or another tool) write the same trust entries; `top`: a spelling
 * that must come before the first table.
 */
const SPELLINGS: Record<string, { top?: true; spell: (entries: Entries) => string }> = {
  'inline tables under [hooks.state]': {
    spell: (es) =>
      `[hooks.state]\n${es.map((e) => `${JSON.stringify(e.key)} = { trusted_hash = ${JSON.stringify(e.hash)} }`).join('\n')}\n`,
  },
  'single-quoted keys': { spell: (es) => es.map((e) => `[hooks.state.'${e.key}']\ntrusted_hash = "${e.hash}"\n`).join('\n') },
  'dotted keys under [hooks]': {
    spell: (es) => `[hooks]\n${es.map((e) => `state.${JSON.stringify(e.key)}.trusted_hash = ${JSON.stringify(e.hash)}`).join('\n')}\n`,
  },
  'literal strings': { spell: (es) => es.map((e) => `[hooks.state.'${e.key}']\ntrusted_hash = '${e.hash}'\n`).join('\n') },
  'comments between': {
    spell: (es) =>
      es
        .map(
          (e) =>
            `[hooks.state.${JSON.stringify(e.key)}] # set by hand\n# it trusts one hook\ntrusted_hash = ${JSON.stringify(e.hash)} # sha256\n`,
        )
        .join('\n'),
  },
  'one inline table': {
    top: true,
    spell: (es) =>
      `hooks = { state = { ${es.map((e) => `${JSON.stringify(e.key)} = { trusted_hash = ${JSON.stringify(e.hash)} }`).join(', ')} } }\n`,
  },
  'a multi-line inline table (TOML 1.1)': {
    top: true,
    spell: (es) =>
      `hooks = { state = {\n${es.map((e) => `  ${JSON.stringify(e.key)} = { trusted_hash = ${JSON.stringify(e.hash)} }, # one hook\n`).join('')}} }\n`,
  },
  'dotted keys at the top': {
    top: true,
    spell: (es) => es.map((e) => `hooks.state.${JSON.stringify(e.key)}.trusted_hash = ${JSON.stringify(e.hash)}`).join('\n') + '\n',
  },
}

const PERSON_TOP = 'model = "o3" # mine\n'
const PERSON_TABLES = '\n[profiles.fast]\nmodel = "o4-mini"\n'
const PERSON = PERSON_TOP + PERSON_TABLES

/** The person's config.toml with the entries spelt one way, where TOML lets them be. */
const configWith = (name: string, entries: Entries): string => {
  const { top, spell } = SPELLINGS[name]!
  return top ? `${PERSON_TOP}${spell(entries)}${PERSON_TABLES}` : `${PERSON}\n${spell(entries)}`
}

t.test('reinstall finds our trust entries in any TOML spelling: config.toml stays valid and unchanged', async (t) => {
  for (const name of Object.keys(SPELLINGS)) {
    await t.test(name, async (t) => {
      const h = codexHome(t, { 'config.toml': PERSON })
      t.equal((await runCodex(h, 'install')).code, 0)
      const spelled = configWith(name, ourEntries(h))
      fs.writeFileSync(h.configFile, spelled)
      const again = await runCodex(h, 'install')
      t.equal(again.code, 0, again.err)
      t.equal(readText(h.configFile), spelled, 'nothing to change: every entry of ours is there')
      t.match(again.out, /our hooks already trusted in/)
      const un = await runCodex(h, 'uninstall')
      t.equal(un.code, 0, un.err)
      const left = trustEntriesOf(readText(h.configFile)!)
      t.same([...left.keys()], [], 'uninstall takes every spelling of ours out, and the file parses')
      t.ok(readText(h.configFile)!.startsWith(PERSON_TOP), "the person's own lines stay")
      t.match(readText(h.configFile)!, PERSON_TABLES)
    })
  }
})

t.test("install then uninstall gives back a config.toml's bytes, whatever spelling its trust entries are in", async (t) => {
  const theirs = [
    { key: '/home/me/work/.codex/hooks.json:stop:0:0', hash: 'sha256:aaaa' },
    { key: '/home/me/work/.codex/hooks.json:pre_tool_use:1:0', hash: 'sha256:bbbb' },
  ]
  for (const name of Object.keys(SPELLINGS)) {
    for (const eol of ['\n', '\r\n']) {
      await t.test(`${name}${eol === '\n' ? '' : ', CRLF'}`, async (t) => {
        const config = configWith(name, theirs).replaceAll('\n', eol)
        const h = codexHome(t, { 'config.toml': config })
        t.equal((await runCodex(h, 'install')).code, 0)
        const installed = readText(h.configFile)!
        const trusted = trustEntriesOf(installed)
        for (const e of [...theirs, ...ourEntries(h)]) t.equal(trusted.get(e.key), e.hash, e.key)
        t.equal(trusted.size, theirs.length + CODEX_INSTALL_EVENTS.length, 'nothing else')
        t.equal((await runCodex(h, 'uninstall')).code, 0)
        t.equal(readText(h.configFile), config, 'byte for byte')
      })
    }
  }
})

/** A hook of the person's, put after ours in hooks.json, and trusted where it sits. */
const addTheirsAfterOurs = (h: CodexHome, entry = (hash: string) => hash): { handler: JsonObject; hash: string } => {
  const handler = { type: 'command', command: '/home/me/bin/chime.sh', timeout: 10 }
  const hooks = JSON.parse(readText(h.hooksFile)!) as { hooks: Record<string, JsonObject[]> }
  hooks.hooks.Stop!.push({ hooks: [handler] })
  fs.writeFileSync(h.hooksFile, `${JSON.stringify(hooks, null, 2)}\n`)
  const hash = hookTrustHash('Stop', handler)
  fs.appendFileSync(h.configFile, `\n# my chime\n[hooks.state.'${h.hooksFile}:stop:1:0']\ntrusted_hash = '${entry(hash)}'\n`)
  return { handler, hash }
}

t.test('a hook of the person’s after ours keeps its trust when reinstall puts ours last', async (t) => {
  const h = codexHome(t, { 'config.toml': PERSON })
  t.equal((await runCodex(h, 'install')).code, 0)
  const { handler, hash } = addTheirsAfterOurs(h)
  const dry = await runCodex(h, 'install', true)
  t.match(dry.out, `+[hooks.state.'${h.hooksFile}:stop:0:0']`, 'the dry run shows the entry following its hook')
  const again = await runCodex(h, 'install')
  t.equal(again.code, 0, again.err)
  const stop = (JSON.parse(readText(h.hooksFile)!) as { hooks: Record<string, { hooks: JsonObject[] }[]> }).hooks.Stop!
  t.same(stop[0]!.hooks, [handler], 'theirs first now, ours last')
  const trusted = trustEntriesOf(readText(h.configFile)!)
  t.equal(trusted.get(`${h.hooksFile}:stop:0:0`), hash, 'their entry moved with their hook, spelling and all')
  for (const e of ourEntries(h)) t.equal(trusted.get(e.key), e.hash, e.key)
  t.match(readText(h.configFile)!, `# my chime\n[hooks.state.'${h.hooksFile}:stop:0:0']\ntrusted_hash = '${hash}'\n`)
  t.match(again.out, /backup of the previous file/)
})

t.test('a hook of the person’s after ours keeps its trust when uninstall takes ours out', async (t) => {
  const h = codexHome(t, { 'config.toml': PERSON })
  t.equal((await runCodex(h, 'install')).code, 0)
  const { hash } = addTheirsAfterOurs(h)
  const un = await runCodex(h, 'uninstall')
  t.equal(un.code, 0, un.err)
  t.same([...trustEntriesOf(readText(h.configFile)!)], [[`${h.hooksFile}:stop:0:0`, hash]], 'only theirs, at its new place')
})

t.test('a trust entry whose hash no longer matches its hook does not follow it', async (t) => {
  const h = codexHome(t, { 'config.toml': PERSON })
  t.equal((await runCodex(h, 'install')).code, 0)
  addTheirsAfterOurs(h, () => 'sha256:stale')
  t.equal((await runCodex(h, 'uninstall')).code, 0)
  t.same([...trustEntriesOf(readText(h.configFile)!)], [[`${h.hooksFile}:stop:1:0`, 'sha256:stale']], 'left where it was')
})

t.test('hooks.json shapes we cannot merge into are refused untouched, as for Gemini CLI', async (t) => {
  for (const [text, why] of [
    ['{\n  "hooks": []\n}\n', /"hooks" is not an object/],
    ['{\n  "hooks": { "Stop": { "hooks": [] } }\n}\n', /"hooks\.Stop" is not a list/],
  ] as const) {
    const h = codexHome(t, { 'hooks.json': text, 'config.toml': PERSON })
    const r = await runCodex(h, 'install')
    t.equal(r.code, 1)
    t.match(r.err, why)
    t.equal(readText(h.hooksFile), text, 'hooks.json untouched')
    t.equal(readText(h.configFile), PERSON, 'config.toml untouched')
    t.same(fs.readdirSync(join(h.dir, 'tb')), [], 'no backup, no note')
  }
})

t.test('a config.toml that is not TOML: install and uninstall refuse, and write neither file', async (t) => {
  const broken = 'model = "o3"\nmodel = "o4"\n'
  const h = codexHome(t, { 'config.toml': PERSON })
  t.equal((await runCodex(h, 'install')).code, 0)
  const hooks = readText(h.hooksFile)
  fs.writeFileSync(h.configFile, broken)
  for (const what of ['install', 'uninstall'] as const) {
    const r = await runCodex(h, what)
    t.equal(r.code, 1, what)
    t.match(r.err, /config\.toml is not valid TOML \(.*line 2.*\); left it untouched/)
    t.equal(readText(h.configFile), broken)
    t.equal(readText(h.hooksFile), hooks, 'hooks.json untouched too')
  }
  const fresh = codexHome(t, { 'config.toml': broken })
  t.equal((await runCodex(fresh, 'install')).code, 1)
  t.equal(readText(fresh.hooksFile), null, 'no hooks.json made')
})
