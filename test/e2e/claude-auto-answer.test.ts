// `trailboss ok` / `no` on Claude Code 2.1.332 in auto mode (its default) behind a gateway, as the
// mock API is one: a tool call opens "Auto mode can't check actions in this session" (no command
// on it), and after Enter an approval dialog whose cursor starts on "No". From the queue, `ok`
// must get through both the way a person does and approve only the command the record holds;
// `no` must cancel the call. Before the exact-match guard both were refused.
import { existsSync } from 'node:fs'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import {
  capture,
  checkClaude,
  itemOf,
  lsJson,
  NEWEST,
  startClaude,
  startE2e,
  submit,
  trailboss,
  waitFor,
  waitForItem,
  waitForScreen,
  type E2e,
  type Item,
} from './harness.js'
import { TEXT_AFTER_TOOL } from './mock-api.js'

const BOUND_MS = 30_000
const ALLOW = { TRAILBOSS_ALLOW_SEND: '1' }
const CANT_CHECK = /Enter to stay in auto mode/
const APPROVAL = /so this one needs your approval/

t.setTimeout(240_000)

/** Waits until the dialog matching `re` is up and the queue lists the wait with its command. */
const askPermission = async (e2e: E2e, pane: string, sessionId: string, prompt: string, re: RegExp): Promise<Item> => {
  const t0 = await submit(e2e, pane, prompt)
  await waitForScreen(e2e, pane, re, BOUND_MS, `the dialog after "${prompt}"`)
  const { value } = await waitFor(
    'a permission wait naming its command',
    async () => {
      const it = itemOf(await lsJson(e2e), sessionId)
      const command = (it?.ask.input as { command?: unknown } | null)?.command
      return it?.state === 'permission' && typeof command === 'string' && (await capture(e2e, pane)).includes(command) ? it : undefined
    },
    BOUND_MS,
    t0,
  )
  return value
}

const fileOf = (item: Item): string => String((item.ask.input as { command: string }).command).replace(/^touch /, '')

t.test(`ok and no answer Claude Code ${NEWEST.version}'s auto-mode dialogs from the queue`, async (t) => {
  t.comment(`claude: ${await checkClaude(NEWEST)}`)
  const e2e = await startE2e({ build: NEWEST, mode: 'auto' })
  t.teardown(() => e2e.close())
  const a = await startClaude(e2e, 'auto')
  const id = a.sessionId
  t.match(await capture(e2e, a.pane), /⏵⏵ auto mode on/, 'the session starts in auto mode')

  // The notice shows no command: Enter (stay in auto mode), then on the approval dialog Down
  // and Enter, only once the cursor reads "Yes" on exactly the recorded command.
  const first = await askPermission(e2e, a.pane, id, 'PERM please', CANT_CHECK)
  const ok = await trailboss(e2e, ['ok', first.key], ALLOW)
  t.equal(ok.code, 0, `ok on "can't check": ${ok.stderr.trim()}`)
  const done = await waitForItem(e2e, id, { state: 'waiting', kind: 'done' }, Date.now(), BOUND_MS)
  t.equal(done.item.ask.message, TEXT_AFTER_TOOL, 'the tool ran and the turn ended')
  t.ok(existsSync(fileOf(first)), `the approved command ran: ${fileOf(first)}`)

  // The next call opens the approval dialog at once, its cursor on "No".
  const second = await askPermission(e2e, a.pane, id, 'PERM again please', APPROVAL)
  const ok2 = await trailboss(e2e, ['ok', second.key], ALLOW)
  t.equal(ok2.code, 0, `ok on the approval dialog: ${ok2.stderr.trim()}`)
  await waitForItem(e2e, id, { state: 'waiting', kind: 'done' }, Date.now(), BOUND_MS)
  t.ok(existsSync(fileOf(second)), `the approved command ran: ${fileOf(second)}`)

  const third = await askPermission(e2e, a.pane, id, 'PERM once more', APPROVAL)
  const no = await trailboss(e2e, ['no', third.key], ALLOW)
  t.equal(no.code, 0, `no on the approval dialog: ${no.stderr.trim()}`)
  await waitForItem(e2e, id, { state: 'waiting', kind: 'interrupted' }, Date.now(), BOUND_MS)
  t.notOk(existsSync(fileOf(third)), 'the denied command did not run')

  // A record that lags a new dialog: it names a command the dialog only begins with. Made here by
  // writing the record as an emitter would have a moment earlier; ok must refuse and press nothing.
  const short = `touch ${e2e.scratch}/long`
  const fourth = await askPermission(e2e, a.pane, id, `PERM CMD: ${short} && touch ${e2e.scratch}/extra`, APPROVAL)
  t.equal((fourth.ask.input as { command: string }).command, `${short} && touch ${e2e.scratch}/extra`, 'the dialog asks for both touches')
  const path = join(e2e.tbHome, 'sessions', `${id}.json`)
  const rec = JSON.parse(await readFile(path, 'utf8')) as Record<string, { input: { command: string } } | null>
  for (const k of ['tool', 'lastTool']) if (rec[k]) rec[k].input.command = short
  await writeFile(`${path}.lag.tmp`, JSON.stringify(rec))
  await rename(`${path}.lag.tmp`, path)
  const stale = await waitFor(
    'the lagging record in the queue',
    async () => {
      const it = itemOf(await lsJson(e2e), id)
      return (it?.ask.input as { command?: string } | null)?.command === short ? it : undefined
    },
    BOUND_MS,
  )
  // The dialog: the lines under the last full-width rule (the bullet above it blinks).
  const dialogPart = (screen: string): string =>
    screen
      .split('\n')
      .slice(screen.split('\n').findLastIndex((l) => /^─{20,}$/.test(l)))
      .join('\n')
  const before = dialogPart(await capture(e2e, a.pane))
  const refused = await trailboss(e2e, ['ok', stale.value.key], ALLOW)
  t.not(refused.code, 0, 'ok on a dialog whose command only begins with the recorded one: refused')
  t.match(refused.stderr, /not exactly the one in the record[\s\S]*nothing was pressed/, 'says why, and that nothing was pressed')
  await new Promise((r) => setTimeout(r, 1000))
  t.equal(dialogPart(await capture(e2e, a.pane)), before, 'the dialog is as it was, its cursor still on "No"')
  t.notOk(existsSync(`${e2e.scratch}/long`) || existsSync(`${e2e.scratch}/extra`), 'nothing ran')
})
