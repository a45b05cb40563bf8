// Several real Claude Code sessions at once: a session started before `trailboss install`,
// two sessions waiting in order, `trailboss go` moving a real tmux client to them, and a
// headless `claude -p` run that must be recorded but never queued. On both pinned builds at once,
// each in its own tmux server against its own mock.
import { dirname } from 'node:path'
import t, { type Test } from 'tap'
import {
  attachClient,
  BUILDS,
  checkClaude,
  clientPane,
  HOOK_BOUND_MS,
  IDLE_NOTIF_MS,
  installHooks,
  Latencies,
  lsJson,
  run,
  sleep,
  startClaude,
  startE2e,
  submit,
  taggedAsserts,
  trailboss,
  waitFor,
  waitForItem,
  type ClaudeBuild,
  type Item,
} from './harness.js'

/** A person does not type within a second of installing; Claude Code's settings watcher needs a moment. */
const RELOAD_GRACE_MS = 2000

t.setTimeout(240_000)

const script = async (parent: Test, build: ClaudeBuild): Promise<void> => {
  const t = { ...taggedAsserts(parent, build), teardown: (fn: () => unknown) => parent.teardown(fn) }
  t.comment(`claude: ${await checkClaude(build)}`)
  const e2e = await startE2e({ build, noHooks: true })
  t.teardown(() => e2e.close())
  const lat = new Latencies()
  t.teardown(() => console.error(`# latency ${build.version} (keypress → state in ls --json)\n${lat.format().replace(/^/gm, '# ')}`))
  const step = async (name: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn()
    } catch (err) {
      t.fail(`${name}: ${(err as Error).message}`)
    }
  }

  // A session that was already running when the person installed Trail Boss.
  const early = await startClaude(e2e, 'early')
  const installOut = await installHooks(e2e)
  t.match(installOut, /settings\.json/, 'install says which file it changed')

  // Sessions expected in the queue, oldest first; the early one only if it showed up.
  const waiting: { sessionId: string; pane: string }[] = []
  /** How many of them need the person (the others are finished turns). */
  let needYou = 0
  await step('a session started before install', async () => {
    // Before install no hook has run: the session can only be one found on read, without hooks.
    const before = (await lsJson(e2e)).queue
    t.same(
      before.filter((i) => !(i.inferred && /no hooks: trailboss install/.test(i.reason ?? ''))).map((i) => i.sessionId),
      [],
      'before install nothing is recorded (a session may only be found without hooks)',
    )
    // Claude Code 2.1.197 re-reads settings.json while it runs (a file watcher, so not at once,
    // and slower on a busy machine): the session shows up from its first hook event after
    // that, with no SessionStart behind it. Events before the reload are lost, so the person
    // gets a second prompt in, as anyone would who sees nothing happen.
    await sleep(RELOAD_GRACE_MS)
    const t0 = Date.now()
    const seen = (i: Item): boolean => i.state === 'waiting' && i.n !== null && (i.kind === 'question' || i.kind === 'done')
    let item: Item | undefined
    for (const prompt of ['QUESTION from the early session', 'QUESTION again from the early session']) {
      await submit(e2e, early.pane, prompt)
      item = await waitForItem(e2e, early.sessionId, seen, t0, HOOK_BOUND_MS + IDLE_NOTIF_MS).then(
        (r) => r.item,
        () => undefined,
      )
      if (item) break
    }
    if (!item) throw new Error(`the early session never showed up within two turns after install (${Date.now() - t0} ms)`)
    lat.add('early session (started before install): first prompt → waiting', Date.now() - t0, `(kind ${item.kind})`)
    t.equal(item.tmux?.pane, early.pane, 'with its pane')
    waiting.push({ sessionId: early.sessionId, pane: early.pane })
  })

  const b = await startClaude(e2e, 'b')
  const c = await startClaude(e2e, 'c')

  await step('two sessions waiting, oldest first', async () => {
    const t1 = await submit(e2e, b.pane, 'PERM in b')
    const first = await waitForItem(e2e, b.sessionId, { state: 'permission', queued: true }, t1, HOOK_BOUND_MS)
    lat.add('b: Bash tool call → permission', first)
    const t2 = await submit(e2e, c.pane, 'hello from c')
    const second = await waitForItem(e2e, c.sessionId, { state: 'waiting', kind: 'done', queued: true }, t2, HOOK_BOUND_MS)
    lat.add('c: finished turn → waiting/done', second)
    waiting.push({ sessionId: b.sessionId, pane: b.pane }, { sessionId: c.sessionId, pane: c.pane })
    const queue = (await lsJson(e2e)).queue.filter((i) => i.n !== null)
    t.equal(queue.find((i) => i.sessionId === b.sessionId)?.needsYou, true, 'a permission needs you')
    t.equal(queue.find((i) => i.sessionId === c.sessionId)?.needsYou, false, 'a finished turn does not')
    // The waits that need you first, then the finished turns, each oldest first.
    const needs = new Set(queue.filter((i) => i.needsYou).map((i) => i.sessionId))
    waiting.splice(0, waiting.length, ...waiting.filter((w) => needs.has(w.sessionId)), ...waiting.filter((w) => !needs.has(w.sessionId)))
    needYou = needs.size
    t.same(
      queue.map((i) => [i.sessionId, i.tmux?.pane]),
      waiting.map((w) => [w.sessionId, w.pane]),
      'the waits that need you first, oldest first',
    )
    // Numbers are kept, not positions: each wait has its own, given when it was first seen.
    t.equal(new Set(queue.map((i) => i.n)).size, queue.length, 'every wait has a number of its own')
    const plain = await trailboss(e2e, ['ls', '--plain'])
    t.equal(plain.code, 0)
    t.match(plain.stdout.split('\n')[0], new RegExp(`^${queue[0]!.key}\\t`), '--plain starts with the key')
  })

  await step('doctor, status and the table agree with the real setup', async () => {
    // As the person has it: the agent on PATH (doctor fails when no agent is installed).
    const doctor = await trailboss(e2e, ['doctor'], { PATH: `${dirname(build.bin)}:${e2e.cliEnv.PATH ?? ''}` })
    t.equal(
      doctor.code,
      0,
      `doctor exits 0 (${doctor.stdout
        .split('\n')
        .filter((l) => /fail|✗/i.test(l))
        .join('; ')})`,
    )
    t.match(doctor.stdout, /user scope: hooks for (\d+)\/\1 events/, 'doctor finds every hook that install wrote')
    const status = await trailboss(e2e, ['status'])
    t.equal(status.code, 0)
    t.match(status.stdout, new RegExp(`^${needYou} waiting\\b`), 'status counts the waits that need you')
    const all = await trailboss(e2e, ['status', '--all'])
    t.match(all.stdout, new RegExp(`^${waiting.length} waiting\\b`), 'status --all counts the finished turns too')
    const table = await trailboss(e2e, ['ls'])
    t.equal(table.code, 0)
    t.match(table.stdout, /permission/, 'the table shows the permission wait')
  })

  await step('go: the client moves to the oldest wait, then to the newest', async () => {
    const client = await attachClient(e2e, 'home')
    t.teardown(() => client.child.kill())
    t.equal(await clientPane(e2e, client.name), '%0', 'the client starts at the shell pane')
    // As typed in the shell pane %0: TMUX and TMUX_PANE as tmux sets them there.
    const pid = (await e2e.tmux('display-message', '-p', '#{pid}')).stdout.trim()
    const inTmux = { TMUX: `${e2e.socket},${pid},0`, TMUX_PANE: '%0' }
    const numberOf = new Map((await lsJson(e2e)).queue.map((i) => [i.sessionId, i.n]))
    const t0 = Date.now()
    const g1 = await trailboss(e2e, ['go'], inTmux)
    lat.add('trailboss go (oldest) → client on the pane', Date.now() - t0)
    t.equal(g1.code, 0, `go exits 0 (${g1.stderr.trim()})`)
    t.match(g1.stderr, new RegExp(`going to ${numberOf.get(waiting[0]?.sessionId ?? '')}\\b`), 'go says which wait it chose, by its number')
    t.equal(await clientPane(e2e, client.name), waiting[0]?.pane, 'the client shows the oldest wait')
    const last = String(numberOf.get(c.sessionId))
    const g2 = await trailboss(e2e, ['go', last], { ...inTmux, TMUX_PANE: waiting[0]?.pane ?? '%0' })
    t.equal(g2.code, 0, `go ${last} exits 0 (${g2.stderr.trim()})`)
    t.equal(await clientPane(e2e, client.name), c.pane, 'the client shows the newest wait')
  })

  await step('headless claude -p: recorded, never queued', async () => {
    const t0 = Date.now()
    // </dev/null: claude -p would otherwise read stdin (HOOKS.md §9).
    const r = await run(build.bin, ['-p', 'hello headless'], { ...e2e.env, TMUX: undefined, TMUX_PANE: undefined }, 60_000, '', e2e.project)
    t.equal(r.code, 0, `claude -p exits 0 (${r.stderr.trim().slice(0, 200)})`)
    t.match(r.stdout, /All done here/)
    const { value: item, ms } = await waitFor(
      'the headless session in ls',
      async () => (await lsJson(e2e)).queue.find((i) => i.headless === true),
      HOOK_BOUND_MS,
      t0,
    )
    lat.add('claude -p → recorded headless', ms, 'from spawn')
    t.equal(item.n, null, 'a headless run is never queued')
    t.equal(item.tmux, null, 'and claims no pane')
    const queued = (await lsJson(e2e)).queue.filter((i) => i.n !== null).map((i) => i.sessionId)
    t.same(
      queued,
      waiting.map((w) => w.sessionId),
      'the queue is unchanged',
    )
  })
}

t.test('sessions side by side: before install, in order, go, headless, on every pinned build', async (t) => {
  await Promise.all(BUILDS.map((build) => script(t, build)))
})
