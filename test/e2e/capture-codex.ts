// Captures what the pinned Codex CLI gives a hook, state by state, into test/fixtures/codex/:
// every hook payload (with the environment the hook saw), the rollout transcripts, the
// `codex app-server` hooks/list answer and a screen of each state. Run it when the pinned
// Codex changes (see test/fixtures/codex/README.md):
//   npx esbuild test/e2e/capture-codex.ts --bundle --platform=node --format=esm \
//     --outfile=test/e2e/capture-codex.bundle.mjs && node test/e2e/capture-codex.bundle.mjs
// The hooks are trusted the way `trailboss install --agent codex` trusts its own (the hash
// computed by lib/agents/codex/hook-trust.ts), and Codex runs WITHOUT
// --dangerously-bypass-hook-trust: a capture with any event in it proves the hash right.
import { spawn } from 'node:child_process'
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CODEX_HOOK_EVENTS, hookStateKey, hookTrustHash, type CodexHookEvent } from '../../lib/agents/codex/hook-trust.js'
import { CODEX_BIN, checkCodex, startCodexLab, type CodexLab } from './codex-env.js'
import { capture, press, REPO, sleep, submit, waitFor, waitForScreen } from './harness.js'

const OUT = join(REPO, 'test', 'fixtures', 'codex')
const EVENTS = Object.keys(CODEX_HOOK_EVENTS) as CodexHookEvent[]

/** The logger every event runs: one JSON line per event, and the environment beside it. */
const LOGGER = `#!/bin/sh
payload=$(cat)
printf '{"event":"%s","ts":%s,"payload":%s}\\n' "$2" "$(date +%s%3N)" "\${payload:-null}" >> "$1"
{ echo "== $2"; env | grep -E '^(TMUX|TMUX_PANE|TERM|TERM_PROGRAM|CODEX_[A-Z_]*|HOME|PWD|SHLVL)=' | sort; } >> "$1.env"
exit 0
`

const writeHooks = (lab: CodexLab, logger: string, log: string): void => {
  const hooksFile = join(lab.codexHome, 'hooks.json')
  const hooks: Record<string, unknown> = {}
  let trust = '\n'
  for (const e of EVENTS) {
    const handler = { type: 'command', command: `${logger} ${log} ${e}`, timeout: 5 }
    hooks[e] = [{ hooks: [handler] }]
    trust += `[hooks.state.${JSON.stringify(hookStateKey(hooksFile, e, 0, 0))}]\ntrusted_hash = ${JSON.stringify(hookTrustHash(e, handler))}\n\n`
  }
  writeFileSync(hooksFile, `${JSON.stringify({ hooks }, null, 2)}\n`)
  appendFileSync(join(lab.codexHome, 'config.toml'), trust)
}

/** `codex app-server`: initialize, then hooks/list for the project; the answer's lines. */
const hooksList = async (lab: CodexLab): Promise<unknown> => {
  const child = spawn(CODEX_BIN, ['app-server'], { env: lab.env, cwd: lab.project, stdio: ['pipe', 'pipe', 'ignore'] })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
  const send = (o: unknown): boolean => child.stdin.write(`${JSON.stringify(o)}\n`)
  send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'trailboss-capture', version: '0.0.0' } } })
  send({ method: 'initialized' })
  send({ id: 2, method: 'hooks/list', params: { cwds: [lab.project] } })
  try {
    return (
      await waitFor(
        'hooks/list answer',
        () => {
          for (const line of out.split('\n')) {
            if (!line.startsWith('{')) continue
            const msg = JSON.parse(line) as { id?: number; result?: unknown }
            if (msg.id === 2) return msg.result
          }
          return undefined
        },
        30_000,
      )
    ).value
  } finally {
    child.kill()
  }
}

const main = async (): Promise<void> => {
  console.log(await checkCodex())
  const lab = await startCodexLab()
  const logger = join(lab.root, 'hook.sh')
  const log = join(lab.root, 'hooks.jsonl')
  writeFileSync(logger, LOGGER, { mode: 0o755 })
  writeHooks(lab, logger, log)
  const rewrite = (text: string): string => text.split(lab.root).join('/ROOT').split(REPO).join('/REPO')
  rmSync(OUT, { recursive: true, force: true })
  mkdirSync(join(OUT, 'screens'), { recursive: true })
  mkdirSync(join(OUT, 'rollouts'), { recursive: true })
  const list = await hooksList(lab)
  // Not rewritten: each currentHash covers its command with the real paths (test/codex-hook-trust.test.ts).
  writeFileSync(join(OUT, 'hooks-list.json'), `${JSON.stringify(list, null, 2)}\n`)
  writeFileSync(join(OUT, 'hooks.json'), rewrite(readFileSync(join(lab.codexHome, 'hooks.json'), 'utf8')))
  writeFileSync(
    join(OUT, 'config.toml'),
    rewrite(readFileSync(join(lab.codexHome, 'config.toml'), 'utf8')).replace(/127\.0\.0\.1:\d+/, '127.0.0.1:PORT'),
  )

  let shot = 0
  const screen = async (pane: string, name: string): Promise<void> => {
    const text = (await capture(lab, pane))
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n+$/, '\n')
    writeFileSync(join(OUT, 'screens', `${String(++shot).padStart(2, '0')}-${name}.txt`), rewrite(text))
  }
  const lines = (): number => (readFileSync(log, 'utf8').match(/\n/g) ?? []).length
  const scenario = (name: string): void => appendFileSync(log, `${JSON.stringify({ scenario: name })}\n`)
  /** Waits for an event named `name` logged after line `from`. */
  const eventAfter = async (from: number, name: string): Promise<true> =>
    (
      await waitFor(
        `${name} after line ${from}`,
        () =>
          readFileSync(log, 'utf8')
            .split('\n')
            .slice(from)
            .some((l) => l.includes(`"event":"${name}"`))
            ? true
            : undefined,
        20_000,
      )
    ).value

  /** Shift+Tab cycles Default and Plan; a key sent while a turn winds down may be lost. */
  const toggleMode = async (pane: string, plan: boolean): Promise<void> => {
    await waitFor(
      plan ? 'Plan mode' : 'Default mode',
      async () => {
        if (/Plan mode \(shift\+tab to cycle\)/.test(await capture(lab, pane)) === plan) return true
        await press(lab, pane, 'BTab')
        await sleep(500)
        return undefined
      },
      10_000,
    )
  }

  try {
    await lab.tmux('set-option', '-g', 'remain-on-exit', 'on')
    const r = await lab.tmux(
      'new-window',
      '-d',
      '-t',
      'home:',
      '-n',
      'main',
      '-c',
      lab.project,
      '-P',
      '-F',
      '#{pane_id}',
      CODEX_BIN,
      '--no-daemon',
    )
    const pane = r.stdout.trim()
    writeFileSync(log, '')
    scenario('startup (no hook fires until the first prompt)')
    await waitForScreen(lab, pane, /\? for shortcuts/, 30_000)
    await screen(pane, 'startup')

    scenario('done: a plain answer')
    let from = lines()
    await submit(lab, pane, 'PLAIN hello')
    await eventAfter(from, 'Stop')
    await waitForScreen(lab, pane, /Worked for/, 10_000)
    await screen(pane, 'done')

    scenario('permission, then approve (y)')
    from = lines()
    await submit(lab, pane, 'PERM make the marker')
    await eventAfter(from, 'PermissionRequest')
    await waitForScreen(lab, pane, /Would you like to run the following command\?/, 10_000)
    await screen(pane, 'permission-dialog')
    from = lines()
    await press(lab, pane, 'y')
    await eventAfter(from, 'Stop')
    await waitForScreen(lab, pane, /You approved codex/, 10_000)
    await screen(pane, 'after-approve')

    scenario('permission, then deny (Esc)')
    from = lines()
    await submit(lab, pane, 'PERM again')
    await eventAfter(from, 'PermissionRequest')
    await waitForScreen(lab, pane, /Would you like to run the following command\?/, 10_000)
    from = lines()
    await press(lab, pane, 'Escape')
    await eventAfter(from, 'Interrupt')
    await waitForScreen(lab, pane, /You canceled the request/, 10_000)
    await screen(pane, 'after-deny')

    scenario('working, then Esc while streaming')
    from = lines()
    await submit(lab, pane, 'SLOW please')
    await waitForScreen(lab, pane, /Working \(\d+s • esc to interrupt\)/, 10_000)
    await screen(pane, 'working')
    await press(lab, pane, 'Escape')
    await eventAfter(from, 'Interrupt')
    await waitForScreen(lab, pane, /■ Conversation interrupted/, 10_000)
    await screen(pane, 'after-esc-streaming')

    scenario('API error (response.failed): no hook after UserPromptSubmit')
    from = lines()
    await submit(lab, pane, 'FAIL now')
    await waitForScreen(lab, pane, /■ stream disconnected before completion/, 15_000)
    await screen(pane, 'api-error')

    scenario('API error (HTTP 500)')
    await submit(lab, pane, 'FAIL500 now')
    await waitForScreen(lab, pane, /■ We’re currently experiencing high demand/, 15_000)
    await screen(pane, 'api-error-500')

    scenario('Plan mode (Shift+Tab), question (request_user_input), answer (Enter)')
    await toggleMode(pane, true)
    from = lines()
    await submit(lab, pane, 'ASK me')
    await eventAfter(from, 'PreToolUse')
    await waitForScreen(lab, pane, /Question 1\/1/, 10_000)
    await screen(pane, 'question-dialog')
    from = lines()
    await press(lab, pane, 'Enter')
    await eventAfter(from, 'Stop')

    scenario('question, then Esc in the dialog')
    from = lines()
    await submit(lab, pane, 'ASK again')
    await waitForScreen(lab, pane, /Question 1\/1/, 10_000)
    from = lines()
    await press(lab, pane, 'Escape')
    await eventAfter(from, 'Interrupt')
    await sleep(500)
    await screen(pane, 'after-esc-question')
    await toggleMode(pane, false)

    scenario('/clear: a new session; its SessionStart (source clear) comes with the next prompt')
    await submit(lab, pane, '/clear')
    await sleep(1500)
    from = lines()
    await submit(lab, pane, 'PLAIN after clear')
    await eventAfter(from, 'Stop')
    await screen(pane, 'after-clear')

    scenario('exit (/quit): SessionEnd for every session the process had, the cleared one too')
    from = lines()
    await submit(lab, pane, '/quit')
    await eventAfter(from, 'SessionEnd')
    await waitForScreen(lab, pane, /codex resume/, 10_000)
    await sleep(1000)
    await screen(pane, 'after-quit')
    const resumeId = /codex resume ([0-9a-f-]{36})/.exec(await capture(lab, pane))?.[1]
    if (!resumeId) throw new Error('no resume hint on screen')

    scenario(`resume (codex resume <id>): SessionStart source resume with the next prompt`)
    const r2 = await lab.tmux(
      'new-window',
      '-d',
      '-t',
      'home:',
      '-n',
      'resumed',
      '-c',
      lab.project,
      '-P',
      '-F',
      '#{pane_id}',
      CODEX_BIN,
      '--no-daemon',
      'resume',
      resumeId,
    )
    const pane2 = r2.stdout.trim()
    await waitForScreen(lab, pane2, /\? for shortcuts/, 30_000)
    from = lines()
    await submit(lab, pane2, 'PLAIN resumed')
    await eventAfter(from, 'Stop')
    await screen(pane2, 'resumed')

    scenario('killed pane during a permission dialog: no hook fires')
    from = lines()
    await submit(lab, pane2, 'PERM then die')
    await eventAfter(from, 'PermissionRequest')
    await lab.tmux('kill-pane', '-t', pane2)
    await sleep(3000)
    scenario('end of capture')

    // Every event the hooks saw, paths rewritten; the environment of each event name once.
    writeFileSync(join(OUT, 'hooks.jsonl'), rewrite(readFileSync(log, 'utf8')))
    const envs = readFileSync(`${log}.env`, 'utf8').split(/^== /m).filter(Boolean)
    const seen = new Map<string, string>()
    for (const block of envs) {
      const name = block.split('\n')[0]!.trim()
      if (!seen.has(name)) seen.set(name, `== ${block}`)
    }
    writeFileSync(join(OUT, 'hook-env.txt'), rewrite([...seen.values()].join('')))
    const sessions = join(lab.codexHome, 'sessions')
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]))
    for (const file of walk(sessions)) {
      copyFileSync(file, join(OUT, 'rollouts', file.split('/').pop()!))
      writeFileSync(join(OUT, 'rollouts', file.split('/').pop()!), rewrite(readFileSync(file, 'utf8')))
    }
    writeFileSync(
      join(OUT, 'mock-requests.json'),
      `${JSON.stringify(
        lab.api.requests.map((q) => ({ ...q, at: q.at - lab.api.requests[0]!.at })),
        null,
        1,
      )}\n`,
    )
    console.log(`captured ${lines()} lines, ${shot} screens into ${OUT}`)
  } finally {
    await lab.close()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
