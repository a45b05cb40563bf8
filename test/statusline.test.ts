// `trailboss statusline` (the command for Claude Code's statusLine setting) and the setting
// that `install --statusline` writes and `uninstall` takes out again.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { mergeStatusLine, parseOurStatusline, statuslineCommand, unmergeStatusLine } from '../lib/agents/claude-code/status-line-setting.js'
import { shellQuote } from '../lib/settings/shell-line.js'
import { deriveSummary, formatOthers } from '../lib/render/status-segment.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { joinStatus, parseSessionId, WRAPPED_TIMEOUT_MS } from '../lib/commands/statusline.js'
import { CLI, emitWait, makeHome, runCli, runInProcess } from './helpers/surfaces.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/claude-code-2.1.332/default/statusline-stdin.jsonl', import.meta.url))
/** What Claude Code 2.1.332 wrote to a status-line command's stdin (captured, test/fixtures/claude-code-2.1.332/README.md). */
const capturedInput = (): { stdin: Record<string, unknown>; env: Record<string, string> } =>
  JSON.parse(fs.readFileSync(FIXTURE, 'utf8').split('\n')[0]!) as never

const NOW = Date.parse('2026-01-01T12:00:00Z')
const wait = (id: string, ageMs: number): QueueItem =>
  ({
    n: 1,
    sessionId: id,
    state: 'waiting',
    kind: 'question',
    since: NOW - ageMs,
    headless: false,
    needsYou: true,
    seen: false,
  }) as QueueItem

t.test('formatOthers: the other sessions that wait, in words the mod uses too', async (t) => {
  t.equal(formatOthers(deriveSummary([], NOW)), '')
  t.equal(formatOthers(deriveSummary([wait('me', 9_000)], NOW, { excludeSessionId: 'me' })), '', 'never counting its own session')
  t.equal(formatOthers(deriveSummary([wait('a', 61_000), wait('me', 9e6)], NOW, { excludeSessionId: 'me' })), '1 other waits · oldest 1m')
  t.equal(formatOthers(deriveSummary([wait('a', 240_000), wait('b', 5_000)], NOW)), '2 others wait · oldest 4m')
})

t.test('the session id comes from the status-line JSON, else from the environment', async (t) => {
  const { stdin } = capturedInput()
  t.equal(parseSessionId(JSON.stringify(stdin), {}), stdin.session_id)
  t.equal(parseSessionId('', { CLAUDE_CODE_SESSION_ID: 'from-env' }), 'from-env')
  t.equal(parseSessionId('{"session_id": 5}', {}), undefined)
  t.equal(joinStatus('theirs\n', '2 others wait'), 'theirs · 2 others wait')
  t.equal(joinStatus('line 1\nline 2\n', 'x'), 'line 1\nline 2 · x')
  t.equal(joinStatus('', 'x'), 'x')
  t.equal(joinStatus('theirs\n', ''), 'theirs')
})

t.test("the statusLine setting: ours added, the person's own wrapped, and given back exactly", async (t) => {
  const cli = ['/usr/bin/node', '/opt/my lib/trailboss/dist/bin/trailboss.cjs']
  const added = mergeStatusLine({ theme: 'dark' }, cli)
  t.same(added, {
    theme: 'dark',
    statusLine: { type: 'command', command: "/usr/bin/node '/opt/my lib/trailboss/dist/bin/trailboss.cjs' statusline" },
  })
  t.same(unmergeStatusLine(added), { theme: 'dark' }, 'nothing was there: nothing is left')
  for (const theirs of ['~/.claude/statusline.sh', `echo "it's $(date +%H:%M)"`, 'printf \'%s\' "$PWD"', "a'b''c"]) {
    const before = { statusLine: { type: 'command', command: theirs, padding: 0, refreshInterval: 5 } }
    const wrapped = mergeStatusLine(before, cli)
    const s = wrapped.statusLine as { command: string; padding: number; refreshInterval: number }
    t.match(s.command, /^\/usr\/bin\/node '\/opt\/my lib\/trailboss\/dist\/bin\/trailboss\.cjs' statusline --wrap /)
    t.equal(s.padding, 0, 'its other fields stay')
    t.equal(s.refreshInterval, 5)
    t.same(parseOurStatusline(s.command), { wrapped: theirs }, `the wrapped command reads back: ${theirs}`)
    t.same(mergeStatusLine(wrapped, cli), wrapped, 'a second install changes nothing')
    t.same(
      mergeStatusLine(wrapped, ['/new/node', '/new/trailboss.cjs']).statusLine,
      { ...s, command: statuslineCommand(['/new/node', '/new/trailboss.cjs'], theirs) },
      'a new Node path: rewritten around the same command',
    )
    t.same(unmergeStatusLine(wrapped), before, 'uninstall gives back exactly what was there')
  }
  t.same(
    mergeStatusLine({}, ['trailboss']).statusLine,
    { type: 'command', command: 'trailboss statusline' },
    'project scope runs trailboss from PATH',
  )
  t.equal(parseOurStatusline('my-own-status statusline'), undefined, 'a foreign command with the same word is not ours')
  t.equal(parseOurStatusline('ccstatusline'), undefined)
  t.same(
    unmergeStatusLine({ statusLine: { type: 'command', command: 'mine.sh' } }),
    { statusLine: { type: 'command', command: 'mine.sh' } },
    'a foreign status line stays',
  )
  t.throws(() => mergeStatusLine({ statusLine: { type: 'static', text: 'x' } }, cli), /not a command/)
  t.equal(shellQuote('plain/path-1.2'), 'plain/path-1.2')
  t.equal(shellQuote("it's"), `'it'\\''s'`)
})

t.test('trailboss statusline with the captured input: the other sessions, never its own', async (t) => {
  const home = makeHome(t.testdir())
  const { stdin, env } = capturedInput()
  const own = String(stdin.session_id)
  const input = JSON.stringify(stdin)
  const quiet = await runCli(['statusline'], home.env({ CLAUDE_CODE_SESSION_ID: env.CLAUDE_CODE_SESSION_ID }), input)
  t.equal(quiet.code, 0)
  t.equal(quiet.stdout, '', 'nobody waits: nothing at all')
  await emitWait(home, { session: own, message: 'Done here.' })
  t.equal((await runCli(['statusline'], home.env(), input)).stdout, '', 'its own session waiting is not counted')
  await emitWait(home, { session: 'aaaa-other', event: 'PermissionRequest' })
  const one = await runCli(['statusline'], home.env(), input)
  t.match(one.stdout, /^1 other waits · oldest \d+s\n$/)
  await emitWait(home, { session: 'bbbb-other', message: 'Shall I?' })
  t.match((await runCli(['statusline'], home.env(), input)).stdout, /^2 others wait · oldest \d+s\n$/)
  t.match((await runCli(['statusline', '--format', '{count}:{kinds}'], home.env(), input)).stdout, /^2:1 permission, 1 question\n$/)
  // Wrapping the person's own command: it gets the same input, and its output comes first.
  const mine = join(home.root, 'mine.sh')
  fs.writeFileSync(mine, '#!/bin/sh\nsed -n \'s/.*"session_id":"\\([^"]*\\)".*/mine:\\1/p\'\n', { mode: 0o755 })
  const wrapped = await runCli(['statusline', '--wrap', mine], home.env(), input)
  t.match(wrapped.stdout, new RegExp(`^mine:${own} · 2 others wait · oldest \\d+s\\n$`))
  const broken = await runCli(['statusline', '--wrap', 'exit 3'], home.env(), input)
  t.match(broken.stdout, /^2 others wait/, 'a failing command of theirs leaves ours')
  // Run by hand, without Claude Code's input, the environment names the session: of the three
  // waits, the two that are not aaaa-other's, of which one is a finished turn (counted with --all).
  t.match((await runInProcess(['statusline'], home.env({ CLAUDE_CODE_SESSION_ID: 'aaaa-other' }))).stdout, /^1 other waits/)
  t.match((await runInProcess(['statusline', '--all'], home.env({ CLAUDE_CODE_SESSION_ID: 'aaaa-other' }))).stdout, /^2 others wait/)
  t.match((await runInProcess(['statusline'], home.env())).stdout, /^2 others wait/, 'no session named: every wait that needs you counts')
  t.match((await runInProcess(['statusline', '-a'], home.env())).stdout, /^3 others wait/, 'and with --all the finished turn too')
})

t.test("install --statusline wraps the person's status line; uninstall gives it back byte for byte", async (t) => {
  const home = makeHome(t.testdir())
  const file = join(home.claude, 'settings.json')
  const original = `{\n  "statusLine": {\n    "type": "command",\n    "command": "echo \\"it's mine\\"",\n    "padding": 0\n  }\n}\n`
  fs.writeFileSync(file, original)
  const inst = await runInProcess(['install', '--statusline'], home.env())
  t.equal(inst.code, 0, inst.stderr)
  t.match(inst.stdout, /the status line runs: .*trailboss\.cjs statusline/)
  const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { statusLine: { command: string; padding: number }; hooks: object }
  t.ok(settings.hooks, 'the hooks are installed too')
  t.equal(settings.statusLine.padding, 0)
  t.same(parseOurStatusline(settings.statusLine.command), { wrapped: `echo "it's mine"` })
  // The command as written runs, through sh, as Claude Code runs it.
  const { stdin } = capturedInput()
  const { spawnSync } = await import('node:child_process')
  const ran = spawnSync('sh', ['-c', settings.statusLine.command], {
    input: JSON.stringify(stdin),
    env: home.env() as NodeJS.ProcessEnv,
    encoding: 'utf8',
  })
  t.equal(ran.stdout, "it's mine\n")
  const again = await runInProcess(['install', '--statusline'], home.env())
  t.match(again.stdout, /already installed/, 'a second install changes nothing')
  const un = await runInProcess(['uninstall'], home.env())
  t.equal(un.code, 0, un.stderr)
  t.equal(fs.readFileSync(file, 'utf8'), original, 'back byte for byte')
  // Without a status line of the person's own, ours is added and taken out again.
  fs.writeFileSync(file, '{}\n')
  await runInProcess(['install', '--statusline'], home.env())
  t.match(
    (JSON.parse(fs.readFileSync(file, 'utf8')) as { statusLine: { command: string } }).statusLine.command,
    /trailboss\.cjs statusline$/,
  )
  await runInProcess(['uninstall'], home.env())
  t.equal(fs.readFileSync(file, 'utf8'), '{}\n')
})

/** The built CLI run as Claude Code runs a status line: how long until it has printed and exited. */
const timedStatusline = (args: string[], env: Record<string, string | undefined>, input: string): Promise<{ stdout: string; ms: number }> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [CLI, 'statusline', ...args], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'ignore'],
    })
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.on('close', () => resolve({ stdout, ms: performance.now() - started }))
    child.stdin.end(input)
  })

/** Whether a process still runs (a zombie waiting for its reaper does not). */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

const SLACK_MS = 1000

t.test('statusline --wrap: a command that hangs, holds the pipe or ignores SIGTERM is ended at 5 s, and ours is printed', async (t) => {
  t.setTimeout(120_000)
  const home = makeHome(t.testdir())
  const input = JSON.stringify(capturedInput().stdin)
  await emitWait(home, { session: 'aaaa-other', event: 'PermissionRequest' })
  // Node's start and the queue's read, as this machine runs them now: the bound is 6 s past them
  // (the commands would run 20 s; the second of slack is for a machine busy with other test files).
  const quick = await timedStatusline(['--wrap', 'echo theirs'], home.env(), input)
  t.match(quick.stdout, /^theirs · 1 other waits · oldest \d+s\n$/)
  const overhead = quick.ms
  const cases: [string, string, number][] = [
    // Each writes its pids: sh's own and a child's, both of which must be gone after.
    ['hangs', 'echo $$ > "$P"; echo theirs; sleep 20 & echo $! >> "$P"; wait', WRAPPED_TIMEOUT_MS],
    ['exits, leaving a background child that holds its stdout', 'echo $$ > "$P"; sleep 20 & echo $! >> "$P"; echo theirs', 1000],
    [
      'ignores SIGTERM, and so does its child',
      'trap "" TERM; echo $$ > "$P"; echo theirs; sleep 20 & echo $! >> "$P"; wait',
      WRAPPED_TIMEOUT_MS,
    ],
  ]
  for (const [what, command, bound] of cases) {
    const pids = join(home.root, `pids-${cases.findIndex((c) => c[0] === what)}`)
    const r = await timedStatusline(['--wrap', command], home.env({ P: pids }), input)
    t.match(r.stdout, /^theirs · 1 other waits · oldest \d+s\n$/, `${what}: theirs so far, then ours`)
    t.ok(
      r.ms < bound + SLACK_MS + overhead,
      `${what}: printed and exited after ${Math.round(r.ms)} ms (bound ${bound + SLACK_MS} ms past ${Math.round(overhead)} ms)`,
    )
    const left = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number)
    t.equal(left.length, 2, `${what}: both pids written`)
    const deadline = Date.now() + 2000
    while (left.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    t.same(left.filter(running), [], `${what}: its process group is ended`)
  }
})
