// Sessions without our hooks, as a person with Claude Code 2.1.332, Codex 0.171 and Gemini CLI
// 0.61 found them: the age and kind a session keeps when its first hook fires, the install hint
// apart from what the agent said, doctor's advice per agent, a dialog seen within a second, and
// a first hook that lands mid-turn. Real files, a real tmux server on a private socket.
import t from 'tap'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { projectFolderName } from '../lib/agents/claude-code/discovery.js'
import { deriveTranscriptVerdict, type TranscriptEntry } from '../lib/agents/claude-code/transcript.js'
import { formatShow } from '../lib/commands/show.js'
import { checkHookless, type HooklessFacts } from '../lib/doctor/checks.js'
import { installCommandFor } from '../lib/agents/setup-registry.js'
import { NO_HOOKS_HINT } from '../lib/queue/discover.js'
import { applyHooklessAsk, deriveHooklessAsk } from '../lib/queue/hookless-ask.js'
import { deriveContinuedWait, mayContinueWait } from '../lib/queue/hookless-wait.js'
import { loadQueue } from '../lib/queue/load.js'
import { formatPlain, toJsonItem } from '../lib/render/queue-table.js'
import type { SessionRecord } from '../lib/record/types.js'
import { capturePanes } from '../lib/tmux/panes.js'
import { baseEnv, payload, runEmitter, tempDir } from './helpers/emitter.js'
import { queueItem } from './helpers/queue-item.js'
import { startTmuxServer } from './helpers/tmux-server.js'

const QUESTION = 'Done. Should I also update the docs?'
const facts = (over: Partial<HooklessFacts>): HooklessFacts => ({
  sessionId: '01a23147-606d-7f30-9291-74234de135a4',
  agent: 'codex',
  label: 'Codex',
  project: 'early',
  pane: '%1',
  via: 'pane',
  hooksOff: null,
  hooksReadAt: 'start',
  resume: 'codex resume 01a23147-606d-7f30-9291-74234de135a4',
  install: installCommandFor('codex'),
  ownSettings: 'a session run with a CODEX_HOME of its own reads hooks.json there',
  ...over,
})

t.test("doctor tells each agent's truth, with whole labels", async (t) => {
  const [codex] = checkHookless([facts({})])
  t.match(
    codex?.fix,
    /trailboss install --agent codex, then restart the session \(quit it, then codex resume 01a23147-\S+ in its folder\): Codex reads its hooks only when a session starts/,
  )
  t.notMatch(codex?.fix, /next event|--settings/, 'no "next event", no Claude Code flag for Codex')
  const [gemini] = checkHookless([
    facts({
      agent: 'gemini',
      label: 'Gemini CLI',
      resume: null,
      ownSettings: 'GEMINI_CLI_HOME=<that folder> trailboss install --agent gemini',
    }),
  ])
  t.match(gemini?.fix, /restart the session: Gemini CLI reads its hooks only when a session starts/)
  t.notMatch(gemini?.fix, /next event|--settings/)
  const [claude] = checkHookless([
    facts({
      agent: 'claude-code',
      label: 'Claude Code',
      sessionId: 'claude-code-pid-4242',
      hooksReadAt: 'next-event',
      resume: null,
      install: installCommandFor('claude-code'),
      ownSettings: 'a session run with --settings of its own needs our hooks in those settings',
    }),
  ])
  t.match(claude?.summary, /^Claude Code early claude-code-pid-4242 in pane %1 /, 'the whole name, not `claude-c`')
  t.match(claude?.fix, /^trailboss install \(a running session picks the hooks up at its next event\); a session run with --settings/)
})

t.test('pure: the ask of a hook-less wait, the question rule, a wait that continues', async (t) => {
  const lines = [
    { who: 'you' as const, text: 'go', at: null },
    { who: 'agent' as const, text: QUESTION, at: null },
  ]
  t.same(deriveHooklessAsk(lines), { tool: null, message: QUESTION })
  const pending = deriveHooklessAsk([...lines, { who: 'tool' as const, text: 'Bash {"command":"touch /x"}', at: null }])
  t.same(pending.tool, { name: 'Bash', input: { command: 'touch /x' }, useId: null }, 'the tool call with no result yet')
  const rec = { state: 'waiting', kind: 'done', tool: null, lastTool: null, message: null } as unknown as SessionRecord
  t.equal(applyHooklessAsk(rec, { tool: null, message: QUESTION }).kind, 'question', 'last line ends in ?: a question, as Stop says')
  t.equal(applyHooklessAsk(rec, { tool: null, message: 'All done here.' }).kind, 'done')
  const perm = applyHooklessAsk({ ...rec, state: 'permission', kind: 'permission' }, pending)
  t.equal(perm.tool?.name, 'Bash', 'a dialog names its command')
  const memo = { state: 'waiting' as const, kind: 'question' as const, since: 1000, size: 10 }
  const first = { ...rec, since: 5000, firstEventAt: 5000 } as SessionRecord
  t.ok(mayContinueWait(first, memo), 'a first event that set the same wait')
  t.notOk(mayContinueWait({ ...first, firstEventAt: 4000 }, memo), 'an earlier event of the record (a turn) begins a new wait')
  t.notOk(mayContinueWait({ ...first, state: 'permission' } as SessionRecord, memo), 'another state')
  t.match(deriveContinuedWait(first, memo), { since: 1000, kind: 'question' })
})

t.test('show and the table: the hint is Trail Boss’s, apart from the agent’s words', async (t) => {
  const item = queueItem({
    inferred: true,
    hint: NO_HOOKS_HINT,
    ask: { tool: 'Bash', input: { command: 'touch /x' }, message: null },
    state: 'permission',
    kind: 'permission',
  })
  const text = formatShow(item, null, null, 0)
  t.match(text, /Trail Boss's hint \(not from the agent\):\n {2}no hooks: trailboss install/)
  t.notMatch(text, /Notice:\n {2}no hooks/, 'never shown as the agent’s notice')
  t.match(formatPlain([item], 0), /\tBash: touch \/x\t/, 'ASK: the command when known')
  t.match(formatPlain([queueItem({ hint: NO_HOOKS_HINT })], 0), /\tno hooks: trailboss install\t/, 'the hint when nothing else is known')
  t.equal(toJsonItem(item).hint, NO_HOOKS_HINT)
  t.equal(toJsonItem(item).ask.message, null)
})

t.test('a prompt line from before the wait began is not the person coming back (Claude Code)', async (t) => {
  const line = (promptId: string, at: string): TranscriptEntry => ({
    type: 'user',
    promptId,
    timestamp: at,
    message: { role: 'user', content: 'x' },
  })
  const wait = { promptId: 'p2', pendingToolUseId: null, permission: false, since: Date.parse('2026-12-02T10:00:05Z') }
  t.equal(deriveTranscriptVerdict([line('p1', '2026-12-02T10:00:00Z')], wait, 0), null)
  t.match(deriveTranscriptVerdict([line('p3', '2026-12-02T10:00:09Z')], wait, 0), { verdict: 'moved-on', why: 'new-prompt' })
})

interface Lab {
  root: string
  env: ReturnType<typeof baseEnv>
  server: ReturnType<typeof startTmuxServer>
  project: string
  bin: string
}

const lab = (t: Parameters<typeof tempDir>[0]): Lab => {
  const root = tempDir(t)
  const project = join(root, 'proj')
  const bin = join(root, 'bin')
  const env0 = baseEnv(root)
  for (const d of [project, bin, join(env0.HOME!, '.claude', 'sessions'), env0.TRAILBOSS_HOME!]) mkdirSync(d, { recursive: true })
  const server = startTmuxServer(t, { size: [160, 40] })
  return { root, env: { ...env0, TMUX: server.tmuxVar() }, server, project, bin }
}

const userLine = (promptId: string, at: number, text: string): string =>
  `${JSON.stringify({ type: 'user', promptId, timestamp: new Date(at).toISOString(), message: { role: 'user', content: text } })}\n`
const replyLine = (at: number, text: string): string =>
  `${JSON.stringify({ type: 'assistant', timestamp: new Date(at).toISOString(), message: { role: 'assistant', content: [{ type: 'text', text }] } })}\n`

/** A Claude Code stand-in in a pane, in Claude Code's registry, with a transcript of one finished turn. */
const claudeSession = (l: Lab, id: string, status: string, since: number, last: string): { transcript: string; pane: string } => {
  if (!existsSync(join(l.bin, 'claude'))) copyFileSync('/bin/sleep', join(l.bin, 'claude'))
  const pane = l.server.newPane(['new-window', '-d', '-c', l.project], [join(l.bin, 'claude'), '1000'])
  const pid = Number(l.server.tmux('display-message', '-p', '-t', pane, '#{pane_pid}').trim())
  writeFileSync(
    join(l.env.HOME!, '.claude', 'sessions', `${pid}.json`),
    JSON.stringify({ pid, sessionId: id, cwd: l.project, kind: 'interactive', status, statusUpdatedAt: since }),
  )
  const dir = join(l.env.HOME!, '.claude', 'projects', projectFolderName(l.project))
  mkdirSync(dir, { recursive: true })
  const transcript = join(dir, `${id}.jsonl`)
  writeFileSync(transcript, userLine('p1', since - 3000, 'go') + replyLine(since - 1000, last))
  return { transcript, pane }
}

const emit = async (l: Lab, pane: string, id: string, transcript: string, name: string, extra: Record<string, unknown>): Promise<void> => {
  const r = await runEmitter(JSON.stringify(payload(id, name, { cwd: l.project, transcript_path: transcript, ...extra })), {
    ...l.env,
    TMUX_PANE: pane,
  })
  if (r.code !== 0) throw new Error(`emitter: ${r.stderr}`)
}

const load = (l: Lab, now = Date.now()) => loadQueue({ env: l.env, now: () => now })

t.test('a session started before install keeps its age and kind when its first hook fires', async (t) => {
  const l = lab(t)
  const id = 'aaaaaaaa-1111-4222-8333-444444444444'
  const since = Date.now() - 120_000
  const s = claudeSession(l, id, 'idle', since, QUESTION)
  const before = (await load(l)).items.find((i) => i.sessionId === id)
  t.match(
    before,
    { state: 'waiting', kind: 'question', since, inferred: true, hint: NO_HOOKS_HINT },
    'a finished turn that ends in ? is a question, as with hooks',
  )
  t.equal(before?.ask.message, QUESTION, 'the agent’s words, not the hint')
  // install, then Claude Code's next event: idle_prompt, which only repeats the wait.
  await emit(l, s.pane, id, s.transcript, 'Notification', {
    notification_type: 'idle_prompt',
    prompt_id: 'p1',
    message: 'Claude is waiting for your input',
  })
  const after = (await load(l)).items.find((i) => i.sessionId === id)
  t.match(after, { state: 'waiting', kind: 'question', since, inferred: false, hint: null }, 'the same wait: its age and kind')
  t.equal((await load(l)).items.find((i) => i.sessionId === id)?.since, since, 'and on the next read')

  // A turn ran between the last look and the first hook: the Stop's wait is new.
  const other = 'bbbbbbbb-1111-4222-8333-444444444444'
  const o = claudeSession(l, other, 'idle', since, 'All done here.')
  t.match(
    (await load(l)).items.find((i) => i.sessionId === other),
    { kind: 'done', since },
  )
  appendFileSync(o.transcript, userLine('p2', Date.now() - 2000, 'again') + replyLine(Date.now() - 1000, 'All done again.'))
  await emit(l, o.pane, other, o.transcript, 'Stop', { prompt_id: 'p2', last_assistant_message: 'All done again.' })
  const next = (await load(l)).items.find((i) => i.sessionId === other)
  t.ok(next && next.since > since + 60_000, 'a new turn: the Stop’s own time')
})

t.test('a first hook that lands mid-turn goes straight to the hooked verdict', async (t) => {
  const l = lab(t)
  const id = 'cccccccc-1111-4222-8333-444444444444'
  const since = Date.now() - 60_000
  const s = claudeSession(l, id, 'busy', since, 'All done here.')
  t.match(
    (await load(l)).items.find((i) => i.sessionId === id),
    { state: 'working', inferred: true },
  )
  // Hooks installed mid-turn; the turn's Stop is the first event, and the emitter could take
  // no offset (the transcript could not be stat'ed then): the record's offset is null, so the
  // check reads the transcript whole, the earlier turn's prompt too.
  const turnAt = Date.now() - 10_000
  renameSync(s.transcript, `${s.transcript}.away`)
  await emit(l, s.pane, id, s.transcript, 'Stop', { prompt_id: 'p2', last_assistant_message: 'Finished.' })
  renameSync(`${s.transcript}.away`, s.transcript)
  appendFileSync(s.transcript, userLine('p2', turnAt, 'do it') + replyLine(turnAt + 1000, 'Finished.'))
  const item = (await load(l)).items.find((i) => i.sessionId === id)
  t.match(item, { state: 'waiting', kind: 'done', inferred: false, reason: null }, 'not `working (transcript: new prompt)`')
  t.ok(item && item.since > turnAt, 'the Stop’s time, not an earlier turn’s')
})

t.test('a dialog in a hook-less pane that shows work reaches ls within a second', async (t) => {
  const l = lab(t)
  const screen = join(l.root, 'screen.txt')
  const working = '• Working (3s • esc to interrupt)\n\n› Ask Codex to do anything\n\n  ? for shortcuts\n'
  const dialog =
    'Would you like to run the following command?\n\n  $ touch /x\n\n› 1. Yes, proceed (y)\n  3. No, and tell Codex what to do differently (esc)\n\n  Press enter to confirm or esc to cancel\n'
  writeFileSync(screen, working)
  // Node running `…/bin/codex`: what a process table shows for the npm launcher.
  const codex = join(l.bin, 'codex')
  writeFileSync(
    codex,
    `const fs = require('node:fs'); let last = ''; setInterval(() => { const s = fs.readFileSync(${JSON.stringify(screen)}, 'utf8'); if (s !== last) { last = s; process.stdout.write('\\x1b[2J\\x1b[H' + s) } }, 20)\n`,
  )
  const pane = l.server.newPane(['new-window', '-d', '-c', l.project], [process.execPath, codex])
  const waitScreen = async (re: RegExp): Promise<void> => {
    for (let i = 0; i < 100 && !re.test(l.server.capture(pane)); i++) await new Promise((r) => setTimeout(r, 20))
  }
  await waitScreen(/Working/)
  const t0 = Date.now()
  const byPane = async (now: number) => (await load(l, now)).items.find((i) => i.tmux?.pane === pane)
  t.match(await byPane(t0), { agent: 'codex', state: 'working', inferred: true })
  writeFileSync(screen, dialog)
  await waitScreen(/Would you like/)
  t.match(
    await byPane(t0 + 1_000),
    { state: 'permission', kind: 'permission', hint: NO_HOOKS_HINT },
    'seen on the first read a second after the last look',
  )
  // What one look costs: one tmux run for the pane.
  const runs = 20
  const start = performance.now()
  for (let i = 0; i < runs; i++) await capturePanes(l.server.socket, [pane])
  t.comment(`capture-pane of one pane: ${((performance.now() - start) / runs).toFixed(1)} ms a run`)
})
