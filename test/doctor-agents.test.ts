// Found in issue #18: `doctor` said "all good" with no Claude Code installed. With no supported
// agent on PATH it now says so, as a problem. Run `npm run build` first.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkAgentsInstalled, checkAnyAgentSetUp } from '../lib/doctor/checks.js'
import { findOnPath } from '../lib/fs/find-on-path.js'
import { runCli, runInProcess } from './helpers/cli.js'
import { baseEnv, tempDir } from './helpers/emitter.js'

const agents = (claude: string | null, codex: string | null, gemini: string | null) => [
  { id: 'claude-code', label: 'Claude Code', command: 'claude', path: claude },
  { id: 'codex', label: 'Codex', command: 'codex', path: codex },
  { id: 'gemini', label: 'Gemini CLI', command: 'gemini', path: gemini },
]

t.test('checkAgentsInstalled: none is a failure that names them all; any one is enough', async (t) => {
  const none = checkAgentsInstalled(agents(null, null, null))
  t.equal(none.status, 'fail')
  t.match(
    none.summary,
    /no supported agent is installed: none of Claude Code \(claude\), Codex \(codex\), Gemini CLI \(gemini\) is on PATH/,
  )
  t.match(none.fix, /trailboss install --agent <claude-code\|codex\|gemini>/, 'each agent by the id install takes')
  const one = checkAgentsInstalled(agents(null, '/bin/codex', null))
  t.equal(one.status, 'ok')
  t.match(one.summary, /Codex \(\/bin\/codex\)/)
})

t.test('doctor with no agent on PATH: not "all good"', async (t) => {
  const root = tempDir(t)
  // A PATH with tmux but no agent: only that is missing.
  const bin = join(root, 'bin')
  fs.mkdirSync(bin)
  const tmux = findOnPath('tmux', process.env.PATH)
  if (tmux) fs.symlinkSync(tmux, join(bin, 'tmux'))
  const env = { ...baseEnv(root), PATH: bin }
  fs.mkdirSync(join(root, 'home'), { recursive: true })
  const r = await runCli(['doctor'], env)
  t.equal(r.code, 1, r.stdout + r.stderr)
  t.match(r.stdout, /✗ no supported agent is installed/)
  t.notMatch(r.stdout, /all good/)
  t.match(r.stdout, /\n\d+ problems?[^\n]*\n$/, 'the verdict counts it')
  const json = JSON.parse((await runCli(['doctor', '--json'], env)).stdout) as { ok: boolean; checks: { id: string; status: string }[] }
  t.equal(json.ok, false)
  t.equal(json.checks.find((c) => c.id === 'agents')?.status, 'fail')
})

t.test('checkAnyAgentSetUp: a failure only when no agent found anything of ours', async (t) => {
  const info = { id: 'claude-code', status: 'info', summary: 'not set up here', fix: null } as const
  const ok = { id: 'codex:hooks', status: 'ok', summary: 'hooks', fix: null } as const
  const ids = ['claude-code', 'codex', 'gemini']
  t.match(checkAnyAgentSetUp([[], [], []], ids), {
    id: 'hooks',
    status: 'fail',
    fix: 'trailboss install --agent <claude-code|codex|gemini>',
  })
  t.match(checkAnyAgentSetUp([[info], [], []], ids), { status: 'fail' }, "one agent's not-set-up line is not a setup")
  t.equal(checkAnyAgentSetUp([[info], [ok], []], ids), null)
})

t.test('a Codex-only machine: doctor passes, and says Claude Code is not set up here', async (t) => {
  const root = tempDir(t)
  // A PATH with tmux, node and the pinned Codex as `codex`: no claude.
  const bin = join(root, 'bin')
  fs.mkdirSync(bin)
  for (const name of ['tmux', 'node']) {
    const found = findOnPath(name, process.env.PATH)
    if (found) fs.symlinkSync(found, join(bin, name))
  }
  fs.symlinkSync(new URL('./e2e/clis/codex/node_modules/.bin/codex', import.meta.url).pathname, join(bin, 'codex'))
  const env = { ...baseEnv(root), PATH: bin }
  fs.mkdirSync(join(root, 'home'), { recursive: true })
  const before = await runInProcess(['doctor', '--json'], env, '', root)
  const checksOf = (r: { stdout: string }) => (JSON.parse(r.stdout) as { ok: boolean; checks: { id: string; status: string }[] }).checks
  t.match(
    checksOf(before).find((c) => c.id === 'hooks'),
    { status: 'fail' },
    'nothing installed yet: doctor says no agent has our hooks',
  )
  const inst = await runInProcess(['install', '--agent', 'codex'], env, '', root)
  t.equal(inst.code, 0, inst.stdout + inst.stderr)
  const after = await runInProcess(['doctor', '--json'], env, '', root)
  t.equal(after.code, 0, after.stdout + after.stderr)
  const checks = checksOf(after)
  t.same(
    checks.filter((c) => c.status === 'fail' || c.status === 'warn'),
    [],
    'no problem and no warning',
  )
  t.same(checks.find((c) => c.id === 'claude-code')?.status, 'info', 'Claude Code: not set up here')
  t.notOk(
    checks.some((c) => c.id === 'routes' || c.id === 'hooks'),
    'nobody is told to install Claude Code hooks',
  )
  t.match(
    checks.find((c) => c.id === 'codex:hooks'),
    { status: 'ok' },
  )
})
