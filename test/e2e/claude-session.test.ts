// One long scripted session of the real Claude Code CLI, driven like a person would, checked
// through `trailboss ls --json --all` after every step, with the time each state took to show.
// Scenarios: startup, a finished turn, a question, permission (approve, then deny),
// AskUserQuestion, an API error, Esc while the model streams and before any output, /compact,
// /clear, /exit, --resume, a killed pane. A failing step is reported and the script goes on.
// The script runs on both pinned builds at once (each in its own tmux server, against its own
// mock), in the classic permission mode: most of its time is waiting, so two cost little more
// than one.
import t, { type Test } from 'tap'
import {
  answerDialog,
  BUILDS,
  capture,
  checkClaude,
  HOOK_BOUND_MS,
  IDLE_NOTIF_MS,
  itemOf,
  Latencies,
  lsJson,
  PERMISSION_NOTIF_MS,
  press,
  recordText,
  sleep,
  startClaude,
  startE2e,
  submit,
  taggedAsserts,
  waitFor,
  waitForItem,
  waitForScreen,
  type ClaudeBuild,
  type Expect,
  type Item,
} from './harness.js'
import { TEXT_AFTER_TOOL, TEXT_DONE, TEXT_QUESTION, TEXT_SLOW_FIRST } from './mock-api.js'

/** On 2.1.332 Claude Code's registry may show a wait before our PreToolUse is recorded: the tool comes with the hook. */
const askNamingTool = async (e2e: Parameters<typeof lsJson>[0], id: string) =>
  (
    await waitFor(
      'the ask names the tool',
      async () => {
        const it = itemOf(await lsJson(e2e), id)
        return it?.ask?.tool ? it : undefined
      },
      HOOK_BOUND_MS,
    )
  ).value

/** Waits that rest on the screen check need its quiet period (lib/queue/derive.ts SCREEN_CHECK_AFTER_MS) first. */
const SCREEN_BOUND_MS = 45_000

t.setTimeout(300_000)

const countOf = (text: string, word: string): number => text.split(word).length - 1

/** The choice that denies in a permission dialog: "3. No" on 2.1.197, "4. No" on 2.1.332. */
const denyKey = (screen: string): string => screen.match(/(\d)\. No\b/)?.[1] ?? 'Escape'

const script = async (parent: Test, build: ClaudeBuild): Promise<void> => {
  const t = taggedAsserts(parent, build)
  t.comment(`claude: ${await checkClaude(build)}`)
  const e2e = await startE2e({ build })
  parent.teardown(() => e2e.close())
  const lat = new Latencies()
  parent.teardown(() => {
    // Printed for docs/claude-code.md; also on failure, where it shows how far the run got.
    console.error(`# latency ${build.version} (keypress → state in ls --json)\n${lat.format().replace(/^/gm, '# ')}`)
  })

  /** Waits until the session's record says its last hook was a Notification (the check after it means nothing before). */
  const notificationRecorded = async (sessionId: string, timeoutMs: number): Promise<void> => {
    await waitFor(
      'the Notification in the record',
      async () =>
        (JSON.parse(await recordText(e2e, sessionId)) as { lastEvent?: string }).lastEvent === 'Notification' ? true : undefined,
      timeoutMs,
    )
  }

  /** Brings the pane back to an empty prompt after a failed step, so the next one stands alone. */
  const settle = async (pane: string): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      const screen = await capture(e2e, pane).catch(() => '')
      if (!/Do you want to proceed\?|Enter to select|esc to interrupt/.test(screen)) break
      await press(e2e, pane, 'Escape')
      await sleep(500)
    }
    await press(e2e, pane, 'C-u').catch(() => undefined)
  }

  /** Runs one scenario; a failure is reported and the script goes on with the next one. */
  const step = async (name: string, pane: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn()
    } catch (err) {
      t.fail(`${name}: ${(err as Error).message}`)
      await settle(pane)
    }
  }

  /**
   * One check of `ls --json`: a miss is a failed assertion, not the end of the script, so the
   * keys of the scenario are still pressed and every later check still tells its own story.
   */
  const expect = async (
    label: string,
    sessionId: string,
    want: Expect | ((item: Item) => boolean),
    from: number,
    bound: number,
    note?: (item: Item) => string,
  ): Promise<Item | null> => {
    try {
      const r = await waitForItem(e2e, sessionId, want, from, bound)
      lat.add(label, r, note?.(r.item))
      t.pass(label)
      return r.item
    } catch (err) {
      t.fail(`${label}: ${(err as Error).message}`)
      return null
    }
  }

  /** Presses `keyFor(screen)` on the dialog `open` matches, and once more if it is still there 5 s later. */
  const pressOnDialog = (pane: string, open: RegExp, keyFor: (screen: string) => string): Promise<number> =>
    answerDialog(e2e, pane, open, async () => press(e2e, pane, keyFor(await capture(e2e, pane))), {
      tries: 2,
      settleMs: 5000,
      note: (text) => t.comment(text),
    })

  const launchedAt = Date.now()
  const a = await startClaude(e2e, 'main')
  const id = a.sessionId
  lat.add('claude start (window → prompt on screen)', a.startMs)

  await step('startup', a.pane, async () => {
    const item = await expect(
      'startup → idle, not queued',
      id,
      { state: 'idle', queued: false },
      launchedAt,
      HOOK_BOUND_MS + 10_000,
      () => 'from window creation',
    )
    t.equal(item?.tmux?.pane, a.pane, 'the record knows the pane')
    t.equal(item?.tmux?.socket, e2e.socket, 'and the tmux socket')
    t.equal(item?.project, 'proj', 'project label is the folder holding .git')
    t.equal(item?.cwd, e2e.project)
  })

  await step('a finished turn', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'hello there')
    const item = await expect('finished turn → waiting/done', id, { state: 'waiting', kind: 'done', queued: true }, t0, HOOK_BOUND_MS)
    t.equal(item?.n, 1)
    t.equal(item?.ask?.message, TEXT_DONE, 'the last message is what is asked')
    t.equal(item?.inferred, false)
    // idle_prompt (after messageIdleNotifThresholdMs) repeats the same wait: `since` must not move.
    await notificationRecorded(id, IDLE_NOTIF_MS + HOOK_BOUND_MS)
    const again = itemOf(await lsJson(e2e), id)
    t.match(again, { state: 'waiting', kind: 'done', since: item?.since }, 'idle_prompt keeps the wait and its since')
  })

  await step('a question', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'QUESTION please')
    const item = await expect(
      'turn ending in "?" → waiting/question',
      id,
      { state: 'waiting', kind: 'question', queued: true },
      t0,
      HOOK_BOUND_MS,
    )
    t.equal(item?.ask?.message, TEXT_QUESTION)
  })

  await step('permission prompt, then approve', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'PERM please')
    await expect('Bash tool call → permission', id, { state: 'permission', kind: 'permission', queued: true }, t0, HOOK_BOUND_MS)
    const item = await askNamingTool(e2e, id)
    t.equal(item?.ask?.tool, 'Bash')
    t.match(item?.ask?.input, { command: new RegExp(`^touch ${e2e.scratch}/x\\d+$`) }, 'the command asked about')
    await waitForScreen(e2e, a.pane, /Do you want to proceed\?/, 5000, 'the permission dialog')
    // The Notification permission_prompt comes 6 s later and is the same wait.
    await notificationRecorded(id, PERMISSION_NOTIF_MS + HOOK_BOUND_MS)
    const later = itemOf(await lsJson(e2e), id)
    t.match(later, { state: 'permission', kind: 'permission' }, 'permission_prompt keeps the wait')
    // Its since is the dialog's: the hook's stamp, or on 2.1.332 the session registry's own time of
    // the dialog, which may be read a moment after the hook (then since moves earlier, once, by
    // that moment); it never moves later, and never by the Notification's 6 s.
    const shift = Date.parse(String(item?.since)) - Date.parse(String(later?.since))
    t.equal(shift >= 0 && shift < 1000, true, `permission_prompt keeps its since (moved ${shift} ms earlier)`)
    const t1 = await press(e2e, a.pane, 'Enter')
    const done = await expect(
      'approve (Enter) → waiting/done after the tool ran',
      id,
      { state: 'waiting', kind: 'done' },
      t1,
      HOOK_BOUND_MS,
    )
    t.equal(done?.ask?.message, TEXT_AFTER_TOOL)
  })

  await step('permission prompt, then deny', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'PERM again please')
    await expect('second Bash tool call → permission', id, { state: 'permission', kind: 'permission' }, t0, HOOK_BOUND_MS)
    // With its options drawn: the key is pressed again if the dialog stays (pressOnDialog).
    await waitForScreen(e2e, a.pane, /Do you want to proceed\?[\s\S]*\d\. No\b/, 5000, 'the permission dialog and its options')
    // "No": Claude Code fires no hook at all; only the transcript shows the denial.
    const t1 = await pressOnDialog(a.pane, /Do you want to proceed\?/, denyKey)
    const item = await expect(
      'deny ("No") → waiting/interrupted (transcript)',
      id,
      { state: 'waiting', kind: 'interrupted', queued: true },
      t1,
      HOOK_BOUND_MS,
    )
    t.equal(item?.inferred, false, 'the transcript, not the screen, tells')
  })

  await step('AskUserQuestion, then an answer', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'ASK me')
    await expect('AskUserQuestion → permission/question', id, { state: 'permission', kind: 'question', queued: true }, t0, HOOK_BOUND_MS)
    const item = await askNamingTool(e2e, id)
    t.equal(item?.ask?.tool, 'AskUserQuestion')
    t.match(item?.ask?.input, { questions: [{ question: 'Which colour should the button be?' }] })
    await waitForScreen(e2e, a.pane, /Enter to select/, 5000, 'the question dialog')
    const t1 = await pressOnDialog(a.pane, /Enter to select/, () => 'Enter')
    await expect('answer (Enter on "Red") → waiting/done', id, { state: 'waiting', kind: 'done' }, t1, HOOK_BOUND_MS)
  })

  await step('an API error', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'FAIL now')
    const item = await expect(
      'API error (HTTP 400) → waiting/error',
      id,
      { state: 'waiting', kind: 'error', queued: true },
      t0,
      HOOK_BOUND_MS,
    )
    t.match(item?.ask?.message, /400/, 'the error is what is shown')
  })

  await step('Esc while the model streams', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'SLOW please')
    await expect('prompt → working', id, { state: 'working', queued: false }, t0, HOOK_BOUND_MS)
    await waitForScreen(e2e, a.pane, new RegExp(TEXT_SLOW_FIRST), 10_000, 'the slow reply streaming')
    const before = countOf(await capture(e2e, a.pane, true), 'Interrupted')
    const t1 = await press(e2e, a.pane, 'Escape')
    await waitFor(
      'one more Interrupted line',
      async () => (countOf(await capture(e2e, a.pane, true), 'Interrupted') > before ? true : undefined),
      5000,
    )
    await expect(
      'Esc during streaming → waiting/interrupted',
      id,
      { state: 'waiting', kind: 'interrupted', queued: true },
      t1,
      SCREEN_BOUND_MS,
      (i) => (i.inferred ? '(screen check)' : '(transcript)'),
    )
  })

  await step('Esc before any output', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'HANG on')
    await expect('prompt → working (no reply yet)', id, { state: 'working' }, t0, HOOK_BOUND_MS)
    await waitForScreen(e2e, a.pane, /esc to interrupt/, 5000, 'the spinner')
    const t1 = await press(e2e, a.pane, 'Escape')
    // Claude Code 2.1.197 fires no hook and writes nothing to the transcript here: the prompt
    // goes back into the input box, and the footer shows no `? for shortcuts` hint.
    await waitFor(
      'the prompt back in the input box',
      async () => {
        const screen = await capture(e2e, a.pane)
        const box = screen.split('\n').findLast((l) => l.startsWith('❯'))
        return box?.includes('HANG on') && !/esc to interrupt/.test(screen) ? true : undefined
      },
      5000,
    )
    const item = await expect(
      'Esc before any output → waiting (screen)',
      id,
      (i) => i.state === 'waiting' && i.n !== null && (i.kind === 'interrupted' || i.kind === 'done'),
      t1,
      SCREEN_BOUND_MS,
      (i) => `(${i.inferred ? 'screen check' : 'transcript'}, kind ${i.kind})`,
    )
    if (item) t.equal(item.inferred, true, 'only the screen can tell: marked inferred')
    await press(e2e, a.pane, 'C-u') // empty the input box for the next steps
  })

  await step('/compact', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, 'hello again')
    await expect('turn before /compact → waiting/done', id, { state: 'waiting', kind: 'done' }, t0, HOOK_BOUND_MS)
    const t1 = await submit(e2e, a.pane, '/compact')
    await waitForScreen(e2e, a.pane, /ctrl\+o to see full summary|Compacted/i, 20_000, 'compaction done')
    const item = await expect(
      '/compact → waiting (after idle_prompt)',
      id,
      { state: 'waiting', queued: true },
      t1,
      IDLE_NOTIF_MS + HOOK_BOUND_MS + 5000,
    )
    if (item) t.equal(item.sessionId, id, 'compaction keeps the session id')
  })

  let cleared = ''
  await step('/clear', a.pane, async () => {
    const t0 = await submit(e2e, a.pane, '/clear')
    await expect('/clear → old session ended', id, { state: 'ended', queued: false }, t0, HOOK_BOUND_MS)
    // Found by its pane whatever its state, so the steps after it run even when that is wrong.
    const found = await waitFor(
      'a new session id in the same pane',
      async () => (await lsJson(e2e)).queue.find((i) => i.sessionId !== id && i.tmux?.pane === a.pane),
      HOOK_BOUND_MS,
      t0,
    )
    cleared = found.value.sessionId
    await expect('/clear → new session idle in the same pane', cleared, { state: 'idle', queued: false }, t0, HOOK_BOUND_MS)
    const t1 = await submit(e2e, a.pane, 'hello after clear')
    const item = await expect(
      'new session: finished turn → waiting/done',
      cleared,
      { state: 'waiting', kind: 'done', queued: true },
      t1,
      HOOK_BOUND_MS,
    )
    t.equal(item?.tmux?.pane, a.pane)
    const old = itemOf(await lsJson(e2e), id)
    t.match(old, { state: 'ended', n: null }, 'the cleared session stays out of the queue')
  })

  await step('/exit', a.pane, async () => {
    if (!cleared) throw new Error('no session after /clear')
    const t0 = await submit(e2e, a.pane, '/exit')
    await expect('/exit → ended', cleared, { state: 'ended', queued: false }, t0, HOOK_BOUND_MS)
  })

  let resumed = ''
  await step('--resume', a.pane, async () => {
    if (!cleared) throw new Error('no session after /clear')
    const t0 = Date.now()
    const b = await startClaude(e2e, 'resumed', ['--resume', cleared], null)
    resumed = b.pane
    const item = await expect(
      '--resume → idle in the new pane',
      cleared,
      (i) => i.state === 'idle' && i.tmux?.pane === b.pane,
      t0,
      HOOK_BOUND_MS + 10_000,
      () => 'from window creation',
    )
    t.equal(item?.n, null)
    const t1 = await submit(e2e, b.pane, 'QUESTION after resume')
    await expect(
      'resumed: reply ending in "?" → waiting/question',
      cleared,
      { state: 'waiting', kind: 'question', queued: true },
      t1,
      HOOK_BOUND_MS,
    )
  })

  await step('a killed pane', a.pane, async () => {
    if (!resumed) throw new Error('no resumed pane')
    // SessionEnd (reason other) still fires; tmux no longer has the pane.
    const t0 = await e2e.tmux('kill-pane', '-t', resumed).then(() => Date.now())
    await expect('kill-pane → ended (SessionEnd reason other)', cleared, { state: 'ended', queued: false }, t0, HOOK_BOUND_MS)
  })

  t.equal((await lsJson(e2e)).queue.filter((i) => i.n !== null).length, 0, 'nothing waits at the end')
  t.comment(`mock requests: ${e2e.api.requests.map((r) => r.kind).join(' ')}`)
}

t.test('one scripted Claude Code session, step by step, on every pinned build', async (t) => {
  await Promise.all(BUILDS.map((build) => script(t, build)))
})
