// Issues #15 and #29: one tmux server with a Claude Code, a Codex, a Gemini CLI, a GitHub Copilot
// CLI and an OpenCode session, each set up by `trailboss install --agent …` in one HOME, driven
// side by side through permission, approve, deny (in the pane and by `ok`/`no`), done, question,
// send, error, interrupt, go, exit and a killed pane. At every step ONE `trailboss ls --json` must
// show all five sessions right at once (so up to five waits at the same time), a wait's number
// must stay its own while the others' waits come and go, and `--agent` must list each agent's own.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import {
  attachClient,
  capture,
  clientPane,
  type Item,
  type Listing,
  lsJson,
  press,
  submit,
  trailboss,
  waitFor,
  waitForScreen,
} from './harness.js'
import { COPILOT_READY } from './copilot-env.js'
import {
  checkFleet,
  type FleetLab,
  opencodeMarker,
  startFleet,
  startFleetClaude,
  startFleetCodex,
  startFleetCopilot,
  startFleetGemini,
  startFleetOpencode,
} from './fleet-lab.js'
import { submitGemini, waitForGeminiReady } from './gemini-harness.js'
import { TEXT_AFTER_TOOL, TEXT_QUESTION } from './mock-api.js'
import { markerOf } from './mock-chat.js'
import { CODEX_TEXT_DONE, CODEX_TEXT_QUESTION } from './mock-openai.js'
import { GEMINI_TEXT_AFTER_TOOL, GEMINI_TEXT_QUESTION } from './mock-gemini-api.js'

// Five CLIs start and run side by side: more than tap's default per-file bound on a loaded machine.
t.setTimeout(420_000)

/** A bound for hook-driven waits on a loaded 2-core machine, not a measure. */
const STEP_BOUND_MS = 30_000
/** OpenCode's first turn in a session took 25 s on a loaded 2-core machine: a bound, not a measure. */
const FIRST_TURN_MS = 90_000
const ALLOW = { TRAILBOSS_ALLOW_SEND: '1' }
const COPILOT_DIALOG = /Do you want to run this command\?/
const OPENCODE_DIALOG = /Allow once\s+Allow always\s+Reject/

type Agent = 'claude-code' | 'codex' | 'gemini' | 'copilot' | 'opencode'
const AGENTS: readonly Agent[] = ['claude-code', 'codex', 'gemini', 'copilot', 'opencode']
type Want = Partial<Pick<Item, 'state' | 'kind'>> & { queued?: boolean; message?: string; tool?: string; command?: string }

const matches = (item: Item | undefined, want: Want): boolean =>
  item !== undefined &&
  (want.state === undefined || item.state === want.state) &&
  (want.kind === undefined || item.kind === want.kind) &&
  (want.queued === undefined || (item.n !== null) === want.queued) &&
  (want.message === undefined || item.ask.message === want.message) &&
  (want.tool === undefined || item.ask.tool === want.tool) &&
  (want.command === undefined || (item.ask.input as { command?: string } | null)?.command === want.command)

/** What must not move while another agent's wait comes or goes: which wait it is and its number. */
const row = (item: Item | undefined) => item && { sessionId: item.sessionId, state: item.state, kind: item.kind, n: item.n }

t.test('a mixed fleet in one tmux: Claude Code, Codex, Gemini CLI, Copilot CLI and OpenCode side by side', async (t) => {
  const started = Date.now()
  t.comment(await checkFleet())
  const lab: FleetLab = await startFleet()
  t.teardown(() => lab.close())

  const [claude, codexPane, geminiPane, copilotPane, opencodePane] = await Promise.all([
    startFleetClaude(lab),
    startFleetCodex(lab),
    startFleetGemini(lab),
    startFleetCopilot(lab),
    startFleetOpencode(lab),
  ])
  const panes: Record<Agent, string> = {
    'claude-code': claude.pane,
    codex: codexPane,
    gemini: geminiPane,
    copilot: copilotPane,
    opencode: opencodePane,
  }
  const short = (item: Item | undefined) =>
    item && {
      agent: item.agent,
      state: item.state,
      kind: item.kind,
      n: item.n,
      message: item.ask.message,
      tool: item.ask.tool,
      reason: item.reason,
    }
  const itemsByAgent = (listing: Listing): Partial<Record<Agent, Item>> =>
    Object.fromEntries(AGENTS.map((a) => [a, listing.queue.filter((i) => i.tmux?.pane === panes[a] && i.agent === a).at(-1)]))

  /** Waits until one listing shows every agent as wanted; returns that listing's items. */
  const expectAll = async (
    t: Test,
    step: string,
    want: Partial<Record<Agent, Want>>,
    bound = STEP_BOUND_MS,
  ): Promise<Partial<Record<Agent, Item>>> => {
    let last: Partial<Record<Agent, Item>> = {}
    try {
      const r = await waitFor(
        step,
        async () => {
          last = itemsByAgent(await lsJson(lab))
          return AGENTS.every((a) => want[a] === undefined || matches(last[a], want[a]!)) ? last : undefined
        },
        bound,
      )
      t.pass(`${step}: ${AGENTS.map((a) => `${a} ${last[a]?.state}/${last[a]?.kind}`).join(', ')}`)
      return r.value
    } catch (err) {
      const screens = await Promise.all(
        AGENTS.map(async (a) => `--- ${a} (${panes[a]}) ---\n${await capture(lab, panes[a]).catch(() => '(pane gone)')}`),
      )
      throw new Error(
        `${(err as Error).message}\n${JSON.stringify(Object.fromEntries(AGENTS.map((a) => [a, short(last[a])])), null, 1)}\n${screens.join('\n')}`,
        { cause: err },
      )
    }
  }

  /** The rows of the agents not named in `moved` are as they were in `before`. */
  const untouched = (t: Test, before: Partial<Record<Agent, Item>>, after: Partial<Record<Agent, Item>>, moved: Agent[], why: string) => {
    const still = AGENTS.filter((a) => !moved.includes(a))
    t.same(
      still.map((a) => row(after[a])),
      still.map((a) => row(before[a])),
      `${why}: ${still.join(', ')} keep their wait and number`,
    )
  }
  const copilotReady = () => waitForScreen(lab, copilotPane, COPILOT_READY, STEP_BOUND_MS, "copilot's prompt at rest")

  // Claude Code and Gemini CLI say they started; Codex names its session at the first prompt.
  await expectAll(t, 'started', { 'claude-code': { state: 'idle', queued: false }, gemini: { state: 'idle', queued: false } })

  await t.test('done, all five waiting at once', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'hello there'),
      submit(lab, codexPane, 'PLAIN hello'),
      submitGemini(lab, geminiPane, 'hello there'),
      submit(lab, copilotPane, 'PLAIN hello'),
      submit(lab, opencodePane, 'PLAIN hello'),
    ])
    const items = await expectAll(
      t,
      'done ×5',
      {
        'claude-code': { state: 'waiting', kind: 'done', queued: true },
        codex: { state: 'waiting', kind: 'done', queued: true, message: CODEX_TEXT_DONE },
        gemini: { state: 'waiting', kind: 'done', queued: true },
        copilot: { state: 'waiting', kind: 'done', queued: true },
        opencode: { state: 'waiting', kind: 'done', queued: true },
      },
      FIRST_TURN_MS,
    )
    t.same(new Set(AGENTS.map((a) => items[a]!.n)).size, 5, 'five places in the queue')
    const status = await trailboss(lab, ['status', '--all', '--format', '{done}'])
    t.equal(status.stdout.trim(), '5', 'status --all counts the five finished turns')
    // --agent: only that agent's session, with its number from the whole queue.
    for (const a of AGENTS) {
      const r = await trailboss(lab, ['ls', '--json', '--agent', a])
      t.equal(r.code, 0, `ls --agent ${a}: ${r.stderr.trim()}`)
      const queue = (JSON.parse(r.stdout) as Listing).queue
      t.same(
        queue.map((i) => [i.agent, i.sessionId]),
        [[a, items[a]!.sessionId]],
        `ls --agent ${a} lists its session alone`,
      )
    }
    await Promise.all([waitForGeminiReady(lab, geminiPane), copilotReady()])
  })

  await t.test('permission, five dialogs open at once; then deny, no, ok, approve, approve', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'PERM please'),
      submit(lab, codexPane, 'PERM make the marker'),
      submitGemini(lab, geminiPane, 'TOOL please'),
      submit(lab, copilotPane, 'TOOL write the marker'),
      submit(lab, opencodePane, 'TOOL write the marker'),
    ])
    const asking = await expectAll(t, 'permission ×5', {
      'claude-code': { state: 'permission', kind: 'permission', queued: true, tool: 'Bash' },
      codex: { state: 'permission', kind: 'permission', queued: true, tool: 'Bash' },
      gemini: { state: 'permission', kind: 'permission', queued: true, tool: 'run_shell_command' },
      copilot: { state: 'permission', kind: 'permission', queued: true, tool: 'bash', command: `touch ${markerOf(1)}` },
      opencode: { state: 'permission', kind: 'permission', queued: true, tool: 'bash', command: `touch ${opencodeMarker(1)}` },
    })
    await Promise.all([
      waitForScreen(lab, claude.pane, /Do you want to proceed\?/, 10_000),
      waitForScreen(lab, codexPane, /Would you like to run the following command\?/, 10_000),
      waitForScreen(lab, geminiPane, /Allow once/, 10_000),
      waitForScreen(lab, copilotPane, COPILOT_DIALOG, 10_000),
      waitForScreen(lab, opencodePane, OPENCODE_DIALOG, 10_000),
    ])
    const status = await trailboss(lab, ['status', '--format', '{count} {permission}'])
    t.equal(status.stdout.trim(), '5 5', 'status counts five waits, all permission dialogs')
    // Codex is denied first: the others stay in their dialogs meanwhile.
    await press(lab, codexPane, 'Escape')
    const codexDenied = await expectAll(t, 'Codex denied, the others still asking', {
      'claude-code': { state: 'permission', kind: 'permission' },
      codex: { state: 'waiting', kind: 'interrupted', queued: true, tool: 'Bash' },
      gemini: { state: 'permission', kind: 'permission' },
      copilot: { state: 'permission', kind: 'permission' },
      opencode: { state: 'permission', kind: 'permission' },
    })
    untouched(t, asking, codexDenied, ['codex'], 'Codex denied')
    // From the queue, by number: `no` on the Copilot dialog, `ok` on the OpenCode one.
    const no = await trailboss(lab, ['no', String(asking.copilot!.n)], ALLOW)
    t.equal(no.code, 0, `no on the Copilot dialog: ${no.stderr.trim()}`)
    const ok = await trailboss(lab, ['ok', String(asking.opencode!.n)], ALLOW)
    t.equal(ok.code, 0, `ok on the OpenCode dialog: ${ok.stderr.trim()}`)
    const answered = await expectAll(t, 'Copilot refused, OpenCode allowed, the others as they were', {
      'claude-code': { state: 'permission', kind: 'permission' },
      codex: { state: 'waiting', kind: 'interrupted' },
      gemini: { state: 'permission', kind: 'permission' },
      copilot: { state: 'waiting', kind: 'interrupted', tool: 'bash' },
      opencode: { state: 'waiting', kind: 'done' },
    })
    untouched(t, codexDenied, answered, ['copilot', 'opencode'], 'no and ok')
    t.notOk(existsSync(join(lab.project, markerOf(1))), 'the refused Copilot command did not run')
    t.ok(existsSync(join(lab.project, opencodeMarker(1))), 'the allowed OpenCode command ran')
    await Promise.all([press(lab, claude.pane, 'Enter'), press(lab, geminiPane, 'Enter')])
    const approved = await expectAll(t, 'Claude Code and Gemini CLI approved', {
      'claude-code': { state: 'waiting', kind: 'done', message: TEXT_AFTER_TOOL },
      codex: { state: 'waiting', kind: 'interrupted' },
      gemini: { state: 'waiting', kind: 'done', message: GEMINI_TEXT_AFTER_TOOL },
      copilot: { state: 'waiting', kind: 'interrupted' },
      opencode: { state: 'waiting', kind: 'done' },
    })
    untouched(t, answered, approved, ['claude-code', 'gemini'], 'approved in their panes')
    await Promise.all([waitForGeminiReady(lab, geminiPane), copilotReady()])
  })

  await t.test('questions ×5; send answers the Codex one, the panes the Copilot and OpenCode ones', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'QUESTION please'),
      submit(lab, codexPane, 'QUESTION please'),
      submitGemini(lab, geminiPane, 'QUESTION please'),
      submit(lab, copilotPane, 'ASK me'),
      submit(lab, opencodePane, 'ASK me'),
    ])
    const items = await expectAll(t, 'question ×5', {
      'claude-code': { state: 'waiting', kind: 'question', message: TEXT_QUESTION },
      codex: { state: 'waiting', kind: 'question', message: CODEX_TEXT_QUESTION },
      gemini: { state: 'waiting', kind: 'question', message: GEMINI_TEXT_QUESTION },
      copilot: { state: 'permission', kind: 'question', tool: 'ask_user' },
      opencode: { state: 'permission', kind: 'question', tool: 'question' },
    })
    // The Codex record names the agent process its spooled hook ran under, so send may type.
    const sent = await trailboss(lab, ['send', items.codex!.sessionId, 'PLAIN', 'yes', 'please'], { TRAILBOSS_ALLOW_SEND: '1' })
    t.equal(sent.code, 0, `send to the Codex question: ${sent.stderr.trim()}`)
    const codexAnswered = await expectAll(t, 'Codex answered, the others still asking', {
      'claude-code': { state: 'waiting', kind: 'question' },
      codex: { state: 'waiting', kind: 'done', message: CODEX_TEXT_DONE },
      gemini: { state: 'waiting', kind: 'question' },
      copilot: { state: 'permission', kind: 'question' },
      opencode: { state: 'permission', kind: 'question' },
    })
    untouched(t, items, codexAnswered, ['codex'], 'send to Codex')
    await Promise.all([
      waitForScreen(lab, copilotPane, /Copilot needs information\./, 10_000),
      waitForScreen(lab, opencodePane, /enter submit/, 10_000),
    ])
    await Promise.all([press(lab, copilotPane, 'Enter'), press(lab, opencodePane, 'Enter')])
    const answered = await expectAll(t, 'Copilot and OpenCode answered in their panes', {
      'claude-code': { state: 'waiting', kind: 'question' },
      codex: { state: 'waiting', kind: 'done' },
      gemini: { state: 'waiting', kind: 'question' },
      copilot: { state: 'waiting', kind: 'done' },
      opencode: { state: 'waiting', kind: 'done' },
    })
    untouched(t, codexAnswered, answered, ['copilot', 'opencode'], 'Copilot and OpenCode answered')
    await Promise.all([waitForGeminiReady(lab, geminiPane), copilotReady()])
  })

  await t.test('error, error, interrupt; go reaches each of the five', async (t) => {
    const before = itemsByAgent(await lsJson(lab))
    await Promise.all([
      submit(lab, claude.pane, 'FAIL now'),
      submit(lab, codexPane, 'FAIL now'),
      submitGemini(lab, geminiPane, 'SLOW please'),
    ])
    await waitForScreen(lab, geminiPane, /Step 1/, STEP_BOUND_MS)
    await press(lab, geminiPane, 'Escape')
    const items = await expectAll(t, 'error, error, interrupted', {
      'claude-code': { state: 'waiting', kind: 'error', queued: true },
      codex: { state: 'waiting', kind: 'error', queued: true },
      gemini: { state: 'waiting', kind: 'interrupted', queued: true },
      copilot: { state: 'waiting', kind: 'done', queued: true },
      opencode: { state: 'waiting', kind: 'done', queued: true },
    })
    untouched(t, before, items, ['claude-code', 'codex', 'gemini'], 'three new waits')
    const client = await attachClient(lab, 'home')
    t.teardown(() => client.child.kill())
    const pid = (await lab.tmux('display-message', '-p', '#{pid}')).stdout.trim()
    const inTmux = { TMUX: `${lab.socket},${pid},0`, TMUX_PANE: '%0' }
    for (const a of AGENTS) {
      const go = await trailboss(lab, ['go', String(items[a]!.n)], inTmux)
      t.equal(go.code, 0, `go ${items[a]!.n}: ${go.stderr.trim()}`)
      t.equal(await clientPane(lab, client.name), panes[a], `go ${items[a]!.n} takes the client to ${a}'s pane`)
    }
    await waitForGeminiReady(lab, geminiPane)
  })

  await t.test('Copilot ends alone; then exit, exit, exit, killed pane', async (t) => {
    const before = itemsByAgent(await lsJson(lab))
    await submit(lab, copilotPane, '/exit')
    const copilotEnded = await expectAll(t, 'Copilot ended, the others still waiting', {
      'claude-code': { state: 'waiting', kind: 'error', queued: true },
      codex: { state: 'waiting', kind: 'error', queued: true },
      gemini: { state: 'waiting', kind: 'interrupted', queued: true },
      copilot: { state: 'ended', queued: false },
      // go marked its finished turn seen: out of the default queue, in `ls --all` as it was.
      opencode: { state: 'waiting', kind: 'done' },
    })
    untouched(t, before, copilotEnded, ['copilot'], 'Copilot ended')
    await Promise.all([submit(lab, claude.pane, '/exit'), submit(lab, codexPane, '/quit'), submit(lab, opencodePane, '/exit')])
    const exited = await expectAll(t, 'Claude Code, Codex and OpenCode ended, Gemini CLI still waiting', {
      'claude-code': { state: 'ended', queued: false },
      codex: { state: 'ended', queued: false },
      gemini: { state: 'waiting', kind: 'interrupted', queued: true },
      copilot: { state: 'ended' },
      opencode: { state: 'ended', queued: false },
    })
    untouched(t, copilotEnded, exited, ['claude-code', 'codex', 'opencode'], 'three more ended')
    // Gemini CLI keeps running after its pane is gone (teardown kills it); the pane is what counts.
    await lab.tmux('kill-pane', '-t', geminiPane)
    await expectAll(t, 'Gemini CLI gone', {
      'claude-code': { state: 'ended' },
      codex: { state: 'ended' },
      gemini: { state: 'gone', queued: false },
      copilot: { state: 'ended' },
      opencode: { state: 'ended' },
    })
    const queued = await trailboss(lab, ['ls', '--json'])
    t.same((JSON.parse(queued.stdout) as Listing).queue, [], 'nothing left in the queue')
  })
  t.comment(`fleet suite: ${((Date.now() - started) / 1000).toFixed(1)} s`)
})
