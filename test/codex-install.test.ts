import t from 'tap'
import { hookTrustHash } from '../lib/agents/codex/hook-trust.js'
import { CODEX_INSTALL_EVENTS, deriveCodexCommand, deriveTrustEntries, findTrustTables, isOurCodexHandler, mergeCodexHooks, unmergeCodexHooks, updateTrustTables } from '../lib/agents/codex/install.js'
import { shellQuote } from '../lib/settings/shell-line.js'
import type { JsonObject } from '../lib/settings/json-value.js'

const SPOOL = '/usr/lib/node_modules/trailboss/dist/hooks/spool.sh'
const NODE = '/usr/bin/node'
const CMD = deriveCodexCommand(SPOOL, NODE)
const HOOKS_FILE = '/home/me/.codex/hooks.json'

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
  t.equal(deriveCodexCommand("/home/o'neil/my tools/trailboss/dist/hooks/spool.sh", NODE), `/bin/sh '/home/o'\\''neil/my tools/trailboss/dist/hooks/spool.sh' codex /usr/bin/node`)
  t.equal(shellQuote('$(rm -rf ~)'), `'$(rm -rf ~)'`)
})

t.test('ours: exactly our command, for our package only', async (t) => {
  t.ok(isOurCodexHandler({ type: 'command', command: CMD }))
  const clone = '/home/me/src/tb/dist/hooks/spool.sh'
  t.notOk(isOurCodexHandler({ type: 'command', command: deriveCodexCommand(clone, NODE) }), 'a clone only when known')
  t.ok(isOurCodexHandler({ type: 'command', command: deriveCodexCommand(clone, NODE) }, [clone]))
  t.ok(isOurCodexHandler({ type: 'command', command: deriveCodexCommand("/o'x/node_modules/trailboss/dist/hooks/spool.sh", NODE) }), 'quoted words')
  for (const command of [`${CMD} extra`, `/bin/sh ${SPOOL} gemini ${NODE}`, `/bin/sh /x/node_modules/trailboss-slack/dist/hooks/spool.sh codex ${NODE}`, `sh ${SPOOL} codex ${NODE}`, 'audit'])
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
  t.same(entries.find((e) => e.key.includes(':stop:')), { key: `${HOOKS_FILE}:stop:1:0`, hash: hookTrustHash('Stop', { command: CMD, timeout: 5 }) })
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
  const entries = deriveTrustEntries(mergeCodexHooks(foreign, CMD), HOOKS_FILE)
  const ours = (x: { key: string; hash: string | null }): boolean => entries.some((e) => e.key === x.key && e.hash === x.hash)
  const added = updateTrustTables(CONFIG, entries, ours)
  t.ok(added.startsWith(CONFIG), 'the person’s file stays as it was, ours appended')
  const tables = findTrustTables(added)
  t.equal(tables.length, entries.length + 1)
  t.match(tables[0], { key: `${HOOKS_FILE}:stop:0:0`, hash: 'sha256:mine' }, 'the foreign entry kept')
  t.equal(updateTrustTables(added, entries, ours), added, 'idempotent')
  t.equal(updateTrustTables(added, [], ours), CONFIG, 'removing ours gives the file back, byte for byte')
  t.equal(updateTrustTables('', entries.slice(0, 1), ours), `[hooks.state.${JSON.stringify(entries[0]!.key)}]\ntrusted_hash = ${JSON.stringify(entries[0]!.hash)}\n`)
})

t.test('doctor: our hooks, their trust, the command’s files, a stuck spool', async (t) => {
  const { deriveCodexChecks } = await import('../lib/agents/codex/doctor.js')
  const merged = mergeCodexHooks(foreign, CMD)
  const entries = deriveTrustEntries(merged, HOOKS_FILE)
  const trusted = updateTrustTables(CONFIG, entries, () => false)
  const base = { hooksFile: HOOKS_FILE, configFile: '/home/me/.codex/config.toml', known: [], missing: [], spoolAges: [] }
  t.same(deriveCodexChecks({ ...base, hooks: foreign, config: CONFIG }), [], 'nothing said when Codex is not set up')
  const ok = deriveCodexChecks({ ...base, hooks: merged, config: trusted })
  t.same(ok.map((c) => [c.id, c.status]), [['codex:hooks', 'ok'], ['codex:trust', 'ok']])
  const untrusted = deriveCodexChecks({ ...base, hooks: merged, config: CONFIG })
  t.match(untrusted[1], { id: 'codex:trust', status: 'fail', fix: 'trailboss install --agent codex' })
  t.equal(untrusted[1]!.details?.length, entries.length)
  const partial = deriveCodexChecks({ ...base, hooks: { hooks: { Stop: (merged.hooks as JsonObject).Stop! } }, config: trusted })
  t.match(partial[0], { id: 'codex:hooks', status: 'warn', summary: /no hook of ours for SessionStart, UserPromptSubmit/ })
  t.match(deriveCodexChecks({ ...base, hooks: merged, config: trusted, missing: ['/gone/node'] }).at(-1), { id: 'codex:command', status: 'fail' })
  t.match(deriveCodexChecks({ ...base, hooks: merged, config: trusted, spoolAges: [5_000, 120_000] }).at(-1), { id: 'codex:spool', status: 'warn', summary: /^Codex: 1 event\(s\) waited in the spool over 60 s/ })
  t.match(deriveCodexChecks({ ...base, hooks: 'not valid JSON', config: null }), [{ id: 'codex:hooks', status: 'fail' }])
})
