// Issue #15's "done when": one tmux server with a Claude Code, a Codex and a Gemini CLI session,
// each set up by `trailboss install --agent …` in one HOME, driven side by side through
// permission, approve, deny, done, question, send, error, interrupt, exit and a killed pane.
// At every step ONE `trailboss ls --json` must show all three sessions right at once (so two or
// three waits at the same time too), and `--agent` must list each agent's own.
import t, { type Test } from 'tap'
import { capture, type Item, type Listing, lsJson, press, submit, trailboss, waitFor, waitForScreen } from './harness.js'
import { checkFleet, type FleetLab, startFleet, startFleetClaude, startFleetCodex, startFleetGemini } from './fleet-lab.js'
import { submitGemini, waitForGeminiReady } from './gemini-harness.js'
import { TEXT_AFTER_TOOL, TEXT_QUESTION } from './mock-api.js'
import { CODEX_TEXT_DONE, CODEX_TEXT_QUESTION } from './mock-openai.js'
import { GEMINI_TEXT_AFTER_TOOL, GEMINI_TEXT_QUESTION } from './mock-gemini-api.js'

// Three CLIs start and run side by side: more than tap's default per-file bound on a loaded machine.
t.setTimeout(300_000)

/** A bound for hook-driven waits on a loaded 2-core machine, not a measure. */
const STEP_BOUND_MS = 30_000

type Agent = 'claude-code' | 'codex' | 'gemini'
const AGENTS: readonly Agent[] = ['claude-code', 'codex', 'gemini']
type Want = Partial<Pick<Item, 'state' | 'kind'>> & { queued?: boolean; message?: string; tool?: string }

const matches = (item: Item | undefined, want: Want): boolean =>
  item !== undefined &&
  (want.state === undefined || item.state === want.state) &&
  (want.kind === undefined || item.kind === want.kind) &&
  (want.queued === undefined || (item.n !== null) === want.queued) &&
  (want.message === undefined || item.ask.message === want.message) &&
  (want.tool === undefined || item.ask.tool === want.tool)

t.test('a mixed fleet in one tmux: Claude Code, Codex and Gemini CLI side by side', async (t) => {
  t.comment(await checkFleet())
  const lab: FleetLab = await startFleet()
  t.teardown(() => lab.close())

  const [claude, codexPane, geminiPane] = await Promise.all([startFleetClaude(lab), startFleetCodex(lab), startFleetGemini(lab)])
  const panes: Record<Agent, string> = { 'claude-code': claude.pane, codex: codexPane, gemini: geminiPane }
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
  const expectAll = async (t: Test, step: string, want: Partial<Record<Agent, Want>>): Promise<Partial<Record<Agent, Item>>> => {
    let last: Partial<Record<Agent, Item>> = {}
    try {
      const r = await waitFor(
        step,
        async () => {
          last = itemsByAgent(await lsJson(lab))
          return AGENTS.every((a) => want[a] === undefined || matches(last[a], want[a]!)) ? last : undefined
        },
        STEP_BOUND_MS,
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

  // Claude Code and Gemini CLI say they started; Codex names its session at the first prompt.
  await expectAll(t, 'started', { 'claude-code': { state: 'idle', queued: false }, gemini: { state: 'idle', queued: false } })

  await t.test('done, all three waiting at once', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'hello there'),
      submit(lab, codexPane, 'PLAIN hello'),
      submitGemini(lab, geminiPane, 'hello there'),
    ])
    const items = await expectAll(t, 'done ×3', {
      'claude-code': { state: 'waiting', kind: 'done', queued: true },
      codex: { state: 'waiting', kind: 'done', queued: true, message: CODEX_TEXT_DONE },
      gemini: { state: 'waiting', kind: 'done', queued: true },
    })
    t.same(new Set(AGENTS.map((a) => items[a]!.n)).size, 3, 'three places in the queue')
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
    await waitForGeminiReady(lab, geminiPane)
  })

  await t.test('permission, three dialogs open at once; then approve, deny, approve', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'PERM please'),
      submit(lab, codexPane, 'PERM make the marker'),
      submitGemini(lab, geminiPane, 'TOOL please'),
    ])
    await expectAll(t, 'permission ×3', {
      'claude-code': { state: 'permission', kind: 'permission', queued: true, tool: 'Bash' },
      codex: { state: 'permission', kind: 'permission', queued: true, tool: 'Bash' },
      gemini: { state: 'permission', kind: 'permission', queued: true, tool: 'run_shell_command' },
    })
    await Promise.all([
      waitForScreen(lab, claude.pane, /Do you want to proceed\?/, 10_000),
      waitForScreen(lab, codexPane, /Would you like to run the following command\?/, 10_000),
      waitForScreen(lab, geminiPane, /Allow once/, 10_000),
    ])
    // Codex is denied first: the others stay in their dialogs meanwhile.
    await press(lab, codexPane, 'Escape')
    await expectAll(t, 'Codex denied, the others still asking', {
      'claude-code': { state: 'permission', kind: 'permission' },
      codex: { state: 'waiting', kind: 'interrupted', queued: true, tool: 'Bash' },
      gemini: { state: 'permission', kind: 'permission' },
    })
    await Promise.all([press(lab, claude.pane, 'Enter'), press(lab, geminiPane, 'Enter')])
    await expectAll(t, 'Claude Code and Gemini CLI approved', {
      'claude-code': { state: 'waiting', kind: 'done', message: TEXT_AFTER_TOOL },
      codex: { state: 'waiting', kind: 'interrupted' },
      gemini: { state: 'waiting', kind: 'done', message: GEMINI_TEXT_AFTER_TOOL },
    })
    await waitForGeminiReady(lab, geminiPane)
  })

  await t.test('questions ×3; send answers the Codex one', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'QUESTION please'),
      submit(lab, codexPane, 'QUESTION please'),
      submitGemini(lab, geminiPane, 'QUESTION please'),
    ])
    const items = await expectAll(t, 'question ×3', {
      'claude-code': { state: 'waiting', kind: 'question', message: TEXT_QUESTION },
      codex: { state: 'waiting', kind: 'question', message: CODEX_TEXT_QUESTION },
      gemini: { state: 'waiting', kind: 'question', message: GEMINI_TEXT_QUESTION },
    })
    // The Codex record names the agent process its spooled hook ran under, so send may type.
    const sent = await trailboss(lab, ['send', items.codex!.sessionId, 'PLAIN', 'yes', 'please'], { TRAILBOSS_ALLOW_SEND: '1' })
    t.equal(sent.code, 0, `send to the Codex question: ${sent.stderr.trim()}`)
    await expectAll(t, 'Codex answered, the others still asking', {
      'claude-code': { state: 'waiting', kind: 'question' },
      codex: { state: 'waiting', kind: 'done', message: CODEX_TEXT_DONE },
      gemini: { state: 'waiting', kind: 'question' },
    })
    await waitForGeminiReady(lab, geminiPane)
  })

  await t.test('error, error, interrupt', async (t) => {
    await Promise.all([
      submit(lab, claude.pane, 'FAIL now'),
      submit(lab, codexPane, 'FAIL now'),
      submitGemini(lab, geminiPane, 'SLOW please'),
    ])
    await waitForScreen(lab, geminiPane, /Step 1/, STEP_BOUND_MS)
    await press(lab, geminiPane, 'Escape')
    await expectAll(t, 'error, error, interrupted', {
      'claude-code': { state: 'waiting', kind: 'error', queued: true },
      codex: { state: 'waiting', kind: 'error', queued: true },
      gemini: { state: 'waiting', kind: 'interrupted', queued: true },
    })
    await waitForGeminiReady(lab, geminiPane)
  })

  await t.test('exit, exit, killed pane', async (t) => {
    await Promise.all([submit(lab, claude.pane, '/exit'), submit(lab, codexPane, '/quit')])
    await expectAll(t, 'Claude Code and Codex ended, Gemini CLI still waiting', {
      'claude-code': { state: 'ended', queued: false },
      codex: { state: 'ended', queued: false },
      gemini: { state: 'waiting', kind: 'interrupted', queued: true },
    })
    // Gemini CLI keeps running after its pane is gone (teardown kills it); the pane is what counts.
    await lab.tmux('kill-pane', '-t', geminiPane)
    await expectAll(t, 'Gemini CLI gone', {
      'claude-code': { state: 'ended' },
      codex: { state: 'ended' },
      gemini: { state: 'gone', queued: false },
    })
    const queued = await trailboss(lab, ['ls', '--json'])
    t.same((JSON.parse(queued.stdout) as Listing).queue, [], 'nothing left in the queue')
  })
})
