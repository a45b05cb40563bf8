// `ls --json` and `status` over 100 / 1,000 / 10,000 records (DESIGN §6 mix: 5% waiting or
// permission, 5% working, 90% ended; one tmux server; real-shaped transcripts), and the same
// queue with 100 MB transcripts (sparse files) against 1 KB ones. Every figure is a ratio to
// `node -e 0` measured in the same run, interleaved, because these machines are noisy.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'dist/bin/trailboss.js')
const EMIT = join(ROOT, 'dist/hooks/emit.cjs')
const TRANSCRIPT = join(ROOT, 'test/fixtures/transcripts/interactive-text-permission-approve-deny.jsonl')
const RUNS = Number(process.env.BENCH_RUNS ?? 15)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]

const time = (argv, env) => {
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0 && r.status !== 3) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
  return ms
}

/** Runs each case RUNS times, interleaved with the baseline, and reports ratios of medians. */
export const compare = (cases, env) => {
  const baseline = []
  const samples = cases.map(() => [])
  for (let i = 0; i < 2; i++) cases.forEach((c) => time(c.argv, c.env ?? env)) // warm the page cache
  for (let i = 0; i < RUNS; i++) {
    baseline.push(time(['-e', '0'], env))
    cases.forEach((c, j) => samples[j].push(time(c.argv, c.env ?? env)))
  }
  const base = median(baseline)
  return cases.map((c, j) => ({
    name: c.name,
    median: median(samples[j]),
    p10: quantile(samples[j], 0.1),
    p90: quantile(samples[j], 0.9),
    base,
    ratio: median(samples[j]) / base,
  }))
}

/** Templates made by the real emitter, then copied under new ids: fast to build 10,000. */
const makeFixture = (count, transcriptBytes, socketInfo) => {
  const root = fs.mkdtempSync(join(tmpdir(), 'tb-bench-'))
  const home = join(root, 'tb')
  const claude = join(root, 'claude')
  const projects = join(claude, 'projects', '-bench')
  fs.mkdirSync(projects, { recursive: true })
  const env = { PATH: process.env.PATH, HOME: root, TRAILBOSS_HOME: home, CLAUDE_CONFIG_DIR: claude }
  const hookEnv = { ...env, CLAUDE_CODE_ENTRYPOINT: 'cli', TMUX: `${socketInfo.socket},${socketInfo.pid},0`, TMUX_PANE: socketInfo.pane }
  const emit = (id, name, extra) =>
    execFileSync(process.execPath, [EMIT], { env: hookEnv, input: JSON.stringify({ session_id: id, transcript_path: join(projects, `${id}.jsonl`), cwd: root, hook_event_name: name, ...extra }) })
  const templates = {}
  for (const [state, events] of Object.entries({
    waiting: [['Stop', { prompt_id: 'p', last_assistant_message: 'Done. Anything else?' }]],
    permission: [['PermissionRequest', { prompt_id: 'p', tool_name: 'Bash', tool_input: { command: 'npm test' } }]],
    working: [['UserPromptSubmit', { prompt_id: 'p', prompt: 'go' }]],
    ended: [['SessionEnd', { reason: 'other' }]],
  })) {
    const id = `template-${state}`
    fs.copyFileSync(TRANSCRIPT, join(projects, `${id}.jsonl`))
    for (const [name, extra] of events) emit(id, name, extra)
    templates[state] = JSON.parse(fs.readFileSync(join(home, 'sessions', `${id}.json`), 'utf8'))
    fs.rmSync(join(home, 'sessions', `${id}.json`))
  }
  const text = fs.readFileSync(TRANSCRIPT)
  for (let i = 0; i < count; i++) {
    const slot = i % 20
    const state = slot === 0 ? 'waiting' : slot === 1 ? 'permission' : slot === 2 ? 'working' : 'ended'
    const id = `bench${String(i).padStart(6, '0')}-0000-4000-8000-000000000000`
    const transcript = join(projects, `${id}.jsonl`)
    const live = state !== 'ended'
    if (live) {
      // Real-shaped content; for the large case the same tail after a sparse hole.
      const fd = fs.openSync(transcript, 'w')
      if (transcriptBytes > text.length) fs.ftruncateSync(fd, transcriptBytes - text.length)
      fs.writeSync(fd, text, 0, text.length, Math.max(0, transcriptBytes - text.length))
      fs.closeSync(fd)
    }
    const size = live ? fs.statSync(transcript).size : null
    const rec = { ...templates[state], sessionId: id, transcriptPath: transcript, offset: size === null ? null : Math.max(0, size - 2000), tmux: { ...templates[state].tmux, pane: state === 'ended' ? '%0' : socketInfo.pane } }
    fs.writeFileSync(join(home, 'sessions', `${id}.json`), JSON.stringify(rec), { mode: 0o600 })
  }
  return { root, env }
}

export const run = () => {
  // One tmux server, as in the design's mix: the pane checks cost one list-panes.
  const sockDir = fs.mkdtempSync(join(tmpdir(), 'tb-bench-tmux-'))
  const socket = join(sockDir, 's')
  execFileSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', 'sleep', '100000'])
  const [sock, pid, pane] = execFileSync('tmux', ['-S', socket, 'display-message', '-p', '#{socket_path},#{pid},#{pane_id}'], { encoding: 'utf8' }).trim().split(',')
  const info = { socket: sock, pid, pane }
  const fixtures = []
  try {
    const rows = []
    for (const count of [100, 1000, 10000]) {
      const f = makeFixture(count, 1024, info)
      fixtures.push(f.root)
      const [ls] = compare([{ name: `ls --json, ${count} records`, argv: [CLI, 'ls', '--json'], env: f.env }], f.env)
      rows.push(ls)
      if (count === 1000) {
        const big = makeFixture(count, 100 * 1024 * 1024, info)
        fixtures.push(big.root)
        const [small, large, status] = compare(
          [
            { name: 'ls --json, 1,000 records, 1 KB transcripts', argv: [CLI, 'ls', '--json'], env: f.env },
            { name: 'ls --json, 1,000 records, 100 MB transcripts', argv: [CLI, 'ls', '--json'], env: big.env },
            { name: 'status, 1,000 records', argv: [CLI, 'status'], env: f.env },
          ],
          f.env,
        )
        rows.push(status, { ...large, ratio: large.median / small.median, vs: '1 KB transcripts' })
      }
    }
    return rows
  } finally {
    execFileSync('tmux', ['-S', socket, 'kill-server'])
    for (const dir of [...fixtures, sockDir]) fs.rmSync(dir, { recursive: true, force: true })
  }
}

const fmt = (n) => n.toFixed(1).padStart(7)
export const formatRows = (rows) =>
  [
    '| case | median ms | p10–p90 ms | baseline ms | ratio | target |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.median)} | ${r.p10.toFixed(0)}–${r.p90.toFixed(0)} | ${fmt(r.base)} | ${r.ratio.toFixed(2)}× ${r.vs ? `vs ${r.vs}` : 'vs node -e 0'} | ${
          r.vs ? '≤ 1.1×' : r.name.includes('1000 records') || r.name.startsWith('status') ? '≤ 2.5× (aim 2×)' : 'printed'
        } |`,
    ),
  ].join('\n')

if (import.meta.url === `file://${process.argv[1]}`) console.log(formatRows(run()))
