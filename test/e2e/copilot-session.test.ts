// The real GitHub Copilot CLI (pinned in test/e2e/clis/copilot) in a private tmux server, offline
// against our Chat Completions mock, with hooks installed by `trailboss install --agent copilot`.
// One Copilot session walks through every state, `ok` and `no` answer its dialogs, `show` and
// `go` find it; two more are killed with their dialogs open (the pane, then the agent itself).
import { existsSync } from 'node:fs'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { waitForPaneItem } from './codex-env.js'
import { checkCopilot, COPILOT_READY, type CopilotLab, startCopilot, startCopilotLab } from './copilot-env.js'
import {
  attachClient,
  capture,
  clientPane,
  type Item,
  itemOf,
  lsJson,
  press,
  run,
  sleep,
  submit,
  trailboss,
  waitFor,
  waitForScreen,
} from './harness.js'
import { CHAT_TEXT_PLAIN, CHAT_TOOL_DESCRIPTION } from './mock-chat.js'

/** A hook path's bound, not a measure: Copilot waits for each hook, the fold runs detached. */
const BOUND_MS = 20_000
const ALLOW = { TRAILBOSS_ALLOW_SEND: '1' }
const DIALOG = /Do you want to run this command\?/

t.setTimeout(300_000)

t.test('Copilot: install, every state of one session, ok and no, show, go, a killed pane', async (t) => {
  const started = Date.now()
  t.comment(await checkCopilot())
  const lab: CopilotLab = await startCopilotLab()
  t.teardown(() => lab.close())

  const inst = await trailboss(lab, ['install', '--agent', 'copilot'])
  t.equal(inst.code, 0, `install --agent copilot: ${inst.stderr.trim()}`)
  t.ok(existsSync(join(lab.copilotHome, 'hooks', 'trailboss.json')), 'our hook file in ~/.copilot/hooks')
  const doctor = await trailboss(lab, ['doctor'])
  t.match(doctor.stdout, /✓ GitHub Copilot CLI: hooks for 9 events in .*trailboss\.json/, 'doctor finds every hook install wrote')

  const pane = await startCopilot(lab, 'copilot')
  const is = (state: string, kind: string | null) => (i: Item) => i.state === state && i.kind === kind
  const idle = () => waitForScreen(lab, pane, COPILOT_READY, BOUND_MS, "copilot's prompt at rest")
  /** The marker a TOOL call's command touches, in the session's folder. */
  const marker = (item: Item): string => join(lab.project, String((item.ask.input as { command: string }).command).replace(/^touch /, ''))
  /** Asks for a command and waits until the queue names it and the dialog is on screen. */
  const askPermission = async (prompt: string): Promise<Item> => {
    await submit(lab, pane, prompt)
    const item = await waitForPaneItem(lab, pane, is('permission', 'permission'), BOUND_MS, `permission for "${prompt}"`)
    await waitForScreen(lab, pane, DIALOG, BOUND_MS, 'the approval dialog')
    return item
  }

  let id = ''
  await t.test('done at the end of a turn', async (t) => {
    await submit(lab, pane, 'PLAIN hello')
    const item = await waitForPaneItem(lab, pane, is('waiting', 'done'), BOUND_MS, 'waiting/done')
    id = item.sessionId
    t.equal(item.agent, 'copilot')
    t.equal(item.inferred, false, 'from agentStop, not the screen')
    t.ok(item.n !== null, 'queued')
    await idle()
  })

  await t.test('a permission dialog names its command; ok approves it and the tool runs', async (t) => {
    const item = await askPermission('TOOL write the marker')
    t.equal(item.ask.tool, 'bash')
    t.match(item.ask.input, { command: /^touch copilot-mark-\d+$/, description: CHAT_TOOL_DESCRIPTION })
    const shown = await trailboss(lab, ['show', item.key])
    t.equal(shown.code, 0, `show: ${shown.stderr.trim()}`)
    t.match(shown.stdout, (item.ask.input as { command: string }).command, 'show prints the command asked for')
    const off = await trailboss(lab, ['ok', item.key])
    t.not(off.code, 0, 'without the opt-in ok refuses')
    const ok = await trailboss(lab, ['ok', item.key], ALLOW)
    t.equal(ok.code, 0, `ok: ${ok.stderr.trim()}`)
    await waitForPaneItem(lab, pane, is('waiting', 'done'), BOUND_MS, 'done after ok')
    t.ok(existsSync(marker(item)), `the approved command ran: ${marker(item)}`)
    await idle()
  })

  await t.test('no denies it (Esc: no hook fires, the events file says so)', async (t) => {
    const item = await askPermission('TOOL again')
    const no = await trailboss(lab, ['no', item.key], ALLOW)
    t.equal(no.code, 0, `no: ${no.stderr.trim()}`)
    const after = await waitForPaneItem(lab, pane, is('waiting', 'interrupted'), BOUND_MS, 'interrupted after no')
    t.equal(after.ask.tool, 'bash', 'says which tool was refused')
    t.notOk(existsSync(marker(item)), 'the denied command did not run')
    await idle()
  })

  await t.test('a dialog whose command is not the one read is refused; answered in its pane, it clears', async (t) => {
    const item = await askPermission('TOOL once more')
    // A record that lags a new dialog, written as an emitter would have a moment earlier.
    const other = 'touch copilot-mark-other'
    const path = join(lab.tbHome, 'sessions', `${item.sessionId}.json`)
    const rec = JSON.parse(await readFile(path, 'utf8')) as Record<string, { input: { command: string } } | null>
    for (const k of ['tool', 'lastTool']) if (rec[k]) rec[k].input.command = other
    await writeFile(`${path}.lag.tmp`, JSON.stringify(rec))
    await rename(`${path}.lag.tmp`, path)
    const stale = await waitFor(
      'the lagging record in the queue',
      async () => {
        const it = itemOf(await lsJson(lab), item.sessionId)
        return (it?.ask.input as { command?: string } | null)?.command === other ? it : undefined
      },
      BOUND_MS,
    )
    // The box at the bottom: the call's line above it counts the seconds it has waited.
    const box = (screen: string): string => screen.slice(screen.lastIndexOf('\n╭'))
    const before = box(await capture(lab, pane))
    const refused = await trailboss(lab, ['ok', stale.value.key], ALLOW)
    t.not(refused.code, 0, 'ok on a dialog of another command: refused')
    t.match(refused.stderr, /not exactly the one in the record[\s\S]*nothing was pressed/, 'says why, and that nothing was pressed')
    const denied = await trailboss(lab, ['no', stale.value.key], ALLOW)
    t.not(denied.code, 0, 'no on it: refused too')
    await sleep(1000)
    t.equal(box(await capture(lab, pane)), before, 'the dialog is as it was, its cursor still on "1. Yes"')
    // The person answers it in the pane: Esc fires no hook; the check on read clears the wait. The
    // screen may tell first (a CI run's read saw the pane before the events file had the answer);
    // the events file must tell within the bound: the wait throws, failing the test, if it does not.
    await press(lab, pane, 'Escape')
    const after = await waitForPaneItem(
      lab,
      pane,
      (i) => is('waiting', 'interrupted')(i) && !i.inferred,
      BOUND_MS,
      "interrupted, from Copilot's events file (not inferred from the screen)",
    )
    t.notOk(existsSync(marker(item)), 'nothing ran')
    const late = await trailboss(lab, ['ok', after.key], ALLOW)
    t.match(late.stderr, /does not wait on a permission dialog/, 'ok after the person answered: refused')
    await idle()
  })

  await t.test('approved in its pane: the hooks move it on', async (t) => {
    const item = await askPermission('TOOL by hand')
    await press(lab, pane, 'Enter')
    await waitForPaneItem(lab, pane, is('waiting', 'done'), BOUND_MS, 'done after Enter in the pane')
    t.ok(existsSync(marker(item)), 'the command ran')
    await idle()
  })

  await t.test('a question (ask_user), answered in its pane', async (t) => {
    await submit(lab, pane, 'ASK me')
    const item = await waitForPaneItem(lab, pane, is('permission', 'question'), BOUND_MS, 'question')
    t.equal(item.ask.tool, 'ask_user')
    await waitForScreen(lab, pane, /Copilot needs information\./, BOUND_MS, "ask_user's form")
    await press(lab, pane, 'Enter')
    await waitForPaneItem(lab, pane, (i) => i.state !== 'permission', BOUND_MS, 'the question answered')
    await idle()
  })

  await t.test('Esc Esc while the model streams', async (t) => {
    await submit(lab, pane, 'SLOW please')
    await waitForPaneItem(lab, pane, is('working', null), BOUND_MS, 'working')
    await waitForScreen(lab, pane, /esc esc interrupt/, BOUND_MS, 'the working footer')
    // Two presses, not one burst: a terminal reads ESC ESC sent at once as one Alt+Esc. On a loaded
    // machine a pair was seen to go unheeded, its turn still working: a person presses it again.
    await waitFor(
      'the turn stopped by Esc Esc',
      async () => {
        await press(lab, pane, 'Escape')
        await sleep(300)
        await press(lab, pane, 'Escape')
        await sleep(2000)
        return /esc esc interrupt/.test(await capture(lab, pane)) ? undefined : true
      },
      BOUND_MS,
    )
    const item = await waitForPaneItem(lab, pane, is('waiting', 'interrupted'), BOUND_MS, 'interrupted')
    t.equal(item.inferred, false, "from Copilot's events file, not the screen")
    await idle()
  })

  await t.test('an API error (HTTP 500)', async (t) => {
    await submit(lab, pane, 'FAIL now')
    const item = await waitForPaneItem(lab, pane, is('waiting', 'error'), BOUND_MS, 'waiting/error')
    t.match(item.ask.message, /500|server broke/)
    // Copilot retries for ~16 s; the next prompt waits for its last word.
    await waitForScreen(lab, pane, /Failed to get response/, 60_000, 'the retries given up')
    await idle()
  })

  await t.test('show prints the conversation; go takes a client there', async (t) => {
    const shown = await trailboss(lab, ['show', id, '--lines', '100'])
    t.equal(shown.code, 0, `show: ${shown.stderr.trim()}`)
    t.match(shown.stdout, /PLAIN hello/, 'a prompt')
    t.match(shown.stdout, CHAT_TEXT_PLAIN, 'an answer')
    const client = await attachClient(lab, 'home')
    t.teardown(() => client.child.kill())
    const pid = (await lab.tmux('display-message', '-p', '#{pid}')).stdout.trim()
    const inTmux = { TMUX: `${lab.socket},${pid},0`, TMUX_PANE: '%0' }
    const n = itemOf(await lsJson(lab), id)?.n
    t.ok(n !== null && n !== undefined, 'the session is queued (its error)')
    const go = await trailboss(lab, ['go', String(n)], inTmux)
    t.equal(go.code, 0, `go: ${go.stderr.trim()}`)
    t.equal(await clientPane(lab, client.name), pane, "the client shows Copilot's pane")
  })

  await t.test('exit', async (t) => {
    await submit(lab, pane, '/exit')
    const item = await waitForPaneItem(lab, pane, (i) => i.state === 'ended' || i.state === 'gone', BOUND_MS, 'ended')
    t.equal(item.state, 'ended', 'sessionEnd fired')
  })

  await t.test('a killed pane: Copilot ends its session on the hangup', async (t) => {
    const pane2 = await startCopilot(lab, 'copilot2')
    await submit(lab, pane2, 'TOOL then die')
    await waitForPaneItem(lab, pane2, is('permission', 'permission'), BOUND_MS, 'permission')
    await lab.tmux('kill-pane', '-t', pane2)
    // The pane may read as gone for a moment: Copilot's sessionEnd hook runs as it shuts down.
    const item = await waitForPaneItem(lab, pane2, (i) => i.state === 'ended', BOUND_MS, 'ended (SIGHUP: sessionEnd)')
    t.equal(item.reason, null, 'from the hook')
    t.equal(item.n, null, 'not queued')
  })

  await t.test('a killed agent: no hook, its pane is gone', async (t) => {
    const pane3 = await startCopilot(lab, 'copilot3')
    await submit(lab, pane3, 'TOOL then die hard')
    await waitForPaneItem(lab, pane3, is('permission', 'permission'), BOUND_MS, 'permission')
    // npm's launcher runs the agent as its child: SIGKILL leaves it no hook to run.
    const shim = (await lab.tmux('display-message', '-p', '-t', pane3, '#{pane_pid}')).stdout.trim()
    const kids = await run('pgrep', ['-P', shim], lab.env)
    for (const pid of [...kids.stdout.split('\n').filter(Boolean), shim]) process.kill(Number(pid), 'SIGKILL')
    const item = await waitForPaneItem(lab, pane3, (i) => i.state === 'gone' || i.state === 'ended', BOUND_MS, 'gone')
    t.equal(item.state, 'gone', 'tmux says its pane is gone')
    t.equal(item.n, null, 'not queued')
  })

  const un = await trailboss(lab, ['uninstall', '--agent', 'copilot'])
  t.equal(un.code, 0, 'uninstall --agent copilot')
  t.comment(`Copilot suite: ${((Date.now() - started) / 1000).toFixed(1)} s`)
})
