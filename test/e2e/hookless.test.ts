// Sessions without our hooks, with the real CLIs (issue #16): Claude Code 2.1.332 started before
// `install`, Claude Code 2.1.332 run with `--settings` that turn every hook off
// (`disableAllHooks`), and Codex with no hooks.json. Each shows in `ls` within one run with its
// state, marked inferred, with the install hint; the first gains hooks (install + its next
// event) and goes on as one row with the same key; a session that exits leaves the list.
import t from 'tap'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  checkClaude,
  type E2e,
  installHooks,
  NEWEST,
  run,
  startClaude,
  startE2e,
  submit,
  TRAILBOSS_BIN,
  waitFor,
  waitForScreen,
} from './harness.js'
import { checkCodex, type CodexLab, startCodex, startCodexLab } from './codex-env.js'
import type { JsonItem as Item } from '../../lib/render/queue-table.js'

t.setTimeout(240_000)

const HINT = /no hooks: trailboss install/

/** `trailboss ls --json --all` in `env` (a person's shell), parsed. */
const ls = async (env: NodeJS.ProcessEnv): Promise<Item[]> => {
  const r = await run(process.execPath, [TRAILBOSS_BIN, 'ls', '--json', '--all'], env, 20_000)
  if (r.code !== 0) throw new Error(`ls exited ${r.code}: ${r.stderr.trim()}`)
  return (JSON.parse(r.stdout) as { queue: Item[] }).queue
}

/** Polls ls until an item of `sessionId` (or of `pane`) passes `want`. */
const waitForItem = async (
  env: NodeJS.ProcessEnv,
  find: (i: Item) => boolean,
  want: (i: Item) => boolean,
  what: string,
  ms = 30_000,
): Promise<Item> => {
  let last: Item | undefined
  try {
    return (
      await waitFor(
        what,
        async () => {
          last = (await ls(env)).find(find)
          return last && want(last) ? last : undefined
        },
        ms,
      )
    ).value
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: err })
  }
}

t.test('Claude Code 2.1.332 before install and with hooks off; Codex without hooks', async (t) => {
  t.comment(await checkClaude(NEWEST))
  t.comment(await checkCodex())
  const [e2e, lab]: [E2e, CodexLab] = await Promise.all([startE2e({ build: NEWEST, mode: 'default', noHooks: true }), startCodexLab()])
  t.teardown(async () => {
    await Promise.all([e2e.close(), lab.close()])
  })

  await Promise.all([
    t.test('Claude Code', async (t) => {
      const before = await startClaude(e2e, 'before-install')
      const offFile = join(e2e.root, 'hooks-off.json')
      writeFileSync(offFile, JSON.stringify({ disableAllHooks: true }))
      const off = await startClaude(e2e, 'hooks-off', ['--settings', offFile])
      const env = e2e.cliEnv // outside tmux, no record: the registry alone finds them
      const bySession = (id: string) => (i: Item) => i.sessionId === id

      const first = await waitForItem(
        env,
        bySession(before.sessionId),
        (i) => i.state === 'idle',
        'the session started before install, idle',
      )
      t.match(
        first,
        { agent: 'claude-code', inferred: true, reason: HINT, tmux: { pane: before.pane } },
        'listed with its pane, inferred, with the hint',
      )
      t.notOk(existsSync(join(e2e.tbHome, 'sessions', `${before.sessionId}.json`)), 'no record of ours: no hook ran')
      await submit(e2e, off.pane, 'PERM please')
      const wait = await waitForItem(env, bySession(off.sessionId), (i) => i.state === 'permission', 'the hooks-off session at its dialog')
      t.match(wait, {
        agent: 'claude-code',
        kind: 'permission',
        inferred: true,
        reason: /claude code: permission prompt; no hooks/,
        tmux: { pane: off.pane },
      })
      t.equal(wait.hint, 'no hooks: trailboss install', 'its row says how to get hooks, as its hint')

      // install, then the next event: the record takes over, one row, the same key.
      await installHooks(e2e)
      await submit(e2e, before.pane, 'hello there')
      const hooked = await waitForItem(
        env,
        bySession(before.sessionId),
        (i) => i.reason === null || !HINT.test(i.reason),
        'the first hook of the session started before install',
        40_000,
      )
      const rows = (await ls(env)).filter(bySession(before.sessionId))
      t.equal(rows.length, 1, 'one row for it')
      t.equal(hooked.key, first.key, 'the same key as before its hooks')
      t.ok(existsSync(join(e2e.tbHome, 'sessions', `${before.sessionId}.json`)), 'its hooks wrote its record')
      const stillOff = (await ls(env)).find(bySession(off.sessionId))
      t.match(stillOff, { inferred: true, reason: HINT }, 'hooks off: still found without them')

      // It exits: its row goes.
      await e2e.tmux('kill-pane', '-t', off.pane)
      await waitFor(
        'the hooks-off session to leave ls',
        async () => ((await ls(env)).some(bySession(off.sessionId)) ? undefined : true),
        20_000,
      )
      t.pass('an exited hook-less session leaves the list')
    }),

    t.test('Codex', async (t) => {
      const pane = await startCodex(lab, 'codex-nohooks')
      // A person inside the tmux server: the caller's server is searched for agents.
      const server = await lab.tmux('display-message', '-p', '#{socket_path},#{pid},0')
      const env = { ...lab.cliEnv, TMUX: server.stdout.trim() }
      const byPane = (i: Item) => i.tmux?.pane === pane
      await submit(lab, pane, 'PLAIN hello')
      await waitForScreen(lab, pane, /All done here/, 30_000, 'the reply')
      const done = await waitForItem(env, byPane, (i) => i.state === 'waiting' && i.kind === 'done', 'codex without hooks, done')
      t.match(done, { agent: 'codex', inferred: true, reason: HINT })
      t.match(done.sessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-/, 'named by its rollout')
      await submit(lab, pane, 'PERM make the marker')
      await waitForScreen(lab, pane, /Would you like to run the following command\?/, 30_000, 'the approval')
      const perm = await waitForItem(env, byPane, (i) => i.state === 'permission', 'codex without hooks at its approval')
      t.match(perm, {
        sessionId: done.sessionId,
        key: done.key,
        kind: 'permission',
        inferred: true,
        reason: /screen: permission; no hooks/,
      })
      await lab.tmux('kill-pane', '-t', pane)
      await waitFor('the codex session to leave ls', async () => ((await ls(env)).some(byPane) ? undefined : true), 20_000)
      t.pass('an exited Codex session leaves the list')
    }),
  ])
})
