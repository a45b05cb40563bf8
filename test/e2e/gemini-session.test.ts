// End to end with the real Gemini CLI: `trailboss install --agent gemini`, then one session walks
// through done, permission (approve, deny with Esc), cancel while streaming, an API error and
// /quit; a second one is killed with its dialog open. Each state is checked in `ls --json`.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { Latencies, lsJson, press, trailboss, waitFor, waitForItem, waitForScreen } from './harness.js'
import { checkGemini, startGemini, startGeminiE2e, submitGemini, waitForGeminiReady } from './gemini-harness.js'

const latencies = new Latencies()

t.test('Gemini CLI sessions through every state', async (t) => {
  t.comment(`gemini ${await checkGemini()}`)
  const e2e = await startGeminiE2e()
  t.teardown(() => e2e.close())

  const settings = JSON.parse(await readFile(join(e2e.home, '.gemini', 'settings.json'), 'utf8')) as {
    hooks: Record<string, { hooks: { command: string; name?: string }[] }[]>
  }
  t.same(Object.keys(settings.hooks).sort(), [
    'AfterAgent',
    'AfterTool',
    'BeforeAgent',
    'BeforeTool',
    'Notification',
    'SessionEnd',
    'SessionStart',
  ])
  t.equal(settings.hooks.AfterAgent![0]!.hooks[0]!.name, 'mine', 'the foreign hook stays first')
  t.match(
    settings.hooks.AfterAgent![1]!.hooks[0]!.command,
    /^\/bin\/sh \S+\/dist\/hooks\/spool\.sh gemini \S+$/,
    'each runs the spool hook',
  )

  const pane = await startGemini(e2e, 'g1')
  const sessionIn = async (p: string): Promise<string> =>
    (
      await waitFor(
        `a session in ${p}`,
        async () => (await lsJson(e2e)).queue.find((i) => i.tmux?.pane === p && i.state === 'idle')?.sessionId,
        20_000,
      )
    ).value
  const id = await sessionIn(pane)
  t.match(
    (await lsJson(e2e)).queue.find((i) => i.sessionId === id),
    { agent: 'gemini', state: 'idle', project: 'proj' },
  )

  // done
  let t0 = await submitGemini(e2e, pane, 'PLAIN hello')
  let r = await waitForItem(e2e, id, { state: 'waiting', kind: 'done', queued: true }, t0, 30_000)
  latencies.add('done (AfterAgent)', r)
  t.equal(r.item.ask.message, 'All done here.')
  await waitForGeminiReady(e2e, pane)

  // permission, approved
  t0 = await submitGemini(e2e, pane, 'TOOL please')
  r = await waitForItem(e2e, id, { state: 'permission', kind: 'permission' }, t0, 30_000)
  latencies.add('permission (Notification ToolPermission)', r)
  t.equal(r.item.ask.tool, 'run_shell_command')
  t.match(r.item.ask.input, { command: /^touch / })
  const shown = await trailboss(e2e, ['show', id])
  t.equal(shown.code, 0)
  t.match(shown.stdout, /touch /, 'show prints the command asked for')
  await waitForScreen(e2e, pane, /Allow once/, 10_000)
  t0 = await press(e2e, pane, 'Enter')
  r = await waitForItem(e2e, id, { state: 'waiting', kind: 'done' }, t0, 30_000)
  latencies.add('approved → done', r)
  await waitForGeminiReady(e2e, pane)

  // permission, denied with Esc: no hook fires; the chat file tells
  t0 = await submitGemini(e2e, pane, 'TOOL again')
  const asked = await waitForItem(e2e, id, { state: 'permission', kind: 'permission' }, t0, 30_000)
  await waitForScreen(e2e, pane, /Allow once/, 10_000)
  t0 = await press(e2e, pane, 'Escape')
  r = await waitForItem(e2e, id, { state: 'waiting', kind: 'interrupted' }, t0, 30_000)
  latencies.add('denied with Esc → interrupted (chat file)', r)
  t.match(r.item.reason, /transcript/)
  // The record names the refused tool when its Notification arrived; a wait seen only on the
  // screen (a hook lost on a loaded machine) has no dialog in the record to name.
  if (!asked.item.inferred) t.equal(r.item.ask.tool, 'run_shell_command', 'the refused tool is still named')
  else t.comment(`the dialog was seen on the screen only (${asked.item.reason}); no tool to name`)
  await waitForGeminiReady(e2e, pane)

  // cancel while streaming
  t0 = await submitGemini(e2e, pane, 'SLOW please')
  await waitForItem(e2e, id, { state: 'working' }, t0, 30_000)
  await waitForScreen(e2e, pane, /Step 1/, 30_000)
  t0 = await press(e2e, pane, 'Escape')
  r = await waitForItem(e2e, id, { state: 'waiting', kind: 'interrupted' }, t0, 30_000)
  latencies.add('Esc while streaming → interrupted', r)
  await waitForGeminiReady(e2e, pane)

  // API error: AfterAgent says done, the chat file says error
  t0 = await submitGemini(e2e, pane, 'FAIL now')
  r = await waitForItem(e2e, id, { state: 'waiting', kind: 'error' }, t0, 30_000)
  latencies.add('API error → error (chat file)', r)
  t.match(r.item.reason, /transcript/)
  await waitForGeminiReady(e2e, pane)

  // exit: SessionEnd three times, one end
  t0 = await submitGemini(e2e, pane, '/quit')
  r = await waitForItem(e2e, id, { state: 'ended' }, t0, 30_000)
  latencies.add('/quit → ended', r)

  // killed pane with its dialog open: no hook; tmux tells
  const pane2 = await startGemini(e2e, 'g2')
  const id2 = await sessionIn(pane2)
  t0 = await submitGemini(e2e, pane2, 'TOOL before kill')
  await waitForItem(e2e, id2, { state: 'permission', kind: 'permission', queued: true }, t0, 30_000)
  t0 = Date.now()
  // Gemini CLI keeps running after its pane is gone (teardown kills it); the pane is what counts.
  await e2e.tmux('kill-pane', '-t', pane2)
  r = await waitForItem(e2e, id2, { state: 'gone', queued: false }, t0, 15_000)
  latencies.add('killed pane → gone', r)
  t.match(r.item.reason, /pane is gone/)
})

t.teardown(() => {
  if (latencies.rows.length > 0) console.log(`# Gemini CLI latencies\n${latencies.format().replace(/^/gm, '# ')}`)
})
