// The exec seam against a real tmux on a private socket: what it answers (output, errors, exit
// codes, a timeout, no tmux at all) is the same whether tmux started on libuv's process handle
// with its output to scratch files (the usual way), through child_process (a Node that gives no
// process handle) or with pipes (when no scratch file can be made); no scratch file stays behind.
import t, { type Test } from 'tap'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execTmux, TmuxUnavailable } from '../lib/tmux/exec.js'
import { deriveSpawnShape } from '../lib/tmux/spawn-handle.js'
import { cleanEnv, startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

const scratch = mkdtempSync(join(tmpdir(), 'tb-exec-scratch-'))
t.teardown(() => rmSync(scratch, { recursive: true, force: true }))
const before = process.env.TMPDIR
/** execTmux makes its scratch files in $TMPDIR, read at each call; so does the test server's folder. */
const useTmpdir = (t: Test, dir: string): void => {
  process.env.TMPDIR = dir
  t.teardown(() => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
  })
}

const ways = [
  { name: 'scratch files', tmpdir: scratch, handle: true },
  { name: 'scratch files, child_process (no process handle)', tmpdir: scratch, handle: false },
  { name: 'pipes (no scratch file can be made)', tmpdir: join(scratch, 'missing'), handle: true },
]

/** A Node whose process.binding refuses: what spawn-handle.ts meets where Node gives no handle. */
const withoutBindings = (t: Test): void => {
  const proc = process as unknown as { binding: (name: string) => unknown }
  const real = proc.binding
  proc.binding = (name: string) => {
    throw new Error(`No such module: ${name}`)
  }
  t.teardown(() => {
    proc.binding = real
  })
}

/** A pane that printed one line longer than a pipe's buffer (64 KiB), then END. */
const LONG = 100_000
const PRINTER = ['sh', '-c', `head -c ${LONG} /dev/zero | tr '\\0' x; echo; echo END; exec sleep 1000`]

t.test("the process handle's spawn, called in the shape its Node takes", async (t) => {
  t.equal(deriveSpawnShape(20, {}), 'options', 'Node 20: one options object')
  t.equal(deriveSpawnShape(22, {}), 'options', 'Node 22: the same')
  t.equal(deriveSpawnShape(24, { constants: { kProcessFlagDetached: 1 } }), 'positional', 'Node 24: positional, with its flag constants')
  t.equal(deriveSpawnShape(22, { constants: { kProcessFlagDetached: 1 } }), 'positional', 'a 22 with the change backported: by its shape')
  t.equal(deriveSpawnShape(24, {}), null, 'a 24 without the constants: not a shape known here')
  t.equal(deriveSpawnShape(24, { constants: {} }), null)
  t.equal(deriveSpawnShape(26, { constants: { kProcessFlagDetached: 1 } }), null, 'a major never tried: child_process')
  t.equal(deriveSpawnShape(21, {}), null)
})

for (const way of ways) {
  t.test(`execTmux through ${way.name}`, async (t) => {
    const server = startTmuxServer(t, { command: PRINTER, size: [200, 50] })
    await waitFor(() => server.capture(server.firstPane).includes('END'), 'the long line printed')
    useTmpdir(t, way.tmpdir)
    if (!way.handle) withoutBindings(t)
    const env = cleanEnv()
    const listed = await execTmux(['list-panes', '-a', '-F', '#{pane_id} #{session_name}'], { socket: server.socket, env })
    t.same(listed, { stdout: `${server.firstPane} main\n`, stderr: '', code: 0 })
    const captured = await execTmux(['capture-pane', '-p', '-J', '-S', '-', '-t', server.firstPane], { socket: server.socket, env })
    t.ok(captured.stdout.includes(`${'x'.repeat(LONG)}\nEND\n`), 'output longer than a pipe holds arrives whole')
    const bad = await execTmux(['list-panes', '-t', '%99'], { socket: server.socket, env })
    t.not(bad.code, 0, 'a failed command exits non-zero')
    t.match(bad.stderr, /can't find pane|%99/, "tmux's own message comes back on stderr")
    t.equal(bad.stdout, '')
    const gone = await execTmux(['list-panes'], { socket: join(server.dir, 'no-such-socket'), env })
    t.not(gone.code, 0)
    t.match(gone.stderr, /no server running|error connecting|No such file/i, 'no server: said on stderr')
    // A client that waits longer than its time is stopped (tmux exits 0 on the SIGTERM; this
    // test would hang until tap's own timeout without it).
    // The server's job outlives the client: tmux waits for its jobs before it exits, even on
    // kill-server, so the job writes its pid and is ended here (else the server lingers).
    const jobPid = join(server.dir, 'job.pid')
    const slow = await execTmux(['run-shell', `echo $$ > ${jobPid}; exec sleep 1000`], { socket: server.socket, env, timeoutMs: 300 })
    t.equal(slow.stdout, '', 'stopped at its timeout, with nothing printed')
    await waitFor(() => existsSync(jobPid) && readFileSync(jobPid, 'utf8').trim() !== '', 'the job wrote its pid')
    process.kill(Number(readFileSync(jobPid, 'utf8')), 'SIGKILL')
    await t.rejects(
      execTmux(['list-panes'], { socket: server.socket, env: { ...env, PATH: join(scratch, 'empty') } }),
      TmuxUnavailable,
      'tmux not on PATH',
    )
    t.same(readdirSync(scratch), [], 'no scratch file left behind')
  })
}
