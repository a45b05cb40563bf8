// `ls --json` and `status` over 100 / 1,000 / 10,000 records (docs/design.md §7 mix: 5% waiting or
// permission, 5% working, 90% ended; one tmux server; real-shaped transcripts), and the same
// queue with 100 MB transcripts (sparse files) against 1 KB ones. Every figure is a ratio to
// `node -e 0` measured in the same run, interleaved, because these machines are noisy.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI, EMITTER as EMIT, fmt, interleave, median, quantile, ratio, runIfMain, timeSpawn } from './lib.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TRANSCRIPT = join(ROOT, 'test/fixtures/transcripts/interactive-text-permission-approve-deny.jsonl')
const QUIET_MS = 60 * 60 * 1000

/** Templates made by the real emitter, then copied under new ids: fast to build 10,000. */
const makeFixture = (count, transcriptBytes, socketInfo) => {
  const root = fs.mkdtempSync(join(tmpdir(), 'tb-bench-'))
  const home = join(root, 'tb')
  const claude = join(root, 'claude')
  const projects = join(claude, 'projects', '-bench')
  fs.mkdirSync(projects, { recursive: true })
  const env = { PATH: process.env.PATH, HOME: root, TRAILBOSS_HOME: home, CLAUDE_CONFIG_DIR: claude }
  const hookEnv = {
    ...env,
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    TMUX: `${socketInfo.socket},${socketInfo.pid},0`,
    TMUX_PANE: socketInfo.panes[0],
  }
  const emit = (id, name, extra) =>
    execFileSync(process.execPath, [EMIT], {
      env: hookEnv,
      input: JSON.stringify({ session_id: id, transcript_path: join(projects, `${id}.jsonl`), cwd: root, hook_event_name: name, ...extra }),
    })
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
    // The emitter marks ended sessions in sessions/.ended/: the copies carry the mark along.
    templates[state].marked = fs.existsSync(join(home, 'sessions', '.ended', id))
    fs.rmSync(join(home, 'sessions', `${id}.json`))
    fs.rmSync(join(home, 'sessions', '.ended', id), { force: true })
  }
  // The captured session up to the end of its second turn (a Stop and its system lines): the
  // 2 KB after each offset are read and parsed, and leave every state as its hooks set it.
  const whole = fs.readFileSync(TRANSCRIPT)
  const text = whole.subarray(0, whole.lastIndexOf('\n', whole.indexOf('PERM again please')) + 1)
  let liveCount = 0
  const liveRecords = []
  for (let i = 0; i < count; i++) {
    // docs/design.md §7: 5% waiting or permission (half each), 5% working, 90% ended.
    const slot = i % 20
    const state = slot === 0 ? (i % 40 === 0 ? 'waiting' : 'permission') : slot === 1 ? 'working' : 'ended'
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
    const { marked, ...template } = templates[state]
    if (marked) fs.writeFileSync(join(home, 'sessions', '.ended', id), '', { mode: 0o600 })
    // Each live session in a pane of its own (as many as the server has; then shared, and the
    // newest session owns a shared pane), so the queue holds every live wait.
    const pane = state === 'ended' ? '%0' : socketInfo.panes[live ? liveCount++ % socketInfo.panes.length : 0]
    // Quiet for an hour, so every working or permission session wants a screen check.
    const past = (ms) => ms - QUIET_MS
    const rec = {
      ...template,
      sessionId: id,
      transcriptPath: transcript,
      offset: size === null ? null : Math.max(0, size - 2000),
      tmux: { ...template.tmux, pane },
      since: past(template.since),
      firstEventAt: past(template.firstEventAt),
      lastEventAt: past(template.lastEventAt),
    }
    fs.writeFileSync(join(home, 'sessions', `${id}.json`), JSON.stringify(rec), { mode: 0o600 })
    if (live) liveRecords.push(rec)
  }
  const screens = join(home, 'screens.json')
  return {
    root,
    env,
    // Every screen verdict remembered and fresh: what `status` every few seconds mostly meets.
    screensCached: () =>
      fs.writeFileSync(
        screens,
        JSON.stringify(
          Object.fromEntries(liveRecords.map((r) => [r.sessionId, { at: Date.now(), lastEventAt: r.lastEventAt, verdict: 'unknown' }])),
        ),
        { mode: 0o600 },
      ),
    // Nothing remembered: the run captures as many panes as it may (MAX_SCREEN_CHECKS_PER_RUN).
    screensDue: () => fs.rmSync(screens, { force: true }),
  }
}

const assertBuilt = () => {
  // A stale dist/ would measure old code.
  if (!fs.existsSync(CLI)) throw new Error('dist/bin/trailboss.cjs is missing: run npm run build')
}

/** Output goes to a pipe the bench reads, as a script's `$(trailboss ls --json)` does. */
const STDIO = ['ignore', 'pipe', 'pipe']

/** The cases of one fixture, timed against `node -e 0` in the same interleaved rounds. */
/** A status-line input as Claude Code 2.1.332 writes it, cut to the fields that matter here. */
const STATUSLINE_INPUT = JSON.stringify({
  session_id: 'not-in-the-fixture',
  cwd: '/tmp',
  version: '2.1.332',
  model: { id: 'claude', display_name: 'Claude' },
  workspace: { current_dir: '/tmp', project_dir: '/tmp' },
})

const measure = (cases, flags) => {
  const timed = Object.fromEntries(
    Object.entries(cases).map(([name, { argv, env, before, input }]) => [
      name,
      () => {
        before() // outside the timing
        return timeSpawn(
          process.execPath,
          argv,
          input === undefined ? { env, stdio: STDIO } : { env, stdio: ['pipe', ...STDIO.slice(1)], input },
        )
      },
    ]),
  )
  // The same small environment as the cases: variables such as NODE_EXTRA_CA_CERTS make every
  // Node start load certificates, which would flatter the ratios.
  const env = Object.values(cases)[0].env
  timed['node -e 0'] = () => timeSpawn(process.execPath, ['-e', '0'], { env, stdio: STDIO })
  return interleave(timed, { rounds: flags.rounds, warmup: flags.warmup })
}

const row = (name, r, baseName, target) => {
  const q = ratio(r.wall[name], r.wall[baseName])
  const cpu = r.cpu[name] !== null && r.cpu[baseName] ? `${fmt(r.cpu[name] / r.cpu[baseName], 2)}×` : '-'
  return [
    name,
    fmt(median(r.wall[name])),
    `${fmt(quantile(r.wall[name], 0.1), 0)}–${fmt(quantile(r.wall[name], 0.9), 0)}`,
    fmt(median(r.wall[baseName])),
    `${fmt(q.paired, 2)}× (±${fmt(q.spread / 2, 2)})`,
    cpu,
    target,
  ]
}

/** Live sessions of the 1,000-record mix: 10%. */
const PANES = 100

/** Hook-less agent panes of the discovery case (issue #16). */
const HOOKLESS = 20

/** A tmux server with a pane per live session; `hookless` more panes run a process named `claude` with no record. */
const startServer = (hookless, dir) => {
  const sockDir = fs.mkdtempSync(join(tmpdir(), 'tb-bench-tmux-'))
  const socket = join(sockDir, 's')
  execFileSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', 'sleep', '100000'])
  const more = Array.from({ length: PANES - 1 }, () => ['new-window', '-d', 'sleep', '100000', ';']).flat()
  execFileSync('tmux', ['-S', socket, ...more.slice(0, -1)])
  const [sock, pid] = execFileSync('tmux', ['-S', socket, 'display-message', '-p', '#{socket_path},#{pid}'], { encoding: 'utf8' })
    .trim()
    .split(',')
  const panes = execFileSync('tmux', ['-S', socket, 'list-panes', '-a', '-F', '#{pane_id}'], { encoding: 'utf8' }).trim().split('\n')
  const cwds = []
  if (hookless > 0) {
    // A stand-in exec'd as `claude` (a copy of sleep), each in a project of its own.
    fs.mkdirSync(join(dir, 'bin'), { recursive: true })
    fs.copyFileSync('/bin/sleep', join(dir, 'bin', 'claude'))
    for (let i = 0; i < hookless; i++) {
      const cwd = join(dir, `hookless-${i}`)
      fs.mkdirSync(cwd, { recursive: true })
      cwds.push(cwd)
      execFileSync('tmux', ['-S', socket, 'new-window', '-d', '-c', cwd, join(dir, 'bin', 'claude'), '100000'])
    }
  }
  return { info: { socket: sock, pid, panes }, cwds, close: () => execFileSync('tmux', ['-S', socket, 'kill-server']), sockDir }
}

/** Claude Code transcripts (written after the panes started) that name the hook-less sessions. */
const addHooklessTranscripts = (env, cwds) =>
  cwds.forEach((cwd, i) => {
    const dir = join(env.CLAUDE_CONFIG_DIR, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'))
    fs.mkdirSync(dir, { recursive: true })
    fs.copyFileSync(TRANSCRIPT, join(dir, `hookless-${String(i).padStart(4, '0')}-0000-4000-8000-000000000000.jsonl`))
  })

export const run = (flags) => {
  assertBuilt()
  // One tmux server, as in the mix of docs/design.md §7: the pane checks cost one list-panes. It holds a
  // pane for each live session of the 1,000-record mix.
  const standIns = fs.mkdtempSync(join(tmpdir(), 'tb-bench-hookless-'))
  const plain = startServer(0, standIns)
  const withHookless = startServer(HOOKLESS, standIns)
  const info = plain.info
  const fixtures = []
  const fixture = (count, bytes, on = info) => {
    const f = makeFixture(count, bytes, on)
    fixtures.push(f.root)
    return f
  }
  try {
    const rows = []
    const f1k = fixture(1000, 1024)
    const big = fixture(1000, 100 * 1024 * 1024)
    const hookless = fixture(1000, 1024, withHookless.info)
    addHooklessTranscripts(hookless.env, withHookless.cwds)
    const main = measure(
      {
        'ls --json, 1,000 records': { argv: [CLI, 'ls', '--json'], env: f1k.env, before: f1k.screensCached },
        'status, 1,000 records': { argv: [CLI, 'status'], env: f1k.env, before: f1k.screensCached },
        // Claude Code's statusLine: its JSON on stdin (a session of the fixture's, so one is left out).
        'statusline, 1,000 records': { argv: [CLI, 'statusline'], env: f1k.env, before: f1k.screensCached, input: STATUSLINE_INPUT },
        'ls --json, 1,000 records, 100 MB transcripts': { argv: [CLI, 'ls', '--json'], env: big.env, before: big.screensCached },
        'ls --json, 1,000 records, screen checks due': { argv: [CLI, 'ls', '--json'], env: f1k.env, before: f1k.screensDue },
        // Issue #16: the same records plus 20 panes running `claude` with no record of ours.
        [`ls --json, 1,000 records + ${HOOKLESS} hook-less panes`]: {
          argv: [CLI, 'ls', '--json'],
          env: hookless.env,
          before: hookless.screensCached,
        },
      },
      flags,
    )
    rows.push(row('ls --json, 1,000 records', main, 'node -e 0', '≤ 2.5× (aim 2×)'))
    rows.push(row('status, 1,000 records', main, 'node -e 0', '≤ 2.5× (aim 2×)'))
    rows.push(row('statusline, 1,000 records', main, 'node -e 0', '≤ 2.5× (as status)'))
    rows.push(row('ls --json, 1,000 records, screen checks due', main, 'node -e 0', 'printed'))
    rows.push(row(`ls --json, 1,000 records + ${HOOKLESS} hook-less panes`, main, 'node -e 0', '≤ 2.5×'))
    const t = ratio(main.wall['ls --json, 1,000 records, 100 MB transcripts'], main.wall['ls --json, 1,000 records'])
    rows.push([
      'ls --json, 1,000 records, 100 MB vs 1 KB transcripts',
      fmt(median(main.wall['ls --json, 1,000 records, 100 MB transcripts'])),
      '',
      fmt(median(main.wall['ls --json, 1,000 records'])),
      `${fmt(t.paired, 2)}× (±${fmt(t.spread / 2, 2)}) vs 1 KB`,
      '-',
      '≤ 1.1×',
    ])
    for (const count of [100, 10000]) {
      const f = fixture(count, 1024)
      const name = `ls --json, ${count.toLocaleString('en')} records`
      rows.push(
        row(
          name,
          measure(
            { [name]: { argv: [CLI, 'ls', '--json'], env: f.env, before: f.screensCached } },
            { ...flags, rounds: Math.max(5, Math.round(flags.rounds / (count > 1000 ? 4 : 1))) },
          ),
          'node -e 0',
          'printed',
        ),
      )
    }
    return [
      {
        title: 'ls and status (the fixture mix of docs/design.md §7: 5% waiting or permission, 5% working, 90% ended; one tmux server)',
        header: ['case', 'median ms', 'p10–p90 ms', 'node -e 0 ms', 'wall ratio (paired median ± half IQR)', 'CPU ratio', 'target'],
        rows,
        notes: [
          'Ratios are to `node -e 0` timed in the same interleaved rounds; the CPU ratio (user + system of the children) moves least when the machine is busy.',
          `The hook-less row: a second server with the same panes plus ${HOOKLESS} running a process named \`claude\` (a copy of sleep) in projects of their own, each named by a transcript; what discovery learnt stays in discovery.json between runs, screens of hook-less panes (blank: a copy of sleep shows nothing) are looked at again every 10 s.`,
          'Every live session has been quiet for an hour. Screen verdicts are remembered for 20 s: the rows have them all remembered (as `status` every few seconds mostly does), except "screen checks due", where none is and the run captures 8 panes.',
        ],
      },
    ]
  } finally {
    plain.close()
    withHookless.close()
    for (const dir of [...fixtures, plain.sockDir, withHookless.sockDir, standIns]) fs.rmSync(dir, { recursive: true, force: true })
  }
}

await runIfMain(import.meta, run)
