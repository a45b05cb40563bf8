// GitHub Copilot CLI's hook file: our entries, what counts as ours, the pure merge and unmerge,
// and install / uninstall / --dry-run / refusals through the built CLI, down to a hook line run
// by bash (as Copilot runs it) whose event reaches the queue.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import {
  COPILOT_HOOK_EVENTS,
  copilotHookFileFor,
  deriveCopilotCommand,
  deriveCopilotHookEntry,
  isOurCopilotHook,
  mergeCopilotHooks,
  unmergeCopilotHooks,
} from '../lib/agents/copilot/settings-hooks.js'
import { copilotDoctor, deriveCopilotChecks } from '../lib/agents/copilot/doctor.js'
import type { JsonObject } from '../lib/settings/json-value.js'
import { CLI, runCli } from './helpers/cli.js'
import { BUILT_EMITTER, tempDir } from './helpers/emitter.js'

const SPOOL = '/home/u/.npm-global/lib/node_modules/trailboss/dist/hooks/spool.sh'
const CLONE = '/home/u/my clone/dist/hooks/spool.sh'
const runner = (spool = SPOOL) => ({ command: '/bin/sh', args: [spool, 'copilot', '/usr/bin/node'] })

t.test('our entry and what counts as ours', async (t) => {
  t.same(deriveCopilotHookEntry('preToolUse', runner()), {
    type: 'command',
    bash: `TRAILBOSS_COPILOT_EVENT=preToolUse /bin/sh ${SPOOL} copilot /usr/bin/node`,
    timeoutSec: 5,
  })
  const cmd = (line: string, key = 'bash') => ({ type: 'command', [key]: line })
  const ours = deriveCopilotCommand('agentStop', runner())
  const cases: [unknown, boolean, string][] = [
    [cmd(ours), true, 'the line we write'],
    [cmd(ours, 'command'), true, 'under `command`, which Copilot runs alike'],
    [cmd(`/bin/sh ${SPOOL} copilot /usr/bin/node`), false, 'no event name'],
    [cmd(`TRAILBOSS_COPILOT_EVENT=agentStop /bin/sh ${SPOOL} codex /usr/bin/node`), false, "another agent's spool line"],
    [cmd(`TRAILBOSS_COPILOT_EVENT=agentStop /bin/sh /opt/other/dist/hooks/spool.sh copilot /usr/bin/node`), false, "another package's"],
    [cmd(`${ours}; curl x`), false, 'more than our command'],
    [cmd(`X=1 /bin/sh ${SPOOL} copilot /usr/bin/node`), false, 'another variable'],
    [cmd('echo hi'), false, 'a foreign hook'],
    [{ type: 'prompt', bash: ours }, false, 'not a command hook'],
    [null, false, 'null'],
  ]
  for (const [hook, want, why] of cases) t.equal(isOurCopilotHook(hook as never), want, why)
  const clone = cmd(deriveCopilotCommand('agentStop', runner(CLONE)))
  t.notOk(isOurCopilotHook(clone), 'a clone not known to be ours')
  t.ok(isOurCopilotHook(clone, [CLONE]), 'a clone known to be ours')
})

t.test('merge: one entry per event at the end of its list, foreign ones kept; unmerge: back to the start', async (t) => {
  const foreign: JsonObject = {
    version: 1,
    disableAllHooks: false,
    hooks: {
      agentStop: [{ type: 'command', bash: 'notify-send done', timeoutSec: 3 }],
      preCompact: [{ type: 'command', bash: 'my-logger' }],
    },
  }
  const merged = mergeCopilotHooks(foreign, runner())
  const hooks = merged.hooks as Record<string, JsonObject[]>
  t.same(Object.keys(hooks), ['agentStop', 'preCompact', ...COPILOT_HOOK_EVENTS.filter((e) => e !== 'agentStop')])
  t.same(hooks.agentStop, [{ type: 'command', bash: 'notify-send done', timeoutSec: 3 }, deriveCopilotHookEntry('agentStop', runner())])
  for (const e of COPILOT_HOOK_EVENTS) t.equal(hooks[e]!.filter((h) => isOurCopilotHook(h)).length, 1, `${e}: one of ours`)
  t.same(mergeCopilotHooks(merged, runner()), merged, 'a second install changes nothing')
  t.same(unmergeCopilotHooks(merged), foreign)
  t.equal(unmergeCopilotHooks(foreign), foreign, 'nothing of ours: the very same object')
  const fresh = mergeCopilotHooks({}, runner())
  t.same(Object.keys(fresh), ['version', 'hooks'], 'a new file says its version first')
  t.same(unmergeCopilotHooks(fresh), {}, 'a file only ours filled is left empty (uninstall removes it)')
  t.same(
    unmergeCopilotHooks(fresh, [], ['agentStop'], true),
    { version: 1, hooks: { agentStop: [] } },
    'containers empty before install stay',
  )
})

t.test('merge refuses a file it cannot read', async (t) => {
  t.throws(() => mergeCopilotHooks({ version: 2 }, runner()), /"version": 2, not 1/)
  t.throws(() => mergeCopilotHooks({ hooks: [] as unknown as JsonObject }, runner()), /"hooks" in the hook file is not an object/)
  t.throws(() => mergeCopilotHooks({ hooks: { agentStop: {} } }, runner()), /"hooks.agentStop" in the hook file is not a list/)
})

t.test('hook files per scope', async (t) => {
  t.equal(copilotHookFileFor('user', { HOME: '/home/u' }, '/w'), '/home/u/.copilot/hooks/trailboss.json')
  t.equal(copilotHookFileFor('user', { HOME: '/home/u', COPILOT_HOME: '/c' }, '/w'), '/c/hooks/trailboss.json')
  t.equal(copilotHookFileFor('project', { HOME: '/home/u' }, '/w/p'), '/w/p/.github/hooks/trailboss.json')
  t.throws(() => copilotHookFileFor('local', { HOME: '/home/u' }, '/w'), /no local hook file/)
})

t.test('install, --dry-run, a refusal and uninstall through the CLI; the installed line feeds the queue', async (t) => {
  const dir = tempDir(t)
  const home = join(dir, 'home')
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(dir, 'tb') }
  const file = join(home, '.copilot', 'hooks', 'trailboss.json')
  const spool = join(dirname(BUILT_EMITTER), 'spool.sh')

  const dry = await runCli(['install', '--agent', 'copilot', '--dry-run'], env)
  t.equal(dry.code, 0, dry.stderr)
  t.notOk(fs.existsSync(file), '--dry-run writes nothing')

  // A person's entry in our file, in their own layout: kept byte for byte.
  const foreignText = '{\n    "version": 1,\n    "hooks": { "agentStop": [ { "type": "command", "bash": "echo mine" } ] }\n}\n'
  fs.mkdirSync(dirname(file), { recursive: true })
  fs.writeFileSync(file, foreignText)
  const inst = await runCli(['install', '--agent', 'copilot'], env)
  t.equal(inst.code, 0, inst.stderr)
  const after = JSON.parse(fs.readFileSync(file, 'utf8')) as { version: number; hooks: Record<string, JsonObject[]> }
  t.equal(after.version, 1)
  t.same(after.hooks.agentStop![0], { type: 'command', bash: 'echo mine' }, 'the foreign entry stays first')
  for (const e of COPILOT_HOOK_EVENTS) {
    const mine = after.hooks[e]!.filter((h) => isOurCopilotHook(h, [spool]))
    t.equal(mine.length, 1, `${e}: one hook of ours`)
    t.match(mine[0]!.bash, new RegExp(`^TRAILBOSS_COPILOT_EVENT=${e} /bin/sh \\S*spool\\.sh copilot \\S*node$`), `${e} runs the spool hook`)
  }
  const backups = fs.readdirSync(join(dir, 'tb', 'backups'))
  t.equal(backups.length, 1, 'a backup of what was there')
  t.equal(fs.readFileSync(join(dir, 'tb', 'backups', backups[0]!), 'utf8'), foreignText)

  // The installed notification line, run as Copilot runs it, with a captured payload: the session waits.
  const [pre, note] = ['preToolUse', 'notification'].map((e) => String(after.hooks[e]!.find((h) => isOurCopilotHook(h, [spool]))!.bash))
  const sessionId = '50484cbd-bd73-442b-a0d9-1b949c0d6b89'
  const hookEnv = { ...env, COPILOT_LOADER_PID: '9848', TMUX: undefined, TMUX_PANE: undefined }
  const at = { sessionId, timestamp: Date.now(), cwd: dir }
  execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', pre!], {
    env: hookEnv,
    input: JSON.stringify({
      ...at,
      toolName: 'bash',
      toolArgs: { command: 'echo probe > probe-out.txt', description: 'Write a marker file' },
    }),
  })
  execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', note!], {
    env: hookEnv,
    input: JSON.stringify({
      ...at,
      message: 'Run command: echo probe > probe-out.txt',
      title: 'Permission needed',
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
    }),
  })
  const ls = await runCli(['ls', '--json', '--all', '--agent', 'copilot'], env)
  t.equal(ls.code, 0, ls.stderr)
  t.match(JSON.parse(ls.stdout), { queue: [{ sessionId, agent: 'copilot', state: 'permission', kind: 'permission' }] })

  // A file we cannot merge into is refused and left as it was.
  const v2 = '{"version": 2, "hooks": {}}\n'
  const project = join(dir, 'proj')
  const projectFile = join(project, '.github', 'hooks', 'trailboss.json')
  fs.mkdirSync(dirname(projectFile), { recursive: true })
  fs.writeFileSync(projectFile, v2)
  const refused = spawnSync(process.execPath, [CLI, 'install', '--agent', 'copilot', '--scope', 'project'], {
    cwd: project,
    env,
    encoding: 'utf8',
  })
  t.not(refused.status, 0)
  t.match(refused.stderr, /"version": 2/)
  t.equal(fs.readFileSync(projectFile, 'utf8'), v2, 'the refused file is untouched')

  const un = await runCli(['uninstall', '--agent', 'copilot'], env)
  t.equal(un.code, 0, un.stderr)
  t.equal(fs.readFileSync(file, 'utf8'), foreignText, 'uninstall gives back the file byte for byte')
})

t.test('a file install created is removed by uninstall', async (t) => {
  const dir = tempDir(t)
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: join(dir, 'home'), TRAILBOSS_HOME: join(dir, 'tb') }
  const file = join(dir, 'home', '.copilot', 'hooks', 'trailboss.json')
  t.equal((await runCli(['install', '--agent', 'copilot'], env)).code, 0)
  t.ok(fs.existsSync(file))
  const un = await runCli(['uninstall', '--agent', 'copilot'], env)
  t.equal(un.code, 0, un.stderr)
  t.notOk(fs.existsSync(file), 'removed')
})

t.test('doctor: nothing when Copilot is not set up; what is wrong when it is', async (t) => {
  const file = '/home/u/.copilot/hooks/trailboss.json'
  const there = (p: string): boolean => p === '/bin/sh' || p === '/usr/bin/node' || p === SPOOL
  const checks = (settings: JsonObject | null, exists = there, error: string | null = null, ages: number[] = []) =>
    deriveCopilotChecks(file, { settings, error }, [], exists, ages)
  t.same(checks(null), [], 'no hook file')
  t.same(checks({ version: 1, hooks: { agentStop: [{ type: 'command', bash: 'echo mine' }] } }), [], 'a hook file without ours')
  const merged = mergeCopilotHooks({}, runner())
  t.match(checks(merged), [{ status: 'ok', summary: /hooks for 9 events/ }])
  t.match(checks({ version: 1, hooks: { agentStop: [deriveCopilotHookEntry('agentStop', runner())] } }), [
    { status: 'warn', summary: /no hook of ours for sessionStart, userPromptSubmitted/ },
  ])
  t.match(
    checks(merged, (p) => p !== SPOOL),
    [{ status: 'fail', summary: /spool\.sh, which is not there/ }],
  )
  t.match(checks(null, there, 'EACCES'), [{ status: 'warn', summary: /cannot read/ }])
  t.match(checks(merged, there, null, [120_000]), [{ id: 'copilot:spool', status: 'warn' }])
})

t.test('doctor reads what install wrote', async (t) => {
  const dir = tempDir(t)
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: join(dir, 'home'), TRAILBOSS_HOME: join(dir, 'tb') }
  const ctx = { env, cwd: dir, known: [BUILT_EMITTER], now: Date.now() }
  t.same(copilotDoctor(ctx), [], 'not set up: nothing to say')
  t.equal((await runCli(['install', '--agent', 'copilot'], env)).code, 0)
  t.match(copilotDoctor(ctx), [{ status: 'ok', summary: /hooks for 9 events/ }])
})
