// The real Codex CLI (pinned in test/e2e/clis/codex) in a private tmux server against our mock
// of the Responses API, with hooks installed by `trailboss install --agent codex` and trusted
// by the entries it writes (no --dangerously-bypass-hook-trust). One Codex session walks through
// every state; `ls --json` must tell each one.
import t from 'tap'
import { checkCodex, CODEX_BIN, startCodexLab, waitForPaneItem, type CodexLab } from './codex-env.js'
import { capture, press, sleep, submit, trailboss, waitFor, waitForScreen } from './harness.js'

/** A hook path's bound: hooks are synchronous, so the record is written before Codex goes on. */
const HOOK_BOUND_MS = 15_000

t.test('Codex: install, then every state of one session', async (t) => {
  t.comment(await checkCodex())
  const lab: CodexLab = await startCodexLab()
  t.teardown(() => lab.close())

  const inst = await trailboss(lab, ['install', '--agent', 'codex'])
  t.equal(inst.code, 0, `install --agent codex: ${inst.stderr.trim()}`)
  const doctor = await trailboss(lab, ['doctor'])
  t.match(doctor.stdout, /Codex trusts them/, 'doctor finds our Codex hooks trusted')

  const r = await lab.tmux(
    'new-window',
    '-d',
    '-t',
    'home:',
    '-n',
    'codex',
    '-c',
    lab.project,
    '-P',
    '-F',
    '#{pane_id}',
    CODEX_BIN,
    '--no-daemon',
  )
  const pane = r.stdout.trim()
  const start = await waitForScreen(lab, pane, /\? for shortcuts|Review hooks/, 30_000, 'the composer')
  t.notMatch(start, /Review hooks/, 'Codex trusts the installed hooks: no review dialog')

  const is = (state: string, kind: string | null) => (i: { state: string; kind: string | null }) => i.state === state && i.kind === kind

  await t.test('done', async (t) => {
    await submit(lab, pane, 'PLAIN hello')
    const item = await waitForPaneItem(lab, pane, is('waiting', 'done'), HOOK_BOUND_MS, 'waiting/done')
    t.equal(item.agent, 'codex')
    t.equal(item.ask.message, 'All done here.')
    t.ok(item.n !== null, 'queued')
  })

  await t.test('permission, then approve', async (t) => {
    await submit(lab, pane, 'PERM make the marker')
    const item = await waitForPaneItem(lab, pane, is('permission', 'permission'), HOOK_BOUND_MS, 'permission')
    t.equal(item.ask.tool, 'Bash')
    t.match(item.ask.input, { command: new RegExp(`^touch ${lab.scratch}/codex-perm-\\d+$`) })
    await waitForScreen(lab, pane, /Would you like to run the following command\?/, 10_000)
    await press(lab, pane, 'y')
    const done = await waitForPaneItem(lab, pane, is('waiting', 'done'), HOOK_BOUND_MS, 'done after approve')
    t.equal(done.ask.message, 'Ran the command.')
  })

  await t.test('permission, then deny (Esc)', async (t) => {
    await submit(lab, pane, 'PERM again')
    await waitForPaneItem(lab, pane, is('permission', 'permission'), HOOK_BOUND_MS, 'permission')
    await waitForScreen(lab, pane, /Would you like to run the following command\?/, 10_000)
    await press(lab, pane, 'Escape')
    const item = await waitForPaneItem(lab, pane, is('waiting', 'interrupted'), HOOK_BOUND_MS, 'interrupted after deny')
    t.equal(item.inferred, false, 'the Interrupt hook, not a guess')
    t.equal(item.ask.tool, 'Bash', 'says which tool was refused')
  })

  await t.test('Esc while the model streams', async () => {
    await submit(lab, pane, 'SLOW please')
    await waitForPaneItem(lab, pane, is('working', null), HOOK_BOUND_MS, 'working')
    await waitForScreen(lab, pane, /esc to interrupt\)/, 10_000)
    await press(lab, pane, 'Escape')
    await waitForPaneItem(lab, pane, is('waiting', 'interrupted'), HOOK_BOUND_MS, 'interrupted')
  })

  await t.test('an API error (no hook: the rollout says it)', async (t) => {
    await submit(lab, pane, 'FAIL now')
    await waitForScreen(lab, pane, /■ stream disconnected before completion/, 15_000)
    const item = await waitForPaneItem(lab, pane, is('waiting', 'error'), HOOK_BOUND_MS, 'waiting/error')
    t.match(item.ask.message, /stream disconnected before completion/)
  })

  await t.test('a question (Plan mode), then Esc', async (t) => {
    await waitFor(
      'Plan mode',
      async () => {
        if (/Plan mode \(shift\+tab to cycle\)/.test(await capture(lab, pane))) return true
        await press(lab, pane, 'BTab')
        await sleep(500)
        return undefined
      },
      10_000,
    )
    await submit(lab, pane, 'ASK me')
    const item = await waitForPaneItem(lab, pane, is('permission', 'question'), HOOK_BOUND_MS, 'question')
    t.equal(item.ask.tool, 'request_user_input')
    await waitForScreen(lab, pane, /Question 1\/1/, 10_000)
    await press(lab, pane, 'Escape')
    await waitForPaneItem(lab, pane, is('waiting', 'interrupted'), HOOK_BOUND_MS, 'interrupted question')
  })

  await t.test('exit', async (t) => {
    await submit(lab, pane, '/quit')
    const item = await waitForPaneItem(lab, pane, (i) => i.state === 'ended' || i.state === 'gone', HOOK_BOUND_MS, 'ended')
    t.equal(item.state, 'ended', 'SessionEnd fired')
  })

  await t.test('killed pane', async (t) => {
    const r2 = await lab.tmux(
      'new-window',
      '-d',
      '-t',
      'home:',
      '-n',
      'codex2',
      '-c',
      lab.project,
      '-P',
      '-F',
      '#{pane_id}',
      CODEX_BIN,
      '--no-daemon',
    )
    const pane2 = r2.stdout.trim()
    await waitForScreen(lab, pane2, /\? for shortcuts/, 30_000)
    await submit(lab, pane2, 'PERM then die')
    await waitForPaneItem(lab, pane2, is('permission', 'permission'), HOOK_BOUND_MS, 'permission')
    await lab.tmux('kill-pane', '-t', pane2)
    const item = await waitForPaneItem(lab, pane2, (i) => i.state === 'gone', HOOK_BOUND_MS, 'gone')
    t.equal(item.n, null, 'not queued')
  })

  const un = await trailboss(lab, ['uninstall', '--agent', 'codex'])
  t.equal(un.code, 0, 'uninstall --agent codex')
})
