// The plugin's mod at rest: ten real Claude Code 2.1.332 sessions open in a private tmux, nothing
// happening, a few other sessions' waits on disk. The CPU of all ten (their threads, the mod's
// worker, and every `trailboss` they run) over a window, with the plugin and without it, measured
// in the same window (both sets open at once, so a busy machine weighs on both alike); the
// difference is what the mods cost. Target: < 1% of one core for all ten.
// Linux only (it reads /proc). `--quick` shortens the windows to 20 s.
import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { fmt, machine, runIfMain } from './lib.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'dist/bin/trailboss.cjs')
const EMIT = join(ROOT, 'dist/hooks/emit.cjs')
const CLAUDE = join(ROOT, 'test/e2e/clis/claude-code-2.1.332/node_modules/.bin/claude')
const SESSIONS = 10
const OTHER_WAITS = 3
const ENDED = 200
const CPU_TARGET_PCT = 1
const SETTLE_MS = 15_000
const API_KEY = 'sk-ant-api03-trailboss-bench-0123456789abcdefghij'

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** utime + stime of a process and of its children it has waited for (the `trailboss` runs), in ms. */
const cpuMs = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * (1000 / 100)
}

const emit = (env, payload) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EMIT], { env, stdio: ['pipe', 'ignore', 'pipe'] })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`emitter exited ${code}`))))
    child.stdin.end(JSON.stringify(payload))
  })

/** Idle sessions send a request or two at start; answer every one with an empty success. */
const startApi = () =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      })
    })
    server.listen(0, '127.0.0.1', () => resolve(server))
  })

export const run = async (flags) => {
  if (process.platform !== 'linux') throw new Error('the mod bench reads /proc: Linux only')
  for (const f of [CLI, EMIT, CLAUDE]) if (!fs.existsSync(f)) throw new Error(`${f} is missing: \`npm run build\` and \`node scripts/install-e2e-clis.mjs\` first`)
  const m = await machine()
  const windowMs = flags.rounds <= 10 ? 20_000 : 60_000
  const dir = mkdtempSync(join(tmpdir(), 'tb-bm-'))
  const home = join(dir, 'home')
  const project = join(dir, 'proj')
  const tbHome = join(dir, 'tb')
  const bin = join(dir, 'bin')
  const runs = join(dir, 'runs.log')
  const plugin = join(dir, 'plugin')
  for (const d of [home, join(home, '.claude'), project, bin]) fs.mkdirSync(d, { recursive: true })
  fs.cpSync(join(ROOT, 'plugin'), plugin, { recursive: true, filter: (src) => !src.includes(join('.claude-plugin', 'types')) })
  // `trailboss` as npm installs it, counting its runs: at rest there should be none.
  fs.writeFileSync(join(bin, 'trailboss'), `#!/bin/sh\necho "$1" >> '${runs}'\nexec '${process.execPath}' '${CLI}' "$@"\n`, { mode: 0o755 })
  fs.writeFileSync(join(bin, 'trailboss-emit'), `#!/bin/sh\nexec '${process.execPath}' '${EMIT}' "$@"\n`, { mode: 0o755 })
  const api = await startApi()
  fs.writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: '2.1.332',
      theme: 'dark',
      customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
    }),
  )
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    TRAILBOSS_HOME: tbHome,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.address().port}`,
    ANTHROPIC_API_KEY: API_KEY,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
  }
  const socket = join(dir, 's')
  const tmux = (...args) => execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { env, encoding: 'utf8' })
  // Other sessions' waits (no pane: they stay queued) and a history of ended sessions to read past.
  for (let i = 0; i < OTHER_WAITS; i++) {
    await emit(env, { session_id: `other-${i}`, transcript_path: '/nonexistent/x.jsonl', cwd: `/tmp/other-${i}`, hook_event_name: 'Stop', last_assistant_message: 'Done.', prompt_id: 'p1' })
  }
  for (let i = 0; i < ENDED; i++) await emit(env, { session_id: `ended-${i}`, transcript_path: '/nonexistent/x.jsonl', cwd: '/tmp/old', hook_event_name: 'SessionEnd', reason: 'exit' })

  /** Opens a set of sessions in a tmux session of its own; returns their pids once all show their prompt. */
  const open = async (name, args) => {
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '45', '-c', project, 'sleep', '100000')
    const pids = []
    for (let i = 0; i < SESSIONS; i++) {
      const pane = tmux('new-window', '-d', '-t', `${name}:`, '-c', project, '-P', '-F', '#{pane_id}', CLAUDE, '--permission-mode', 'default', ...args).trim()
      pids.push(Number(tmux('display-message', '-p', '-t', pane, '#{pane_pid}').trim()))
      for (const end = Date.now() + 60_000; !/manual mode on/.test(tmux('capture-pane', '-p', '-t', pane)); await sleep(200)) {
        if (Date.now() > end) throw new Error(`session ${i} of ${name} did not reach its prompt`)
      }
    }
    return pids
  }
  const lsRuns = () => (fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8').split('\n').length - 1 : 0)

  try {
    tmux('new-session', '-d', '-s', 'keep', 'sleep', '100000')
    const sets = { base: await open('base', []), mod: await open('mod', ['--plugin-dir', plugin]) }
    await sleep(SETTLE_MS)
    const runsBefore = lsRuns()
    const before = Object.fromEntries(Object.entries(sets).map(([k, pids]) => [k, pids.map(cpuMs)]))
    await sleep(windowMs)
    const pct = (k) => (sets[k].reduce((s, pid, i) => s + cpuMs(pid) - before[k][i], 0) / windowMs) * 100
    const base = { pct: pct('base'), runsDuring: 0 }
    const mod = { pct: pct('mod'), runsDuring: lsRuns() - runsBefore, statusShown: /trailboss: \d+ others? wait/.test(tmux('capture-pane', '-p', '-t', 'mod:1')) }
    const cost = mod.pct - base.pct
    const met = (ok) => (ok ? 'met' : 'NOT met')
    return [
      {
        title: `mod: ${SESSIONS} idle Claude Code 2.1.332 sessions, with and without the plugin`,
        header: ['sessions', 'CPU % of one core (all ten together)', '`trailboss` runs in the window'],
        rows: [
          [`${SESSIONS} without the plugin`, fmt(base.pct, 2), String(base.runsDuring)],
          [`${SESSIONS} with the plugin (mod + command hooks)`, fmt(mod.pct, 2), String(mod.runsDuring)],
        ],
        notes: [
          `${OTHER_WAITS} other sessions wait, ${ENDED} ended records; both sets open at once, settled ${SETTLE_MS / 1000} s, then measured together over ${windowMs / 1000} s (utime + stime of the claude processes and of the children they ran, from /proc). The mod's status entry was ${mod.statusShown ? '' : 'NOT '}on screen. Node ${m.node}, ${m.cpus} × ${m.cpu}, load ${m.load} at start.`,
          `The mods' cost: ${fmt(cost, 2)}% of one core for ${SESSIONS} sessions (target < ${CPU_TARGET_PCT}%: ${met(cost < CPU_TARGET_PCT)}).`,
        ],
        figures: { basePct: base.pct, modPct: mod.pct, costPct: cost, windowMs, lsRunsAtRest: mod.runsDuring },
      },
    ]
  } finally {
    try {
      tmux('kill-server')
    } catch {
      // already gone
    }
    api.close()
    // Claude Code may still write into its HOME for a moment after its pane is gone.
    for (let i = 0; i < 20; i++) {
      try {
        rmSync(dir, { recursive: true, force: true })
        break
      } catch {
        await sleep(250)
      }
    }
  }
}

await runIfMain(import.meta, run)
