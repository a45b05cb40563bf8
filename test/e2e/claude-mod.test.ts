// The plugin's mod in real Claude Code sessions (2.1.332): a second session's wait shows in the
// first session's status entry and as one toast, `/trailboss` lists it in a pane, the pane's
// button moves a real tmux client there, and after a quiet stretch the person's next prompt
// brings the digest of the return as a toast. And the same plugin on the oldest build (2.1.197),
// which has no mods: its command hooks still record the session.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import {
  attachClient,
  capture,
  checkClaude,
  clientPane,
  EMIT_BIN,
  NEWEST,
  OLDEST,
  lsJson,
  itemOf,
  REPO,
  startClaude,
  startE2e,
  submit,
  press,
  trailboss,
  TRAILBOSS_BIN,
  waitFor,
  waitForScreen,
  type E2e,
} from './harness.js'

t.setTimeout(240_000)

/** How long a step may take before the test gives up (a deadline, not a speed check: speed is printed). */
const STEP_MS = 30_000

/**
 * The plugin as a person gets it: its own folder (Claude Code writes the mod's type declarations
 * beside a mod it loads from a folder the person owns), and `trailboss` and `trailboss-emit` on
 * the panes' PATH, as `npm install -g` puts them.
 */
const preparePlugin = async (e2e: E2e): Promise<string> => {
  const plugin = join(e2e.root, 'plugin')
  cpSync(join(REPO, 'plugin'), plugin, { recursive: true, filter: (src) => !src.includes(join('.claude-plugin', 'types')) })
  const bin = join(e2e.root, 'bin')
  mkdirSync(bin)
  for (const [name, file] of [
    ['trailboss', TRAILBOSS_BIN],
    ['trailboss-emit', EMIT_BIN],
  ] as const) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec '${process.execPath}' '${file}' "$@"\n`, { mode: 0o755 })
  }
  // tmux 3.3 gives a new window the PATH of the tmux command that made it: e2e.tmux's environment.
  e2e.env.PATH = `${bin}:${e2e.env.PATH ?? ''}`
  return plugin
}

t.test("Claude Code 2.1.332: another session's wait in the status entry, one toast, the pane and its go button", async (t) => {
  t.comment(`claude: ${await checkClaude(NEWEST)}`)
  const e2e = await startE2e({ build: NEWEST, noHooks: true })
  t.teardown(() => e2e.close())
  const plugin = await preparePlugin(e2e)
  const args = ['--plugin-dir', plugin]
  const watcher = await startClaude(e2e, 'watcher', args)
  const other = await startClaude(e2e, 'other', args)
  await e2e.tmux('select-window', '-t', 'home:watcher')
  const client = await attachClient(e2e, 'home:watcher')
  t.teardown(() => {
    client.child.kill()
  })
  t.equal(await clientPane(e2e, client.name), watcher.pane, 'the client shows the watching session')

  const STATUS = /trailboss: 1 other waits · oldest (?:<1m|\d+[smh])/
  const TOAST = /proj waits: Bash: touch/
  t.notMatch(await capture(e2e, watcher.pane), /other waits?/, 'nobody waits yet: no status entry')

  // Watch the watcher's screen for the whole run: the toast must show once, never twice.
  let toasts = 0
  let toastShown = false
  let sampling = true
  t.teardown(() => {
    sampling = false
  })
  const sampler = (async () => {
    while (sampling) {
      const shown = TOAST.test(await capture(e2e, watcher.pane).catch(() => ''))
      if (shown && !toastShown) toasts++
      toastShown = shown
      await new Promise((r) => setTimeout(r, 100))
    }
  })()

  const enter = await submit(e2e, other.pane, 'PERM please touch the file')
  const { ms: dialogMs } = await waitFor(
    'the permission dialog',
    async () => (/Do you want to proceed\?/.test(await capture(e2e, other.pane)) ? true : undefined),
    STEP_MS,
    enter,
  )
  const dialogAt = enter + dialogMs
  const { ms: statusMs } = await waitFor(
    "the wait in the watcher's status entry",
    async () => (STATUS.test(await capture(e2e, watcher.pane)) ? true : undefined),
    STEP_MS,
    dialogAt,
  )
  t.pass(`the other session's wait is in the watcher's status entry ${statusMs} ms after its dialog showed`)
  console.error(`# mod status entry: ${statusMs} ms after the dialog (${dialogMs + statusMs} ms after Enter)`)
  const item = itemOf(await lsJson(e2e), other.sessionId)
  t.equal(item?.state, 'permission', 'ls agrees: the other session waits for a permission')
  t.notMatch(await capture(e2e, other.pane), /trailboss: \d+ others? wait/, 'the waiting session does not count itself')
  await waitFor('the toast', () => (toasts > 0 ? true : undefined), STEP_MS)

  // The pane: one row for the other session's wait; its button, labelled and keyed by the wait's
  // number, moves the client there. The number is the one ls gives: numbers stay put, so a wait
  // seen and gone before (a loaded machine's passing state of a starting session) may hold 1.
  const n = item?.n
  if (typeof n !== 'number' || n > 9) throw new Error(`the wait's number is not one key: ${JSON.stringify(item)}`)
  const button = new RegExp(`\\[ go ${n} \\]`)
  await submit(e2e, watcher.pane, '/trailboss')
  const screen = await waitForScreen(e2e, watcher.pane, new RegExp(`${button.source}.*permission`), STEP_MS, 'the pane with the wait')
  t.match(screen, new RegExp(`${button.source} proj permission \\d+[sm] Bash: touch `), 'the row: number, project, kind, age, ask')
  const pressed = await press(e2e, watcher.pane, String(n))
  const { ms: goMs } = await waitFor(
    'the client to move to the waiting session',
    async () => ((await clientPane(e2e, client.name)) === other.pane ? true : undefined),
    STEP_MS,
    pressed,
  )
  t.pass(`the go button moved the client to the waiting pane in ${goMs} ms`)

  // The toast is long gone by now; it was never shown again.
  await waitFor('the toast to go', () => (toastShown ? undefined : true), STEP_MS)
  sampling = false
  await sampler
  t.equal(toasts, 1, 'the toast showed once')

  // Back after a break: the last sign of the person (the go button above) moved 40 minutes back,
  // and the other session's wait logged since. The watcher's next prompt is the person's own, so
  // its read ends the stretch, and its toast says what arrived meanwhile.
  writeFileSync(join(e2e.tbHome, 'activity.json'), JSON.stringify({ v: 1, at: Date.now() - 40 * 60_000 }), { mode: 0o600 })
  await press(e2e, watcher.pane, 'Escape')
  await waitFor('the pane to close', async () => (button.test(await capture(e2e, watcher.pane)) ? undefined : true), STEP_MS)
  const back = await submit(e2e, watcher.pane, 'hello again')
  // The toast wraps its line in a box: its first words, then the counts it goes on with.
  const { ms: digestMs } = await waitFor(
    "the return's digest as a toast",
    async () => {
      const screen = await capture(e2e, watcher.pane)
      // The count of waits is the history's: a dialog a check on read saw before its hook counts
      // once more, and a loaded machine reorders them; the toast, its span and a permission are the point.
      if (/While you were away \(4[01]m\): \d+ waits?/.test(screen) && /permission\)/.test(screen)) return true
      throw new Error(`no digest toast on the screen:\n${screen}`)
    },
    STEP_MS,
    back,
  )
  t.pass(`the return's digest showed ${digestMs} ms after the prompt's Enter`)
})

t.test("Claude Code 2.1.197 loads the same plugin's command hooks (it has no mods)", async (t) => {
  t.comment(`claude: ${await checkClaude(OLDEST)}`)
  const e2e = await startE2e({ build: OLDEST, noHooks: true })
  t.teardown(() => e2e.close())
  const plugin = await preparePlugin(e2e)
  const session = await startClaude(e2e, 'old', ['--plugin-dir', plugin])
  const enter = await submit(e2e, session.pane, 'QUESTION from the old build')
  const { value: item } = await waitFor(
    "the session recorded through the plugin's hooks",
    async () => {
      const i = itemOf(await lsJson(e2e), session.sessionId)
      return i?.state === 'waiting' ? i : undefined
    },
    STEP_MS,
    enter,
  )
  t.equal(item.kind, 'question', 'the Stop hook ran: the turn ended with a question')
  t.notMatch(await capture(e2e, session.pane), /hooks: expected record|plugin.*(failed|error)/i, 'no plugin load error on screen')
})

for (const build of [OLDEST, NEWEST]) {
  t.test(`Claude Code ${build.version}: trailboss install --statusline puts the other sessions' waits in its status line`, async (t) => {
    t.comment(`claude: ${await checkClaude(build)}`)
    const e2e = await startE2e({ build })
    t.teardown(() => e2e.close())
    // Installed once both sessions run (2.1.197 draws no `? for shortcuts` under a status line,
    // which is how the harness knows a session is ready): both builds re-read their settings.
    const waiter = await startClaude(e2e, 'waiter')
    const viewer = await startClaude(e2e, 'viewer')
    const inst = await trailboss(e2e, ['install', '--statusline'])
    t.equal(inst.code, 0, inst.stderr)
    await submit(e2e, waiter.pane, 'QUESTION from the waiting session')
    await waitFor(
      'the waiting session in the queue',
      async () => (itemOf(await lsJson(e2e), waiter.sessionId)?.n ? true : undefined),
      STEP_MS,
    )
    // Claude Code runs the status line when its own session changes: the viewer's turn does that.
    // Its settings watcher may take a moment to see the new statusLine: a second turn then.
    const shows = async (): Promise<true | undefined> =>
      /\b1 other waits · oldest (?:<1m|\d+[smh])/.test(await capture(e2e, viewer.pane)) ? true : undefined
    let ms = -1
    for (let i = 0; i < 3 && ms < 0; i++) {
      const enter = await submit(e2e, viewer.pane, `hello ${i + 1} from the viewer`)
      ms = await waitFor("the count in the viewer's status line", shows, STEP_MS / 2, enter).then(
        (r) => r.ms,
        () => -1,
      )
    }
    if (ms < 0) throw new Error(`no count in the viewer's status line:\n${await capture(e2e, viewer.pane)}`)
    t.pass(`the viewer's status line counts the other session ${ms} ms after its Enter, not itself`)
    // The viewer's own turns end as waits (done), so the waiter may count it: one other, never itself.
    t.notMatch(await capture(e2e, waiter.pane), /\b([2-9]|\d{2,}) others wait/, 'the waiting session never counts itself')
  })
}
