// `ok`/`no` on a wait of another host (docs/design.md §10.5). First the pure rules: the fixed
// words sent, what is refused here before anything is sent, and what each failure on the host
// means. Then real OpenSSH hosts (test/helpers/ssh-host.ts) that all see one wait: a stand-in
// agent pane showing a captured permission dialog, whose host runs this checkout's trailboss.
// Every refusal leaves that pane as it was; only the last case presses its key.
// Run `npm run build` first: the hosts and this machine run the built CLI.
import t from 'tap'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TrailbossError } from '../lib/errors.js'
import { deriveRemoteRefusal, describeRemoteFailure, REMOTE_SEND_WITHIN_MS, remoteAnswerWords } from '../lib/navigate/remote-answer.js'
import { ANSWER_GUARD, deriveTooYoung } from '../lib/queue/answer-guard.js'
import type { HostRead } from '../lib/remote/fleet.js'
import type { SshResult } from '../lib/remote/ssh-run.js'
import { runCli, type CliResult } from './helpers/cli.js'
import { queueItem } from './helpers/queue-item.js'
import { startSshHost, trailbossBinDir, writeSshConfig, type SshHost } from './helpers/ssh-host.js'
import { cleanEnv, startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

const remoteWait = queueItem({
  n: 3,
  key: 'devbox:a1111111',
  sessionId: 'devbox:a1111111-0000-4000-8000-000000000001',
  state: 'permission',
  kind: 'permission',
  ask: { tool: 'Bash', input: { command: 'npm test' }, message: null },
  remote: { destination: 'devbox', key: 'a1111111', sessionId: 'a1111111-0000-4000-8000-000000000001', stale: false },
})
const answered: HostRead = { destination: 'devbox', answered: true, why: null, queueAt: 1 }

t.test('the host gets fixed words; the only variable is its own session id, held to the pattern', async (t) => {
  t.same(remoteAnswerWords('allow', 'a1111111-0000-4000-8000-000000000001'), [
    'trailboss',
    'ok',
    'a1111111-0000-4000-8000-000000000001',
    '--local',
    '--require-guard',
    ANSWER_GUARD,
    '--older-than',
    '10s',
  ])
  t.equal(remoteAnswerWords('deny', 'abc')?.[1], 'no')
  for (const bad of ['', '-rf', '--help', 'a b', 'a;b', 'a$(x)', 'devbox:abc', 'a/b', 'x'.repeat(129)])
    t.equal(remoteAnswerWords('allow', bad), null, `refused: ${JSON.stringify(bad)}`)
})

t.test('refused here, before anything is sent', async (t) => {
  t.equal(deriveRemoteRefusal(remoteWait, answered, 100), null, 'a permission wait read just now goes to its host')
  const stale = { ...remoteWait, remote: { ...remoteWait.remote!, stale: true } }
  t.match(
    deriveRemoteRefusal(stale, { destination: 'devbox', answered: false, why: 'could not connect', queueAt: 1 }, 100),
    /^devbox did not answer just now \(could not connect\); its row is its last known queue/,
  )
  t.match(deriveRemoteRefusal({ ...remoteWait, state: 'waiting', kind: 'done' }, answered, 100), /not wait on a permission dialog \(done\)/)
  t.match(deriveRemoteRefusal({ ...remoteWait, kind: 'question' }, answered, 100), /asks a question/)
  t.match(deriveRemoteRefusal({ ...remoteWait, tmux: null }, answered, 100), /does not run in tmux/)
  t.match(deriveRemoteRefusal(remoteWait, answered, REMOTE_SEND_WITHIN_MS + 1), /too long to be sure devbox answers the wait read here/)
  t.match(deriveRemoteRefusal(queueItem(), answered, 1), /not a wait of another host/)
})

t.test('a wait younger than --older-than is not answered', async (t) => {
  t.equal(deriveTooYoung({ since: 0 }, 20_000, null), null)
  t.equal(deriveTooYoung({ since: 0 }, 10_000, 10_000), null)
  t.equal(deriveTooYoung({ since: 0 }, 9_999, 10_000), 'it began 9 s ago, under the 10 s asked (--older-than)')
  // A wait from the future (the clock stepped back) is young: refused.
  t.match(deriveTooYoung({ since: 50_000 }, 10_000, 10_000), /began 0 s ago/)
})

t.test("what the host's failures mean", async (t) => {
  const failed = (over: Partial<Extract<SshResult, { ok: false }>>): Extract<SshResult, { ok: false }> => ({
    ok: false,
    reason: 'exit',
    message: '',
    code: 1,
    stderr: '',
    ms: 1,
    ...over,
  })
  const said = (e: TrailbossError): string => `${e.message} — ${e.hint ?? ''}`
  t.match(
    said(
      describeRemoteFailure(
        'devbox',
        'ok',
        failed({ code: 2, stderr: 'trailboss: Unknown argument: require-guard — see trailboss --help\n' }),
      ),
    ),
    /^devbox's Trail Boss is too old to answer safely \(it said: trailboss: Unknown argument: require-guard — see trailboss --help\) — update it there/,
  )
  const off = describeRemoteFailure(
    'devbox',
    'no',
    failed({ stderr: 'trailboss: `no` is off — set TRAILBOSS_ALLOW_SEND=1 to let Trail Boss press keys in agent panes\n' }),
  )
  t.equal(off.message, '`no` is off on devbox')
  t.match(off.hint, /set TRAILBOSS_ALLOW_SEND=1 on devbox .*this machine's setting is not passed on/)
  const refused = describeRemoteFailure(
    'devbox',
    'ok',
    failed({
      stderr: 'trailboss: not answering 1 · p · %1 (permission: Bash: x): the dialog changed \x1b]0;owned\x07 — nothing was pressed\n',
    }),
  )
  t.equal(
    refused.message,
    'devbox: not answering 1 · p · %1 (permission: Bash: x): the dialog changed ^[]0;owned^G',
    'the host named, its text made visible',
  )
  t.equal(refused.hint, 'nothing was pressed')
  t.match(
    said(describeRemoteFailure('devbox', 'ok', failed({ reason: 'connect', message: 'Connection refused', code: 255 }))),
    /^could not answer on devbox: could not connect: Connection refused — nothing was sent/,
  )
  t.match(
    said(describeRemoteFailure('devbox', 'ok', failed({ reason: 'timeout', code: null }))),
    /did not say within 40 s whether it answered — it may have/,
  )
  t.match(
    said(describeRemoteFailure('devbox', 'ok', failed({ code: 127, stderr: 'sh: 1: trailboss: not found\n' }))),
    /trailboss is not on its PATH/,
  )
})

// Real hosts. Four sshds share one home, one Trail Boss home and so one wait: devbox (opted in),
// gpubox (not opted in), oldbox (a trailboss from before --require-guard) and stalebox (stopped
// after one good read). Each is its own host here, so the wait shows four times, once per host.
const root = t.testdir({ proj: {} })
const REPO_BIN = trailbossBinDir(join(root, 'tb'))
const hostHome = join(root, 'devbox', 'home')
const remoteTbHome = join(hostHome, '.trailboss')
mkdirSync(remoteTbHome, { recursive: true, mode: 0o700 })
chmodSync(remoteTbHome, 0o700)
const shimDir = join(root, 'old-bin')
mkdirSync(shimDir)
// As an older trailboss: its ls answers like any host's; yargs stops at the option it lacks.
writeFileSync(
  join(shimDir, 'trailboss'),
  `#!/bin/sh\nfor a in "$@"; do [ "$a" = --require-guard ] && { echo 'trailboss: Unknown argument: require-guard — see trailboss --help' >&2; exit 2; }; done\nexec '${join(REPO_BIN, 'trailboss')}' "$@"\n`,
  { mode: 0o755 },
)
const path = `${REPO_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`
const start = async (name: string, env: Record<string, string>, hostPath = path): Promise<SshHost> => {
  const host = await startSshHost(join(root, name), name, { path: hostPath, env })
  t.teardown(() => host.stop())
  return host
}
const devbox = await start('devbox', { TRAILBOSS_ALLOW_SEND: '1' })
const shared = { HOME: devbox.home, TMUX_TMPDIR: devbox.tmuxTmpdir }
const gpubox = await start('gpubox', shared)
const oldbox = await start('oldbox', { ...shared, TRAILBOSS_ALLOW_SEND: '1' }, `${shimDir}:${path}`)
const stalebox = await start('stalebox', { ...shared, TRAILBOSS_ALLOW_SEND: '1' })
const config = join(root, 'ssh_config')
writeSshConfig(config, [devbox, gpubox, oldbox, stalebox])

const localHome = join(root, 'local')
mkdirSync(localHome, { mode: 0o700 })
const { SSH_AUTH_SOCK: _agent, TRAILBOSS_ALLOW_SEND: _allow, ...base } = cleanEnv()
// No shared connection: each ssh call is a login the host's log counts.
const localEnv = { ...base, TRAILBOSS_HOME: localHome, TRAILBOSS_SSH_CONFIG: config, TRAILBOSS_SSH_PERSIST: '0' }
const allowed = { ...localEnv, TRAILBOSS_ALLOW_SEND: '1' }
for (const h of [devbox, gpubox, oldbox, stalebox]) {
  const r = await runCli(['hosts', 'add', h.name], localEnv)
  if (r.code !== 0) throw new Error(r.stderr)
}

const SESSION = 'a1111111-0000-4000-8000-000000000001'
const STAND_IN = fileURLToPath(new URL('./helpers/agent-stand-in.cjs', import.meta.url))
const EMITTER = fileURLToPath(new URL('../dist/hooks/emit.cjs', import.meta.url))
const dialogScreen = fileURLToPath(new URL('./fixtures/screens/03-permission-dialog.txt', import.meta.url))
const cwd = join(root, 'proj')
const event = {
  session_id: SESSION,
  transcript_path: `${cwd}/none.jsonl`,
  cwd,
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch /home/dev/probe/x', description: 'Create probe file' },
  prompt_id: 'p1',
}
const server = startTmuxServer(t, {
  session: 'work',
  size: [200, 50],
  command: [process.execPath, STAND_IN, EMITTER, remoteTbHome, dialogScreen, JSON.stringify(event), cwd],
  env: cleanEnv({ HOME: devbox.home, TRAILBOSS_HOME: remoteTbHome }),
})
const pane = server.firstPane
await waitFor(() => /Do you want to proceed/.test(server.capture(pane)), 'the dialog on the host', 15_000)
const plain = async (): Promise<string[]> => (await runCli(['ls', '--plain'], localEnv)).stdout.split('\n').filter(Boolean)
await waitFor(async () => (await plain()).length === 4, 'the wait listed once per host', 20_000, 200)
const shown = server.capture(pane)
const logins = (host: SshHost): number => (readFileSync(join(host.dir, 'sshd.log'), 'utf8').match(/Accepted publickey/g) ?? []).length
const ok = (target: string, env: NodeJS.ProcessEnv = allowed): Promise<CliResult> => runCli(['ok', target], env)

t.test('without the opt-in here, nothing reaches the host', async (t) => {
  const before = logins(devbox)
  const r = await ok('devbox:a111', localEnv)
  t.equal(r.code, 1)
  t.match(r.stderr, /^trailboss: `ok` is off — set TRAILBOSS_ALLOW_SEND=1/)
  t.equal(logins(devbox), before, 'no ssh call to the host, not even to read it')
  t.equal(server.capture(pane), shown, 'the pane got nothing')
})

// The wait's start as devbox's record holds it (the hosts share this machine's disk): read
// directly, since a read over ssh can take seconds on a loaded machine.
const sinceOnDevbox = (): number =>
  (JSON.parse(readFileSync(join(remoteTbHome, 'sessions', `${SESSION}.json`), 'utf8')) as { since: number }).since

t.test('a wait younger than 10 s on its host is refused there', async (t) => {
  // A wait that begins now (the stand-in fires its dialog again under a new prompt id): how long
  // the set-up took on a loaded machine must not make it old enough.
  const before = sinceOnDevbox()
  process.kill(Number(server.tmux('display-message', '-p', '-t', pane, '#{pane_pid}').trim()), 'SIGUSR1')
  await waitFor(() => sinceOnDevbox() !== before, 'a new wait on devbox', 15_000, 50)
  const r = await ok('devbox:a111')
  t.equal(r.code, 1, r.stderr)
  t.match(
    r.stderr,
    /^trailboss: devbox: not answering \d+ · proj · %\d+ \(permission: Bash: touch \/home\/dev\/probe\/x\): it began \d s ago, under the 10 s asked \(--older-than\) — nothing was pressed\n$/,
  )
  t.equal(server.capture(pane), shown, 'the pane got nothing')
})

// Every later case needs the wait old enough for its host to answer it.
const oldEnough = async (): Promise<void> => {
  await new Promise((r) => setTimeout(r, Math.max(0, sinceOnDevbox() + 11_000 - Date.now())))
}

t.test('a host whose own opt-in is off refuses, and says where to turn it on', async (t) => {
  await oldEnough()
  const r = await ok('gpubox:a111')
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, /^trailboss: `ok` is off on gpubox — set TRAILBOSS_ALLOW_SEND=1 on gpubox .*this machine's setting is not passed on\n$/)
  t.equal(server.capture(pane), shown, 'the pane got nothing')
})

t.test('a host whose trailboss lacks the guard is told to update', async (t) => {
  await oldEnough()
  const r = await ok('oldbox:a111')
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, /^trailboss: oldbox's Trail Boss is too old to answer safely .* — update it there; nothing was pressed\n$/)
  t.equal(server.capture(pane), shown, 'the pane got nothing')
})

t.test('a host that does not answer: its stale row is not answered', async (t) => {
  await oldEnough()
  await stalebox.stop()
  const r = await ok('stalebox:a111')
  t.equal(r.code, 1, r.stderr)
  t.match(
    r.stderr,
    /^trailboss: not answering \d+ · proj · stalebox:%\d+ \(permission: .*\): stalebox did not answer just now \(could not connect.*\); its row is its last known queue.* — nothing was sent\n$/,
  )
  t.equal(server.capture(pane), shown, 'the pane got nothing')
})

t.test("ok by host:key presses the key in the host's pane, through its trailboss", async (t) => {
  await oldEnough()
  const r = await ok('devbox:a111')
  t.equal(r.code, 0, r.stderr)
  t.match(
    r.stderr,
    /^trailboss: allowed \d+ · proj · devbox:%\d+ \(permission: Bash: touch \/home\/dev\/probe\/x\)\ndevbox: trailboss: allowed \d+ · proj · %\d+ \(permission: Bash: touch \/home\/dev\/probe\/x\)\n$/,
  )
  t.not(server.capture(pane), shown, 'the pane received the key')
})
