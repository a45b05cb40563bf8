// The real OpenCode (pinned in test/e2e/clis/opencode) in a private tmux server against our mock
// of a Chat Completions API, with the plugin installed by `trailboss install --agent opencode`.
// One OpenCode session walks through every state, `ls --json` telling each; a second is killed.
// A wait answered while our plugin's events could not be written is caught on read from
// OpenCode's own database. `ok` and `no` press its dialog, verified by the tool having run or not.
import { existsSync } from 'node:fs'
import { rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { waitForPaneItem } from './codex-env.js'
import { attachClient, clientPane, press, submit, trailboss, waitForScreen, type Item } from './harness.js'
import { OC_TEXT_AFTER_TOOL, OC_TEXT_ERROR } from './mock-opencode-api.js'
import { checkOpencode, startOpencode, startOpencodeLab, type OpencodeLab } from './opencode-env.js'

/**
 * Our plugin writes an event and returns; a detached fold or the next read folds it. OpenCode
 * itself is slow on a loaded 2-core machine: a step of a turn took 8 s, a session's first turn 25 s.
 */
const EVENT_BOUND_MS = 30_000
const FIRST_TURN_MS = 90_000
// The whole file drives one real OpenCode through every state: on a loaded 2-core runner it
// outlasts tap's 120 s default (it timed out in CI at its last subtest).
t.setTimeout(300_000)

t.test('OpenCode: install, then every state of one session', async (t) => {
  const started = Date.now()
  t.comment(await checkOpencode())
  // In the project: a file outside it asks for another permission (external_directory) first.
  const lab: OpencodeLab = await startOpencodeLab((n) => `touch oc-${n}`)
  t.teardown(() => lab.close())
  const marker = (n: number): string => join(lab.project, `oc-${n}`)

  const inst = await trailboss(lab, ['install', '--agent', 'opencode'])
  t.equal(inst.code, 0, `install --agent opencode: ${inst.stderr.trim()}`)
  const doctor = await trailboss(lab, ['doctor'])
  t.match(doctor.stdout, /OpenCode: our plugin in /, 'doctor finds our plugin')

  const pane = await startOpencode(lab, 'oc')
  const is = (state: string, kind: string | null) => (i: Item) => i.state === state && i.kind === kind
  const waitItem = (want: (i: Item) => boolean, what: string, p = pane, bound = EVENT_BOUND_MS): Promise<Item> =>
    waitForPaneItem(lab, p, want, bound, what)
  const allowSend = { TRAILBOSS_ALLOW_SEND: '1' }

  await t.test('done', async (t) => {
    await submit(lab, pane, 'PLAIN hello')
    const item = await waitItem(is('waiting', 'done'), 'waiting/done', pane, FIRST_TURN_MS)
    t.equal(item.agent, 'opencode')
    t.equal(item.inferred, false, 'from the plugin, not the screen')
    t.ok(item.n !== null, 'queued')
  })

  await t.test('a permission with its command, approved in the pane', async (t) => {
    await submit(lab, pane, 'TOOL one')
    const item = await waitItem(is('permission', 'permission'), 'permission')
    t.equal(item.ask.tool, 'bash')
    t.match(item.ask.input, { command: 'touch oc-1' }, 'the command asked for')
    const shown = await trailboss(lab, ['show', String(item.n)])
    t.equal(shown.code, 0, `show exits 0 (${shown.stderr.trim()})`)
    t.match(shown.stdout, /TOOL one/, "show prints the prompt from OpenCode's database")
    t.match(shown.stdout, /touch oc-1/, 'and the command asked for')
    await waitForScreen(lab, pane, /Allow once\s+Allow always\s+Reject/, 10_000)
    await press(lab, pane, 'Enter')
    await waitItem(is('waiting', 'done'), 'done after Allow once')
    t.ok(existsSync(marker(1)), 'the command ran')
  })

  await t.test('go', async (t) => {
    await submit(lab, pane, 'TOOL for go')
    const item = await waitItem(is('permission', 'permission'), 'permission')
    const client = await attachClient(lab, 'home')
    t.teardown(() => client.child.kill())
    const pid = (await lab.tmux('display-message', '-p', '#{pid}')).stdout.trim()
    const g = await trailboss(lab, ['go', String(item.n)], { TMUX: `${lab.socket},${pid},0`, TMUX_PANE: '%0' })
    t.equal(g.code, 0, `go exits 0 (${g.stderr.trim()})`)
    t.equal(await clientPane(lab, client.name), pane, "the client shows OpenCode's pane")
  })

  await t.test('no: rejects the dialog', async (t) => {
    const item = await waitItem(is('permission', 'permission'), 'permission')
    const r = await trailboss(lab, ['no', String(item.n)], allowSend)
    t.equal(r.code, 0, `no exits 0 (${r.stderr.trim()})`)
    const after = await waitItem(is('waiting', 'interrupted'), 'interrupted after no')
    t.equal(after.ask.tool, 'bash', 'says which tool was refused')
    t.notOk(existsSync(marker(2)), 'the command did not run')
  })

  await t.test('ok: approves once, and the tool runs', async (t) => {
    await submit(lab, pane, 'TOOL three')
    const item = await waitItem(is('permission', 'permission'), 'permission')
    await waitForScreen(lab, pane, /Allow once\s+Allow always\s+Reject/, 10_000)
    // The selection moved off "Allow once": ok must still approve once, not always, not reject.
    await press(lab, pane, 'Right')
    const r = await trailboss(lab, ['ok', String(item.n)], allowSend)
    t.equal(r.code, 0, `ok exits 0 (${r.stderr.trim()})`)
    await waitItem(is('waiting', 'done'), 'done after ok')
    t.ok(existsSync(marker(3)), 'the command ran')
  })

  await t.test('a permission answered while no event could reach us: caught on read', async (t) => {
    await submit(lab, pane, 'TOOL four')
    await waitItem(is('permission', 'permission'), 'permission')
    await waitForScreen(lab, pane, /Allow once\s+Allow always\s+Reject/, 10_000)
    // The plugin's spool folder becomes a file: its writes fail, as on a full disk.
    const spool = join(lab.tbHome, 'sessions', '.spool')
    await rename(spool, `${spool}.away`)
    await writeFile(spool, '')
    try {
      await press(lab, pane, 'Enter')
      await waitForScreen(lab, pane, new RegExp(OC_TEXT_AFTER_TOOL), 10_000)
      const item = await waitItem((i) => i.state !== 'permission', 'the wait left')
      t.equal(item.reason, 'transcript: permission answered', "OpenCode's database says the dialog was answered")
    } finally {
      await rm(spool)
      await rename(`${spool}.away`, spool)
    }
    t.ok(existsSync(marker(4)), 'the command ran')
  })

  await t.test('a question, answered in the pane', async (t) => {
    await submit(lab, pane, 'ASK me')
    const item = await waitItem(is('permission', 'question'), 'question')
    t.equal(item.ask.tool, 'question')
    await waitForScreen(lab, pane, /enter submit/, 10_000)
    await press(lab, pane, 'Enter')
    await waitItem(is('waiting', 'done'), 'done after the answer')
  })

  await t.test('Esc while it works: interrupted', async () => {
    await submit(lab, pane, 'SLOW please')
    await waitItem(is('working', null), 'working')
    await waitForScreen(lab, pane, /esc interrupt/, 10_000)
    await press(lab, pane, 'Escape')
    await waitForScreen(lab, pane, /esc again to interrupt/, 5000)
    await press(lab, pane, 'Escape')
    await waitItem(is('waiting', 'interrupted'), 'interrupted')
  })

  await t.test('an API error, after its retries', async (t) => {
    await submit(lab, pane, 'FAIL now')
    const item = await waitItem(is('waiting', 'error'), 'waiting/error')
    t.match(item.ask.message, new RegExp(OC_TEXT_ERROR))
  })

  await t.test('exit', async (t) => {
    await submit(lab, pane, '/exit')
    const item = await waitItem((i) => i.state === 'ended' || i.state === 'gone', 'ended')
    t.equal(item.state, 'ended', 'dispose ended the session')
  })

  await t.test('a second session, its process killed: gone', async (t) => {
    const pane2 = await startOpencode(lab, 'oc2')
    await submit(lab, pane2, 'TOOL then die')
    await waitItem(is('permission', 'permission'), 'permission', pane2, FIRST_TURN_MS)
    // The pane runs OpenCode's binary itself. SIGKILL: no dispose, the pane closes with it.
    const pid = Number((await lab.tmux('display-message', '-p', '-t', pane2, '#{pane_pid}')).stdout.trim())
    process.kill(pid, 'SIGKILL')
    const item = await waitItem((i) => i.state === 'gone', 'gone', pane2)
    t.equal(item.n, null, 'not queued')
  })

  const un = await trailboss(lab, ['uninstall', '--agent', 'opencode'])
  t.equal(un.code, 0, 'uninstall --agent opencode')
  t.comment(`wall time ${Math.round((Date.now() - started) / 1000)} s`)
})
