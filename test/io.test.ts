// The process's own standard output, as commands write it: straight to the descriptor when it
// is a pipe or a file. Real FIFOs, real readers.
import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { descriptorOut } from '../lib/io.js'
import { CLI, runCli } from './helpers/cli.js'
import { tempDir } from './helpers/emitter.js'

const fifo = (t: Parameters<typeof tempDir>[0]): string => {
  const path = join(tempDir(t), 'fifo')
  execFileSync('mkfifo', [path])
  return path
}

t.test('a full non-blocking pipe is waited on, and nothing is lost', async (t) => {
  const path = fifo(t)
  const out = join(tempDir(t), 'out')
  // A reader must exist for a non-blocking open; ours never reads, so the pipe fills.
  const holder = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
  // Filled to the brim before the write: its first attempt meets EAGAIN, whatever the timing.
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
  const env = { PATH: process.env.PATH, HOME: home, TRAILBOSS_HOME: join(home, 'tb'), CLAUDE_CONFIG_DIR: join(home, 'claude') }
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
