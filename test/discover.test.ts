// Sessions without our hooks (issue #16): found on read from Claude Code's registry, from tmux
// panes whose process tree runs an agent, and from transcripts; marked inferred, with a hint;
// replaced by their record (same key) once a hook fires; gone when their process ends.
import t from 'tap'
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync, utimesSync } from 'node:fs'
import { isSettled, SETTLED_MS } from '../lib/fs/file-stamp.js'
import { join } from 'node:path'
import { deriveRegistryState, isClaudeProcess, parseRegistrySession, projectFolderName } from '../lib/agents/claude-code/discovery.js'
import { isCodexProcess, parseRolloutCwd, rolloutDayFolders } from '../lib/agents/codex/discovery.js'
import { isGeminiProcess, parseChatHeaderId } from '../lib/agents/gemini/discovery.js'
import {
  deriveHookless,
  deriveLookupDue,
  deriveScreenState,
  type Hookless,
  NO_HOOKS_HINT,
  SESSION_LOOKUP_AFTER_MS,
  SESSION_RECHECK_AFTER_MS,
  UNNAMED_LOOKUP_AFTER_MS,
} from '../lib/queue/discover.js'
import { deriveDescendants, parseCmdline } from '../lib/proc/process-table.js'
import { parseEnvironTmux } from '../lib/tmux/process-env.js'
import { checkHookless } from '../lib/doctor/checks.js'
import { runCli } from './helpers/cli.js'
import { baseEnv, payload, runEmitter, tempDir } from './helpers/emitter.js'
import { startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'
import type { JsonItem } from '../lib/render/queue-table.js'

const REGISTRY_ID = 'aaaaaaaa-1111-4222-8333-444444444444'
const CLAUDE_OLD_ID = 'bbbbbbbb-1111-4222-8333-444444444444'
const CODEX_ID = '01a23147-606d-7f30-9291-74234de135a4'
const CLAUDE_NEW_ID = 'cccccccc-1111-4222-8333-444444444444'

t.test('pure parts: processes, registry states, transcripts', async (t) => {
  t.ok(isClaudeProcess('claude', ['claude']))
  t.ok(isClaudeProcess('node', ['node', '/x/node_modules/@anthropic-ai/claude-code/cli.js']))
  t.notOk(isClaudeProcess('vim', ['vim', 'claude.md']))
  t.ok(isCodexProcess('node', ['node', '/x/node_modules/@openai/codex/bin/codex.js']))
  t.ok(isCodexProcess('codex', ['/x/codex']))
  t.notOk(isCodexProcess('node', ['node', 'server.js']))
  t.ok(isGeminiProcess('node', ['node', '/x/node_modules/@google/gemini-cli/dist/index.js']))
  t.notOk(isGeminiProcess('bash', ['bash']))
  t.same(parseCmdline('node\0a b\0\0c\0'), ['node', 'a b', '', 'c'])
  t.same(parseEnvironTmux('A=1\0TMUX=/tmp/s,12,0\0TMUX_PANE=%3\0'), { socket: '/tmp/s', pane: '%3', serverPid: 12 })
  t.equal(parseEnvironTmux('TMUX_PANE=%3\0'), null, 'no socket, no location')
  const table = new Map(
    [1, 2, 3, 4].map((pid) => [pid, { pid, ppid: pid === 1 ? 0 : pid === 4 ? 2 : 1, comm: `p${pid}`, startTicks: pid }]),
  )
  t.same(
    deriveDescendants(table, 1).map((p) => p.pid),
    [1, 2, 3, 4],
  )
  t.same(deriveDescendants(table, 9), [])
  t.equal(projectFolderName('/tmp/a.b/c_d'), '-tmp-a-b-c-d')
  const entry = parseRegistrySession(
    JSON.stringify({
      pid: 5,
      sessionId: 's',
      cwd: '/p',
      kind: 'interactive',
      status: 'waiting',
      waitingFor: 'input needed',
      statusUpdatedAt: 7,
    }),
  )
  t.match(entry, { pid: 5, cwd: '/p', kind: 'interactive' })
  t.same(deriveRegistryState(entry!, true), { state: 'permission', kind: 'question', since: 7, why: 'claude code: input needed' })
  t.match(deriveRegistryState({ ...entry!, status: 'waiting', waitingFor: 'permission prompt' }, true), {
    state: 'permission',
    kind: 'permission',
  })
  t.match(deriveRegistryState({ ...entry!, status: 'busy', waitingFor: null }, true), { state: 'working', kind: null })
  t.match(deriveRegistryState({ ...entry!, status: 'idle', waitingFor: null }, true), { state: 'waiting', kind: 'done' })
  t.match(
    deriveRegistryState({ ...entry!, status: 'idle', waitingFor: null }, false),
    { state: 'idle', kind: null },
    'never prompted: idle, not done',
  )
  t.equal(deriveRegistryState({ ...entry!, status: 'strange', waitingFor: null }, true), null, 'an unknown status: the screen decides')
  // A session is looked up again when its agent's transcript folders changed, not on a timer.
  const named = { sessionId: 'x', lookedAt: 1_000_000, folders: '7:123' }
  t.equal(deriveLookupDue(named, '7:123', 1_000_000 + SESSION_LOOKUP_AFTER_MS * 10), false, 'folders unchanged: not looked up again')
  t.equal(deriveLookupDue(named, '7:456', 1_000_001), true, 'a folder changed: looked up at once')
  t.equal(deriveLookupDue(named, '-', 1_000_001), true, 'a folder went or came')
  t.equal(deriveLookupDue(named, null, 1_000_001), true, 'a folder changed too recently to vouch: looked up')
  t.equal(deriveLookupDue(named, '7:123', 1_000_000 + SESSION_RECHECK_AFTER_MS), true, 'and after the long recheck in any case')
  t.equal(deriveLookupDue({ ...named, lookedAt: 0, folders: undefined }, '7:123', 1_000_000), true, 'a new process: looked up')
  t.equal(deriveLookupDue(named, undefined, 1_000_000 + SESSION_LOOKUP_AFTER_MS - 1), false, 'no folders named: the timer')
  t.equal(deriveLookupDue(named, undefined, 1_000_000 + SESSION_LOOKUP_AFTER_MS), true)
  t.equal(deriveLookupDue({ ...named, sessionId: null }, undefined, 1_000_000 + UNNAMED_LOOKUP_AFTER_MS), true, 'an unnamed one sooner')
  t.same(deriveScreenState('idle', false), { state: 'idle', kind: null })
  t.same(deriveScreenState('idle', true), { state: 'waiting', kind: 'done' })
  t.same(deriveScreenState('permission', true), { state: 'permission', kind: 'permission' })
  const rollout = readFileSync(
    new URL('./fixtures/codex/rollouts/rollout-2026-12-01T11-04-51-01a23147-606d-7f30-9291-74234de135a4.jsonl', import.meta.url),
    'utf8',
  )
  t.equal(parseRolloutCwd(rollout.slice(0, 8192)), '/ROOT/work/proj', 'the cwd is in the first 8 KiB of a real rollout')
  t.equal(parseRolloutCwd('{"type":"response_item","cwd":"/x"}'), null)
  t.same(rolloutDayFolders(Date.UTC(2026, 11, 1, 12), Date.UTC(2026, 11, 1, 13)).length > 0, true)
  t.equal(parseChatHeaderId('{"sessionId":"fa2b91f9-043b","startTime":"x"}\n{"$set":{}}'), 'fa2b91f9-043b')
  t.equal(parseChatHeaderId('{"sessionId":"../x"}'), null, 'a session id that could name a path is refused')
  const found = (sessionId: string): Hookless => ({
    sessionId,
    agent: 'codex',
    pid: 1,
    startTicks: null,
    cwd: null,
    transcriptPath: null,
    tmux: null,
    state: null,
    hadTurn: false,
    via: 'pane',
  })
  t.match(
    checkHookless([
      {
        sessionId: 'abcdefgh-1',
        agent: 'gemini',
        label: 'Gemini CLI',
        project: 'p',
        pane: '%1',
        via: 'pane',
        hooksOff: null,
        hooksReadAt: 'start',
        resume: null,
        install: 'trailboss install --agent gemini',
        ownSettings: '',
      },
    ]),
    [
      {
        id: 'hookless:abcdefgh-1',
        status: 'warn',
        summary: 'Gemini CLI p abcdefgh-1 in pane %1 runs without our hooks (found by its process); its state is a guess',
        fix: /^trailboss install --agent gemini, then restart/,
      },
    ],
  )
  t.same(
    deriveHookless([found('a'), found('b'), found('a')], new Set(['b'])).map((s) => s.sessionId),
    ['a'],
    'a record wins; one row per session',
  )
})

t.test('ls finds sessions that have no record: registry, pane processes and transcripts; a hook merges; an exit removes', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root)
  const home = env.HOME!
  const project = join(root, 'proj')
  const bin = join(root, 'bin')
  for (const d of [project, bin, join(home, '.claude', 'sessions')]) mkdirSync(d, { recursive: true })
  // Stand-ins exec'd under the agents' names: a process table shows them as `claude` and `codex`.
  copyFileSync('/bin/sleep', join(bin, 'claude'))
  copyFileSync('/bin/sleep', join(bin, 'codex'))
  const server = startTmuxServer(t)
  const paneOf = (prog: string): string => server.newPane(['new-window', '-d', '-c', project], [join(bin, prog), '1000'])
  const registryPane = paneOf('claude')
  const oldClaudePane = paneOf('claude')
  const codexPane = paneOf('codex')
  const pidOf = (pane: string): number => Number(server.tmux('display-message', '-p', '-t', pane, '#{pane_pid}').trim())
  // 2.1.332: the registry names the session, its status and (by the process) its pane.
  const registryFile = join(home, '.claude', 'sessions', `${pidOf(registryPane)}.json`)
  const registry = {
    pid: pidOf(registryPane),
    sessionId: REGISTRY_ID,
    cwd: project,
    kind: 'interactive',
    status: 'waiting',
    waitingFor: 'permission prompt',
    statusUpdatedAt: Date.now() - 5000,
  }
  writeFileSync(registryFile, JSON.stringify(registry))
  // A build without a registry: its transcript in the project folder names it.
  const claudeProject = join(home, '.claude', 'projects', projectFolderName(project))
  mkdirSync(claudeProject, { recursive: true })
  writeFileSync(join(claudeProject, `${CLAUDE_OLD_ID}.jsonl`), '{"type":"user"}\n')
  // Settled (its ctime older than the guard), so the folder vouches for what the first run found.
  await waitFor(
    () => isSettled(statSync(claudeProject, { bigint: true }).ctimeNs, Date.now()),
    'the project folder settled',
    SETTLED_MS + 5000,
  )
  // Codex: its rollout, with the process's folder in its session_meta.
  const now = new Date()
  const day = join(
    home,
    '.codex',
    'sessions',
    String(now.getFullYear()),
    String(now.getMonth() + 1).padStart(2, '0'),
    String(now.getDate()).padStart(2, '0'),
  )
  mkdirSync(day, { recursive: true })
  writeFileSync(
    join(day, `rollout-2026-12-01T11-04-51-${CODEX_ID}.jsonl`),
    `${JSON.stringify({ type: 'session_meta', payload: { id: CODEX_ID, cwd: project } })}\n`,
  )

  const cliEnv = { ...env, TMUX: server.tmuxVar() }
  const ls = async (): Promise<JsonItem[]> => {
    const r = await runCli(['ls', '--all', '--json'], cliEnv)
    t.equal(r.code, 0, r.stderr)
    return (JSON.parse(r.stdout) as { queue: JsonItem[] }).queue
  }
  const items = await ls()
  const byId = (id: string, list = items): JsonItem | undefined => list.find((i) => i.sessionId === id)
  t.match(
    byId(REGISTRY_ID),
    { agent: 'claude-code', state: 'permission', kind: 'permission', inferred: true, tmux: { pane: registryPane, socket: server.socket } },
    'the registry: a wait, in its pane',
  )
  t.match(byId(REGISTRY_ID)?.reason, /claude code: permission prompt; no hooks: trailboss install/)
  t.equal(byId(REGISTRY_ID)?.hint, NO_HOOKS_HINT, 'the row says how to get hooks, as its hint')
  t.match(
    byId(CLAUDE_OLD_ID),
    { agent: 'claude-code', inferred: true, tmux: { pane: oldClaudePane } },
    'a pane running claude, named by its transcript',
  )
  t.match(byId(CODEX_ID), { agent: 'codex', inferred: true, tmux: { pane: codexPane } }, 'a pane running codex, named by its rollout')
  t.equal(items.length, 3, 'one row each, nothing else')
  t.equal(byId(CODEX_ID)?.project, 'proj', "the project of the process's folder")
  const cache = JSON.parse(readFileSync(join(env.TRAILBOSS_HOME!, 'discovery.json'), 'utf8')) as {
    panes: Record<string, { sessionId: string; project?: string }>
  }
  t.equal(cache.panes[`${server.socket}\n${codexPane}`]?.sessionId, CODEX_ID, 'what a pane runs is remembered for the next run')
  t.equal(cache.panes[`${server.socket}\n${codexPane}`]?.project, 'proj', 'and its project label')

  // doctor lists each, with how to give it hooks; a project that turns hooks off says so.
  mkdirSync(join(project, '.claude'), { recursive: true })
  writeFileSync(join(project, '.claude', 'settings.local.json'), JSON.stringify({ disableAllHooks: true }))
  const doctor = await runCli(['doctor', '--json'], cliEnv)
  const checks = (JSON.parse(doctor.stdout) as { checks: { id: string; status: string; summary: string; fix: string | null }[] }).checks
  const check = (id: string) => checks.find((c) => c.id === `hookless:${id}`)
  t.match(check(REGISTRY_ID), {
    status: 'warn',
    summary: /Claude Code proj aaaaaaaa-1111-4222-8333-444444444444 in pane %\d+ runs without our hooks \(found in its session registry\)/,
    fix: /disableAllHooks in .*settings\.local\.json/,
  })
  t.match(check(CODEX_ID), { status: 'warn', summary: /Codex/, fix: /^trailboss install --agent codex/ })
  t.ok(check(CLAUDE_OLD_ID), 'the pane-found Claude Code session too')

  // The registry session gains hooks: its record takes over, with the same key.
  const key = byId(REGISTRY_ID)?.key
  writeFileSync(registryFile, JSON.stringify({ ...registry, status: 'busy', waitingFor: undefined, statusUpdatedAt: Date.now() }))
  const tmuxEnv = { TMUX: server.tmuxVar(), TMUX_PANE: registryPane }
  const emitted = await runEmitter(JSON.stringify(payload(REGISTRY_ID, 'UserPromptSubmit', { cwd: project, prompt: 'go' })), {
    ...env,
    ...tmuxEnv,
  })
  t.equal(emitted.code, 0)
  const merged = await ls()
  t.same(merged.filter((i) => i.sessionId === REGISTRY_ID).length, 1, 'one row for the session')
  t.match(byId(REGISTRY_ID, merged), { key, state: 'working', inferred: false, reason: null }, 'same key, the hook’s state now, no hint')
  t.equal(byId(CODEX_ID, merged)?.project, 'proj', 'the remembered project label, read again')

  // Codex exits: its row goes with it; the registry file of a dead process is left out too.
  server.tmux('kill-pane', '-t', codexPane)
  utimesSync(registryFile, new Date(), new Date())
  await waitFor(async () => byId(CODEX_ID, await ls()) === undefined, 'the codex row to go', 10_000)
  t.pass('an ended hook-less session leaves the list')

  // Nothing new in the project folder: the session is not looked up again (no search of the
  // transcripts); /clear starts a new transcript there, and the next run finds it at once.
  const paneMemo = (): { sessionId: string | null; lookedAt: number } | undefined =>
    (
      JSON.parse(readFileSync(join(env.TRAILBOSS_HOME!, 'discovery.json'), 'utf8')) as {
        panes: Record<string, { sessionId: string | null; lookedAt: number }>
      }
    ).panes[`${server.socket}\n${oldClaudePane}`]
  const lookedAt = paneMemo()?.lookedAt
  t.ok(lookedAt !== undefined && lookedAt > 0, 'the pane-found session was looked up once')
  await ls()
  t.equal(paneMemo()?.lookedAt, lookedAt, 'and not again while its project folder stays the same')
  writeFileSync(join(claudeProject, `${CLAUDE_NEW_ID}.jsonl`), '{"type":"user"}\n')
  const afterClear = await ls()
  t.match(
    byId(CLAUDE_NEW_ID, afterClear),
    { agent: 'claude-code', inferred: true, tmux: { pane: oldClaudePane } },
    'the new transcript names the pane at once',
  )
  t.equal(byId(CLAUDE_OLD_ID, afterClear), undefined, 'the old session is gone from the list')
})
