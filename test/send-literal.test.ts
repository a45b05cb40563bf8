// `trailboss send` types exactly the person's text (tmux's own syntax never eats a character),
// and only into the agent process that made the wait. Panes run an agent stand-in that emits
// its own events (so the emitter sees it as its parent) and echoes what is typed.
// Run `npm run build` first.
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { copyBuilt } from './helpers/navigate-records.js'
import { cleanEnv, startServer, waitFor } from './helpers/navigate-tmux.js'

t.setTimeout(90_000)
const { cli: CLI, emitter } = await copyBuilt(t)
const STAND_IN = fileURLToPath(new URL('./helpers/agent-stand-in.cjs', import.meta.url))
const IDLE_SCREEN = fileURLToPath(new URL('./fixtures/screens/02-after-stop.txt', import.meta.url))
const SESSION = 'a1111111-0000-4000-8000-000000000001'

t.test('send types the text exactly, into the same agent only', async (t) => {
  const dir = t.testdir({ proj: {} })
  const home = join(dir, 'home')
  mkdirSync(home, { mode: 0o700 })
  const cwd = join(dir, 'proj')
  let prompt = 0
  /** The agent command for a pane: a stand-in that reports a finished turn (a new wait each time). */
  const agent = (): string[] => {
    prompt++
    const payload = {
      session_id: SESSION,
      cwd,
      hook_event_name: 'Stop',
      prompt_id: `p${prompt}`,
      last_assistant_message: 'Done. Next?',
      transcript_path: join(cwd, 'none.jsonl'),
    }
    return [process.execPath, STAND_IN, emitter, home, IDLE_SCREEN, JSON.stringify(payload)]
  }
  const server = startServer(t, 'work', agent(), [200, 50])
  const pane = server.tmux('display-message', '-p', '-t', 'work', '#{pane_id}').trim()
  const capture = (): string => server.tmux('capture-pane', '-p', '-t', pane)
  const send = (args: string[]): { code: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, [CLI, 'send', ...args], {
      env: cleanEnv({ TRAILBOSS_HOME: home, TRAILBOSS_ALLOW_SEND: '1', CLAUDE_PROJECT_DIR: cwd }),
      encoding: 'utf8',
      timeout: 20_000,
    })
    return { code: r.status, stderr: r.stderr }
  }
  const ls = (): string =>
    spawnSync(process.execPath, [CLI, 'ls', '--plain'], { env: cleanEnv({ TRAILBOSS_HOME: home }), encoding: 'utf8', timeout: 20_000 })
      .stdout
  /** A fresh agent in the pane, with a new wait recorded. */
  const restart = async (): Promise<void> => {
    const before = ls()
    server.tmux('respawn-pane', '-k', '-t', pane, ...agent())
    await waitFor(() => /for shortcuts/.test(capture()) && ls() !== before && ls() !== '', 'a new agent and its wait', 15_000)
  }
  await waitFor(() => /for shortcuts/.test(capture()) && ls() !== '', 'the agent and its wait', 15_000)

  // The typed line is echoed by the terminal, then printed once more by the stand-in.
  const sentExactly = async (text: string, args: string[] = [SESSION.slice(0, 8), text]): Promise<void> => {
    await restart()
    const r = send(args)
    t.equal(r.code, 0, `${JSON.stringify(text)}: ${r.stderr}`)
    await waitFor(
      () =>
        capture()
          .split('\n')
          .filter((l) => l === text).length === 2,
      `${JSON.stringify(text)} echoed and printed whole`,
      8000,
    ).catch((err: Error) => t.fail(`${err.message}; pane shows:\n${capture()}`))
  }
  await t.test('a trailing `;` is text, not a tmux command separator', async () => {
    await sentExactly('yes;')
    await sentExactly(';')
    await sentExactly('find . -exec rm {} \\;')
  })
  await t.test('text that starts with `-`', async () => {
    await sentExactly('-n please', [SESSION.slice(0, 8), '--', '-n please'])
  })

  await t.test('another program in the pane is not the agent that asked', async (t) => {
    await restart()
    // The agent exits; a program that looks just like its idle screen takes the pane.
    server.tmux('respawn-pane', '-k', '-t', pane, 'sh', '-c', `grep -v '^[[:space:]]*$' '${IDLE_SCREEN}'; exec cat`)
    await waitFor(() => /for shortcuts/.test(capture()), 'the look-alike screen')
    const r = send([SESSION.slice(0, 8), 'secret-token-42'])
    t.equal(r.code, 1, r.stderr)
    t.match(r.stderr, /no longer runs the agent/)
    // Keys reach the pane in the order they were sent: once a key typed after send shows, anything send typed would too.
    server.tmux('send-keys', '-t', pane, '-l', 'typed-after-send')
    await waitFor(() => capture().includes('typed-after-send'), 'a key typed after send in the pane')
    t.notMatch(capture(), 'secret-token-42', 'nothing was typed')
  })
})
