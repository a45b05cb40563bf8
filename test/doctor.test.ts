import { execFile, execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { captureIo } from './helpers/io.js'
import { runEmitter } from './helpers/emitter.js'
import { runInProcess } from './helpers/cli.js'
import { sessionRecord } from './helpers/session-record.js'
import { startTmuxServer, type TmuxServer } from './helpers/tmux-server.js'
import { runDoctor, timeEmitter } from '../lib/commands/doctor.js'
import {
  checkHome,
  checkLog,
  checkNode,
  checkCodeCache,
  checkRecords,
  checkEndedIndex,
  checkSessions,
  deriveReport,
  formatReport,
  RECENT_SESSION_MS,
  type Check,
  type DoctorReport,
  type ServerAnswer,
} from '../lib/doctor/checks.js'
import { compareVersions } from '../lib/agents/compare-versions.js'
import { NEWEST_TESTED } from '../lib/agents/claude-code/versions.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'dist', 'bin', 'trailboss.cjs')
const EMITTER = join(ROOT, 'dist', 'hooks', 'emit.cjs')

// Each doctor run starts the emitter three times, tmux and claude: minutes on a loaded 2-core machine.
t.setTimeout(300_000)

// ---- pure verdicts --------------------------------------------------------------------------

const NODE = '/usr/bin/node'

t.test('checkNode and compareVersions', async (t) => {
  t.equal(checkNode('20.19.0', NODE).status, 'ok')
  t.equal(checkNode('22.3.1', NODE).status, 'ok')
  const old = checkNode('20.18.3', NODE)
  t.equal(old.status, 'fail')
  t.match(old.fix, /Node 20\.19\.0 or newer/)
  t.ok(compareVersions('v20.10.0', '20.9.9') > 0, 'numeric, not string order')
  t.equal(compareVersions('20.19.0', '20.19.0'), 0)
})

t.test('checkHome and checkRecords', async (t) => {
  const base = { path: '/h/.trailboss', mode: 0o700, ownedByMe: true, writable: true, sessionsMode: 0o700 }
  t.equal(checkHome(base).status, 'ok')
  t.equal(checkHome({ ...base, mode: null }).status, 'info')
  t.equal(checkHome({ ...base, sessionsMode: 0o755 }).status, 'warn')
  t.match(checkHome({ ...base, mode: 0o755 }).fix, /chmod 700/)
  t.equal(checkHome({ ...base, ownedByMe: false }).status, 'fail')
  t.equal(checkHome({ ...base, writable: false }).status, 'fail')
  t.same(
    checkRecords(3, [], []).map((c) => c.status),
    ['ok'],
  )
  const bad = checkRecords(3, [{ file: '/s/x.json', why: 'not valid JSON' }], ['/s/y.json.corrupt-1'])
  t.same(
    bad.map((c) => [c.id, c.status]),
    [
      ['records', 'fail'],
      ['records-set-aside', 'warn'],
    ],
  )
  t.same(bad[0]?.details, ['/s/x.json: not valid JSON'])
})

t.test('checkLog: recent lines only; failures warn', async (t) => {
  const now = Date.parse('2026-11-30T12:00:00Z')
  t.equal(checkLog('/l', null, now).status, 'ok')
  const old = '2026-11-01T00:00:00.000Z emit[1] failed: EACCES\n'
  t.equal(checkLog('/l', old, now).status, 'ok', 'older than a day: not shown')
  const note = '2026-11-30T11:00:00.000Z emit[2] lock of abc busy; saved Stop as a pending event\n'
  t.equal(checkLog('/l', old + note, now).status, 'info')
  const fail = `${note}2026-11-30T11:30:00.000Z emit[3] failed: ENOSPC\n`
  const c = checkLog('/l', fail, now)
  t.equal(c.status, 'warn')
  t.same(c.details, ['2026-11-30T11:30:00.000Z emit[3] failed: ENOSPC'])
})

t.test('checkSessions: pane there, gone, unknown; old sessions left out', async (t) => {
  const now = 10 * RECENT_SESSION_MS
  const servers = new Map<string, ServerAnswer>([
    ['/tmp/s', { status: 'ok', panes: new Set(['%1']) }],
    ['/tmp/dead', { status: 'no-server' }],
    ['/tmp/odd', { status: 'unknown', why: 'timeout' }],
  ])
  const checks = checkSessions(
    [
      sessionRecord({ sessionId: 'alive-000', lastEventAt: now - 5000 }),
      sessionRecord({ sessionId: 'gone-0000', lastEventAt: now - 4000, tmux: { pane: '%9', socket: '/tmp/s', serverPid: 1 } }),
      sessionRecord({
        sessionId: 'ended-000',
        lastEventAt: now - 3000,
        state: 'ended',
        tmux: { pane: '%2', socket: '/tmp/dead', serverPid: 2 },
      }),
      sessionRecord({ sessionId: 'odd-00000', lastEventAt: now - 2000, tmux: { pane: '%3', socket: '/tmp/odd', serverPid: 3 } }),
      sessionRecord({ sessionId: 'headless0', lastEventAt: now - 1000, headless: true, tmux: null }),
      sessionRecord({ sessionId: 'old-00000', lastEventAt: now - RECENT_SESSION_MS - 1 }),
    ],
    servers,
    now,
  )
  t.same(
    checks.map((c) => [c.id, c.status]),
    [
      ['session:headless0', 'info'],
      ['session:odd-00000', 'info'],
      ['session:ended-000', 'info'],
      ['session:gone-0000', 'warn'],
      ['session:alive-000', 'ok'],
    ],
    'newest first; the old one is not listed',
  )
  t.match(checks[4]?.summary, /pane %1 is there; last event Stop 5s ago/)
})

t.test('formatReport: one line per check, the fix under it, a verdict', async (t) => {
  const checks: Check[] = [
    { id: 'a', status: 'ok', summary: 'fine', fix: null },
    { id: 'b', status: 'fail', summary: 'broken', fix: 'do this', details: ['why'] },
    { id: 'c', status: 'warn', summary: 'hmm', fix: 'maybe that' },
  ]
  const report = deriveReport(checks)
  t.equal(report.ok, false)
  t.equal(formatReport(report, false), '✓ fine\n✗ broken\n    why\n    → do this\n! hmm\n    → maybe that\n1 problem, 1 warning\n')
  t.match(formatReport(report, true), /\x1b\[31m✗\x1b\[0m broken/)
  t.equal(deriveReport([checks[0] as Check, checks[2] as Check]).ok, true, 'warnings do not fail')
})

// ---- the whole chain, with the built CLI, real files, a real tmux server ---------------------

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** The newest pinned Claude Code build, installed by `npm test`'s pretest. */
const NEWEST_CLAUDE = fileURLToPath(new URL(`./e2e/clis/claude-code-${NEWEST_TESTED}/node_modules/.bin/claude`, import.meta.url))

const cli = (args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })

/** The same command line in-process (test/helpers/cli.ts): the report is the command's, not the bundle's. */
const inProcess = (args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> => runInProcess(args, env, '', cwd)

const emit = async (payload: object, env: NodeJS.ProcessEnv): Promise<number | null> =>
  (await runEmitter(JSON.stringify(payload), env)).code

const startTmux = (t: Test): TmuxServer & { pane: string } => {
  const server = startTmuxServer(t, { size: [80, 20] })
  return { ...server, pane: server.firstPane }
}

const parseReport = (r: Run): DoctorReport => JSON.parse(r.stdout) as DoctorReport
const statusOf = (report: DoctorReport, id: string): string | undefined => report.checks.find((c) => c.id === id)?.status

/** A healthy machine: hooks installed in user scope, one session recorded from a live pane. */
const healthy = async (t: Test) => {
  const dir = t.testdir({ claude: {}, home: {}, project: {}, bin: {} })
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: join(dir, 'home'),
    CLAUDE_CONFIG_DIR: join(dir, 'claude'),
    TRAILBOSS_HOME: join(dir, 'tb'),
  }
  // The newest pinned Claude Code build (npm test's pretest installs it), as `claude` on PATH.
  fs.symlinkSync(NEWEST_CLAUDE, join(dir, 'bin', 'claude'))
  const project = join(dir, 'project')
  const inst = await inProcess(['install'], env, project)
  t.equal(inst.code, 0, inst.stderr)
  const server = startTmux(t)
  const code = await emit(
    {
      session_id: 'doctor-session-1',
      transcript_path: join(dir, 'x.jsonl'),
      cwd: project,
      hook_event_name: 'Stop',
      last_assistant_message: 'Done.',
      stop_hook_active: false,
      background_tasks: [],
    },
    { ...env, TMUX: `${server.socket},${server.pid},0`, TMUX_PANE: server.pane },
  )
  t.equal(code, 0)
  t.ok(fs.existsSync(join(dir, 'tb', 'sessions', 'doctor-session-1.json')), 'the emitter recorded the session')
  return { dir, env, project, server }
}

t.test('doctor on a healthy setup: exit 0, every check ok or info', async (t) => {
  const { env, project, server } = await healthy(t)
  const r = await cli(['doctor', '--json'], env, project)
  t.equal(r.code, 0, r.stdout + r.stderr)
  const report = parseReport(r)
  t.equal(report.version, 1)
  t.equal(report.ok, true)
  // How fast the emitter starts depends on the machine's load, not on the setup.
  const timing = /took \d+ ms to start/
  t.same(
    report.checks.filter((c) => (c.status === 'fail' || c.status === 'warn') && !timing.test(c.summary)),
    [],
  )
  t.equal(statusOf(report, 'node'), 'ok')
  t.match(
    report.checks.find((c) => c.id === "emitter:this package's emitter")?.summary,
    /runs \(.*emit\.cjs, \d+ ms\)|took \d+ ms to start/,
  )
  t.equal(statusOf(report, 'hooks:user'), 'ok')
  t.equal(statusOf(report, 'home'), 'ok')
  t.equal(statusOf(report, 'records'), 'ok')
  t.equal(statusOf(report, 'tmux'), 'ok')
  t.match(
    report.checks.find((c) => c.id === 'claude-code'),
    { status: 'ok', summary: new RegExp(`^Claude Code ${NEWEST_TESTED} \\(`) },
    'doctor names the Claude Code it finds',
  )
  t.equal(statusOf(report, `tmux-server:${server.socket}`), 'ok')
  const session = report.checks.find((c) => c.id === 'session:doctor-session-1')
  t.equal(session?.status, 'ok')
  t.match(session?.summary, new RegExp(`pane ${server.pane} is there; last event Stop \\d+s ago`))
  const text = await cli(['doctor'], env, project)
  t.equal(text.code, 0)
  t.match(text.stdout, /^✓ Node /m)
  t.match(text.stdout, /^all good/m)
  t.match(text.stdout, /\n(all good|\d+ problems?)[^\n]*\n$/, 'a verdict last')
})

t.test('doctor on broken setups: exit 1 and the fix for each', async (t) => {
  t.setTimeout(300_000)
  const cases: [string, (s: Awaited<ReturnType<typeof healthy>>) => NodeJS.ProcessEnv | void, string, RegExp][] = [
    [
      'no hooks at all',
      ({ env, project }) => void execFileSync(process.execPath, [CLI, 'uninstall'], { env, cwd: project }),
      'routes',
      /trailboss install/,
    ],
    [
      'a path a Node upgrade broke',
      ({ dir }) => {
        const file = join(dir, 'claude', 'settings.json')
        const text = fs
          .readFileSync(file, 'utf8')
          .replaceAll(EMITTER, '/home/me/.nvm/versions/node/v20.1.0/lib/node_modules/trailboss/dist/hooks/emit.cjs')
        fs.writeFileSync(file, text)
      },
      'hooks:user',
      /^trailboss install$/,
    ],
    [
      'settings that do not parse',
      ({ dir }) => fs.writeFileSync(join(dir, 'claude', 'settings.json'), '{ // no\n}'),
      'hooks:user',
      /fix .* by hand/,
    ],
    [
      'hooks turned off',
      ({ dir }) => {
        const file = join(dir, 'claude', 'settings.json')
        fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), disableAllHooks: true }))
      },
      'hooks:user',
      /disableAllHooks/,
    ],
    [
      'a record that fails the schema',
      ({ dir }) => fs.writeFileSync(join(dir, 'tb', 'sessions', 'broken-1.json'), '{"v": 1}', { mode: 0o600 }),
      'records',
      /move them away/,
    ],
    ['tmux not on PATH', ({ env }) => ({ ...env, PATH: '/nonexistent' }), 'tmux', /install tmux/],
    [
      'the plugin enabled without trailboss-emit on PATH',
      ({ dir, env, project }) => {
        execFileSync(process.execPath, [CLI, 'uninstall'], { env, cwd: project })
        fs.writeFileSync(join(dir, 'claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'trailboss@trailboss': true } }))
      },
      'plugin',
      /runs trailboss-emit from the npm package/,
    ],
  ]
  for (const [name, breakIt, id, fix] of cases) {
    await t.test(name, async (t) => {
      const s = await healthy(t)
      const env = breakIt(s) ?? s.env
      // In-process: the command's tmux runs with the Io's environment, its PATH included.
      const r = await inProcess(['doctor', '--json'], env, s.project)
      t.equal(r.code, 1, `${name}: exit 1`)
      const report = parseReport(r)
      t.equal(report.ok, false)
      const check = report.checks.find((c) => c.id === id)
      t.equal(check?.status, 'fail', `${name}: ${id} fails`)
      t.match(check?.fix, fix, `${name}: says what to do`)
      const text = await inProcess(['doctor'], env, s.project)
      t.equal(text.code, 1)
      t.match(text.stdout, /^✗ /m)
      t.match(text.stdout, /^ {4}→ /m)
    })
  }
})

t.test('doctor warns, without failing, about double registration, lost panes and loose permissions', async (t) => {
  const s = await healthy(t)
  // The plugin enabled as well, and trailboss-emit on PATH (as npm's bin link would put it).
  fs.symlinkSync(EMITTER, join(s.dir, 'bin', 'trailboss-emit'))
  fs.mkdirSync(join(s.project, '.claude'))
  fs.writeFileSync(join(s.project, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'trailboss@trailboss': true } }))
  fs.chmodSync(join(s.dir, 'tb'), 0o755)
  s.server.tmux('kill-server')
  const r = await cli(['doctor', '--json'], s.env, s.project)
  t.equal(r.code, 0, r.stdout)
  const report = parseReport(r)
  t.equal(statusOf(report, 'plugin'), 'ok')
  t.match(
    report.checks.find((c) => c.id === 'emitter:trailboss-emit')?.summary,
    /trailboss-emit runs|took \d+ ms to start/,
    'trailboss-emit from PATH runs',
  )
  t.equal(statusOf(report, 'double-registration'), 'warn')
  t.equal(statusOf(report, 'home'), 'warn')
  t.equal(statusOf(report, `tmux-server:${s.server.socket}`), 'info', 'a server that is gone is no fault')
  t.equal(statusOf(report, 'session:doctor-session-1'), 'warn', 'but the session it held is lost')
})

t.test('doctor in-process: an old Node and an unbuilt package fail', async (t) => {
  const s = await healthy(t)
  const io = captureIo(s.env, s.project)
  t.equal(await runDoctor({ json: true }, io, { nodeVersion: '18.20.0' }), 1)
  const report = JSON.parse(io.out()) as DoctorReport
  t.equal(statusOf(report, 'node'), 'fail')
  const pkg = join(s.dir, 'pkg')
  fs.mkdirSync(join(pkg, 'lib'), { recursive: true })
  fs.writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'trailboss' }))
  const io2 = captureIo(s.env, s.project)
  t.equal(await runDoctor({ json: true }, io2, { selfFile: join(pkg, 'lib', 'doctor.js') }), 1)
  const report2 = JSON.parse(io2.out()) as DoctorReport
  const own = report2.checks.find((c) => c.id === "emitter:this package's emitter")
  t.equal(own?.status, 'fail')
  t.match(own?.fix, /npm run build/)
})

t.test('an emitter that exits before reading its event is timed, never ends doctor on the closed pipe', async (t) => {
  // /bin/true leaves before the event is written often enough (a write to its closed pipe fails
  // with EPIPE in about one run of seven here) that 40 doctor timings meet it.
  for (let i = 0; i < 40; i++) {
    const run = await timeEmitter('true', '/bin/true', [], { PATH: process.env.PATH })
    if (run.code !== 0) return t.fail(`run ${i}: ${JSON.stringify(run)}`)
  }
  t.pass('40 timings, each exit 0')
})

t.test('checkEndedIndex: a mark on a live session fails, with the rm that fixes it', async (t) => {
  const records = [sessionRecord({ sessionId: 'a', state: 'ended' }), sessionRecord({ sessionId: 'b', state: 'waiting' })]
  t.equal(checkEndedIndex('/s/.ended', new Set(['a', 'gone']), records).status, 'ok', 'marks of ended or removed records')
  const bad = checkEndedIndex('/s/.ended', new Set(['a', 'b']), records)
  t.equal(bad.status, 'fail')
  t.equal(bad.fix, 'remove the marks (always safe): rm /s/.ended/b')
  t.same(bad.details, ['b: waiting'])
})

t.test('doctor runs the claude on PATH, bounded by a timeout', async (t) => {
  const { dir, env, project } = await healthy(t)
  const fake = (body: string): void => {
    fs.rmSync(join(dir, 'bin', 'claude'))
    fs.writeFileSync(join(dir, 'bin', 'claude'), `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  }
  const check = async (): Promise<Check | undefined> =>
    parseReport(await cli(['doctor', '--json'], env, project)).checks.find((c) => c.id === 'claude-code')
  fake('echo "2.1.100 (Claude Code)"')
  t.match(await check(), { status: 'warn', summary: /older than the oldest supported/ })
  fake('echo "9.0.0 (Claude Code)"')
  t.match(await check(), { status: 'info', summary: /9\.0\.0 .*newer than the newest tested/ })
  fake('sleep 30')
  const t0 = Date.now()
  const silent = await check()
  t.match(silent, { status: 'warn', summary: /did not answer in time/ })
  t.ok(Date.now() - t0 < 30_000, 'doctor did not wait for it')
})

t.test('checkCodeCache: used is ok; refused or none is only information, with the way back', async (t) => {
  t.equal(checkCodeCache('used').status, 'ok')
  for (const state of ['refused', 'none'] as const) {
    const c = checkCodeCache(state)
    t.equal(c.status, 'info', state)
    t.match(c.fix, /reinstall the package/)
  }
})
