// The process's own standard output, as commands write it: straight to the descriptor when it
// is a pipe or a file. Real FIFOs, real readers.
import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { descriptorOut } from '../lib/io.js'
import { CLI, runCli } from './helpers/cli.js'
import { tempDir } from './helpers/emitter.js'
import { eventually } from './helpers/wait-for.js'

const fifo = (t: Parameters<typeof tempDir>[0]): string => {
  const path = join(tempDir(t), 'fifo')
  execFileSync('mkfifo', [path])
  return path
}

/** A non-blocking FIFO filled to the brim, with a reader end that never reads. */
const fullFifo = (t: Parameters<typeof tempDir>[0]): { path: string; fd: number; holder: number; filled: number } => {
  const path = fifo(t)
  // A reader must exist for a non-blocking open; ours never reads, so the pipe fills.
  const holder = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
  // Filled before the write: its first attempt meets EAGAIN, whatever the timing.
  const filler = Buffer.alloc(4096, 'f')
  let filled = 0
  for (;;) {
    try {
      filled += fs.writeSync(fd, filler)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break
      throw err
    }
  }
  return { path, fd, holder, filled }
}

t.test('a full non-blocking pipe is waited on, and nothing is lost', async (t) => {
  const out = join(tempDir(t), 'out')
  const { path, fd, holder, filled } = fullFifo(t)
  t.ok(filled > 0, `the pipe holds ${filled} bytes and takes no more`)
  const reader = spawn('sh', ['-c', 'exec cat "$0" > "$1"', path, out])
  const closed = new Promise((resolve) => reader.on('close', resolve))
  const text = 'x'.repeat(1023).concat('\n').repeat(1024) // 1 MiB, sixteen times a pipe's buffer
  t.equal(descriptorOut(fd).write(text), true, 'the write waited for the reader (EAGAIN) instead of failing')
  fs.closeSync(fd)
  fs.closeSync(holder)
  await closed
  t.equal(fs.readFileSync(out, 'utf8'), 'f'.repeat(filled) + text, 'nothing lost, nothing reordered')
})

t.test('a reader that went away ends the output quietly', async (t) => {
  const path = fifo(t)
  const reader = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
  fs.closeSync(reader)
  const out = descriptorOut(fd)
  t.equal(out.write('first\n'), false, 'EPIPE: nothing to write to')
  t.equal(out.write('second\n'), false, 'and the rest is dropped without another try')
  fs.closeSync(fd)
})

t.test('`trailboss ls --json | head -c 1`: exit 0, nothing on stderr', async (t) => {
  const home = tempDir(t)
  const sessions = join(home, 'tb', 'sessions')
  fs.mkdirSync(sessions, { recursive: true })
  // Enough skipped files that the JSON is far larger than a pipe's buffer.
  for (let i = 0; i < 2000; i++) fs.writeFileSync(join(sessions, `broken-${String(i).padStart(4, '0')}.json`), '{')
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(home, 'tb'),
    CLAUDE_CONFIG_DIR: join(home, 'claude'),
  }
  const whole = await runCli(['ls', '--json'], env)
  t.ok(whole.stdout.length > 200_000, `the output is ${whole.stdout.length} bytes`)
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, 'ls', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    // The reader takes one chunk and leaves, as `head -c 1` does.
    child.stdout.once('data', () => child.stdout.destroy())
    child.on('close', (code) => resolve({ code, stderr }))
  })
  t.equal(r.code, 0)
  t.notMatch(r.stderr, /EPIPE|Error|at /, 'no stack trace')
  t.match(r.stderr, /skipped .*broken-1999\.json/, 'the rest of the run went on')
})

t.test('a full non-blocking pipe that takes no byte for the stall limit counts as gone', async (t) => {
  const { fd, holder } = fullFifo(t)
  const out = descriptorOut(fd, { stallMs: 300, parentPid: process.ppid })
  t.equal(out.write('more\n'), false, 'given up instead of waiting for ever')
  t.equal(out.readerGone, true, 'commands that would write on stop')
  t.equal(out.write('again\n'), false, 'and nothing more is tried')
  fs.closeSync(fd)
  fs.closeSync(holder)
})

/** Whether a process still runs (a zombie waiting for its reaper has ended). */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

// Issue #13: an orphaned `ls --json` whose stdout was a non-blocking socket, its reader alive
// but no longer reading, waited 1 ms at a time for ever.
t.test('an orphaned CLI whose non-blocking socket stays full ends', { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t)
  const home = join(dir, 'home')
  const sessions = join(home, 'tb', 'sessions')
  fs.mkdirSync(sessions, { recursive: true })
  // Far more JSON than a Unix socket buffers (about 200 KB on Linux).
  for (let i = 0; i < 6000; i++) fs.writeFileSync(join(sessions, `broken-${String(i).padStart(4, '0')}.json`), '{')
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(home, 'tb'),
    CLAUDE_CONFIG_DIR: join(home, 'claude'),
  }

  // The reader: accepts the connection, takes a first chunk, then no more.
  const held: Socket[] = []
  let written = false
  const server = createServer((socket) => {
    held.push(socket)
    // One chunk read, then no more.
    socket.once('data', () => {
      written = true
      socket.pause()
    })
  })
  const address = join(dir, 'reader.sock')
  await new Promise<void>((resolve) => server.listen(address, resolve))
  t.teardown(() => {
    for (const s of held) s.destroy()
    server.close()
  })

  // The parent: connects, starts the CLI on the socket, says its pid and exits, leaving the
  // CLI orphaned.
  const parent = `
    const net = require('node:net'), { spawn } = require('node:child_process')
    const socket = net.connect(process.argv[1], () => {
      const cli = spawn(process.execPath, [process.argv[2], 'ls', '--json'], { detached: true, stdio: ['ignore', socket, 'ignore'] })
      // The child's start made the shared socket blocking; a second handle on it makes it
      // non-blocking again, as another process holding the socket might.
      new net.Socket({ fd: socket._handle.fd, readable: false })
      // The flags belong to the open socket, shared by the CLI's descriptor.
      const fdinfo = require('node:fs').readFileSync('/proc/self/fdinfo/' + socket._handle.fd, 'utf8')
      process.stdout.write(cli.pid + ' ' + /^flags:\\s+(\\d+)/m.exec(fdinfo)[1])
      // Exits once told: after the CLI started writing, so the CLI knew its first parent.
      process.stdin.on('data', () => process.exit(0)).resume()
    })`
  const launched = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['-e', parent, address, CLI], { env, stdio: ['pipe', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    void eventually(() => written, 60_000, 20).then(() => child.stdin.end('exit\n'))
    child.on('close', (code) => resolve({ code, stdout }))
  })
  t.equal(launched.code, 0, 'the parent started the CLI and exited')
  const [pidText = '', flags = '0'] = launched.stdout.split(' ')
  const pid = Number(pidText)
  t.ok(pid > 0, `the CLI runs as pid ${pid}`)
  t.teardown(() => {
    if (running(pid)) process.kill(pid, 'SIGKILL')
  })
  t.ok((parseInt(flags, 8) & fs.constants.O_NONBLOCK) !== 0, `its stdout is non-blocking (flags ${flags})`)

  t.ok(await eventually(() => !running(pid), 60_000, 50), 'the CLI ended though its reader stopped reading')
  t.ok(held.length === 1 && !held[0]!.destroyed, 'while the reader still held the socket open')
})

/**
 * A process that writes a line on each output, lets them go through processIo's releaseOutput,
 * then waits for its stdin to end before writing again and exiting.
 */
const releasingChild = (stdout: 'pipe' | number): ReturnType<typeof spawn> => {
  const io = new URL('../lib/io.ts', import.meta.url).href
  const script = [
    `const { processIo } = await import(${JSON.stringify(io)})`,
    'const io = processIo()',
    "io.stdout.write('line\\n')",
    "io.stderr.write('warning\\n')",
    'await io.releaseOutput()',
    "process.stdin.on('data', () => {})",
    "process.stdin.on('end', () => { io.stdout.write('after\\n'); io.stderr.write('after\\n') })",
  ].join('\n')
  return spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', script], { stdio: ['pipe', stdout, 'pipe'] })
}

t.test('releaseOutput: the readers of a pipe get the whole output and its end while the process goes on', async (t) => {
  const child = releasingChild('pipe')
  let out = ''
  let err = ''
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()))
  const ended = (s: NodeJS.ReadableStream | null): Promise<void> => new Promise((resolve) => s?.on('end', resolve))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  // Without the release the ends would come only at exit, which waits for stdin: let it go on
  // rather than hang, and the check below fails.
  const unstick = setTimeout(() => child.stdin?.end(), 10_000)
  await Promise.all([ended(child.stdout), ended(child.stderr)])
  t.ok(child.pid !== undefined && running(child.pid), 'both outputs ended while the process still ran')
  clearTimeout(unstick)
  t.equal(out, 'line\n', 'stdout whole')
  t.equal(err, 'warning\n', "stderr whole (Node's own stream, written before it was let go)")
  child.stdin?.end()
  t.equal(await exited, 0, 'a write after the release goes nowhere, and fails nothing')
  t.equal(out, 'line\n')
})

t.test('releaseOutput keeps a file as it is: its reader waits for no end', async (t) => {
  const file = join(tempDir(t), 'out')
  const fd = fs.openSync(file, 'w')
  const child = releasingChild(fd)
  fs.closeSync(fd)
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  child.stderr?.resume()
  child.stdin?.end()
  t.equal(await exited, 0)
  t.equal(fs.readFileSync(file, 'utf8'), 'line\nafter\n', 'the write after the release still goes to the file')
})
