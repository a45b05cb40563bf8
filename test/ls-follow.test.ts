// `ls --json --follow`: the document at start, then one line per change of the queue, nothing
// while nothing changes, and an end when its reader or its parent goes. `ls --json
// --until-change <digest>`: one document, once the queue differs from the digest's.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import t from 'tap'
import { parseFast } from '../lib/cli/fast-args.js'
import { LS_OPTIONS } from '../lib/options/tables.js'
import { READ_AT_SLACK_MS, runLsFollow } from '../lib/commands/ls-follow.js'
import { listingDigest } from '../lib/navigate/listing.js'
import type { Env } from '../lib/paths.js'
import { captureIo } from './helpers/io.js'
import { CLI } from './helpers/cli.js'
import { baseEnv, payload, runEmitter, tempDir, waitFor } from './helpers/emitter.js'

/** Running, not merely a zombie its new parent has not reaped (Linux: its state in /proc). */
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return !fs.existsSync('/proc/self/stat')
  }
}

const follow = (env: Record<string, string | undefined>) => {
  const child = spawn(process.execPath, [CLI, 'ls', '--json', '--follow'], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let buf = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString('utf8')
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      lines.push(buf.slice(0, i))
      buf = buf.slice(i + 1)
    }
  })
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, lines, stderr: () => stderr, exited }
}

const keysOf = (line: string | undefined): string[] =>
  line ? (JSON.parse(line) as { queue: { sessionId: string }[] }).queue.map((i) => i.sessionId) : []

t.test('the queue at start, then a line each time it changes, and none while it does not', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const f = follow(env)
  t.teardown(() => void f.child.kill('SIGKILL'))
  t.ok(await waitFor(() => f.lines.length === 1, 20_000), `the first document (${f.stderr()})`)
  const first = JSON.parse(f.lines[0] ?? '{}') as { version: number; queue: unknown[] }
  t.equal(first.version, 2, "ls --json's contract")
  t.same(keysOf(f.lines[0]), ['s-one'], 'the wait there at start')
  await runEmitter(JSON.stringify(payload('s-two', 'Stop', { last_assistant_message: 'Which one?' })), env)
  t.ok(await waitFor(() => f.lines.length === 2, 20_000), 'a new wait: a new line')
  t.same(keysOf(f.lines[1]), ['s-one', 's-two'])
  // A write that leaves the queue as it was (a working session's own events) prints nothing.
  await runEmitter(JSON.stringify(payload('s-three', 'UserPromptSubmit', { prompt: 'go on' })), env)
  await runEmitter(JSON.stringify(payload('s-two', 'UserPromptSubmit', { prompt: 'the second' })), env)
  t.ok(await waitFor(() => f.lines.length === 3, 20_000), 'an answered wait: a new line')
  t.same(keysOf(f.lines[2]), ['s-one'])
  // The line for s-three's prompt (nothing changed) would have come before the one for s-two.
  t.equal(f.lines.length, 3, 'no line for a change that left the queue as it was')
})

t.test('it ends when its reader goes, and when its parent is killed', async (t) => {
  const env = baseEnv(tempDir(t))
  const f = follow(env)
  t.teardown(() => void f.child.kill('SIGKILL'))
  t.ok(await waitFor(() => f.lines.length === 1, 20_000), 'started')
  f.child.stdout.destroy()
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  t.equal(await f.exited, 0, 'its next line found no reader: it ended, exit 0')

  // A parent killed outright: the follower, now another process's child, notices within its check.
  const pidFile = `${env.TRAILBOSS_HOME}.pid`
  const outFile = `${env.TRAILBOSS_HOME}.out`
  const sh = spawn(
    '/bin/sh',
    ['-c', `"$0" "$1" ls --json --follow > "$3" & echo $! > "$2"; wait`, process.execPath, CLI, pidFile, outFile],
    { env: env as NodeJS.ProcessEnv, stdio: 'ignore' },
  )
  const started = (f: string): boolean => fs.existsSync(f) && fs.readFileSync(f, 'utf8').trim() !== ''
  t.ok(await waitFor(() => started(pidFile) && started(outFile), 20_000), 'the follower started under sh')
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim())
  t.teardown(() => {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  })
  t.ok(isAlive(pid), 'running')
  sh.kill('SIGKILL')
  t.ok(await waitFor(() => !isAlive(pid), 40_000, 100), 'gone after its parent was killed')
})

/** One `ls --json --until-change <digest> [extra…]` run: its output and exit code once it ends. */
const untilChange = (env: Record<string, string | undefined>, digest: string, extra: string[] = []) => {
  const child = spawn(process.execPath, [CLI, 'ls', '--json', '--until-change', digest, ...extra], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  let ended = false
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))).finally(() => (ended = true))
  return { child, stdout: () => stdout, stderr: () => stderr, exited, ended: () => ended }
}

interface Doc {
  version: number
  queue: { sessionId: string }[]
  digest: string
}

const lsJson = async (env: Record<string, string | undefined>): Promise<Doc> => {
  const child = spawn(process.execPath, [CLI, 'ls', '--json'], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
  await new Promise((resolve) => child.on('close', resolve))
  return JSON.parse(out) as Doc
}

t.test('listingDigest: 16 hex digits that change with any part of the document, the same for the same content', async (t) => {
  const doc = {
    version: 1,
    queue: Array.from({ length: 40 }, (_, i) => ({ n: i + 1, key: `k${i}`, ask: { message: `wait ${i} ✓` } })),
    tmux: 'ok',
    skipped: [],
  }
  const d = listingDigest(doc)
  t.match(d, /^[0-9a-f]{16}$/)
  t.equal(listingDigest(JSON.parse(JSON.stringify(doc)) as object), d, 'the same content, another object: the same digest')
  // One character changed near the start, in the middle and at the end of the text.
  for (const i of [0, 20, 39]) {
    const other = structuredClone(doc)
    const item = other.queue[i]
    if (item) item.ask.message = `wait ${i} ✗`
    t.not(listingDigest(other), d, `item ${i} changed`)
  }
  t.not(listingDigest({ ...doc, tmux: 'unavailable' }), d, 'the last field changed')
  t.not(listingDigest({ ...doc, queue: doc.queue.slice(1) }), d, 'an item fewer')
})

t.test('ls --json carries a digest of the queue: the same queue, the same digest, in --follow lines too', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const a = await lsJson(env)
  t.match(a.digest, /^[0-9a-f]{16}$/)
  t.equal((await lsJson(env)).digest, a.digest, 'read again: the same digest')
  const f = follow(env)
  t.teardown(() => void f.child.kill('SIGKILL'))
  t.ok(await waitFor(() => f.lines.length === 1, 20_000), "the follower's first line")
  t.equal((JSON.parse(f.lines[0] ?? '{}') as Doc).digest, a.digest, 'the one-line document has the same digest')
  await runEmitter(JSON.stringify(payload('s-two', 'Stop', { last_assistant_message: 'Which one?' })), env)
  t.ok(await waitFor(() => f.lines.length === 2, 20_000), 'a new wait')
  t.not((JSON.parse(f.lines[1] ?? '{}') as Doc).digest, a.digest, 'another queue, another digest')
})

t.test('ls --json --until-change: waits while the queue is the one it was given, prints the changed one once and exits', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const before = await lsJson(env)

  // A digest that is not the queue's (an older queue): the answer comes at once.
  const stale = untilChange(env, '0000000000000000')
  t.equal(await stale.exited, 0, stale.stderr())
  t.same(JSON.parse(stale.stdout()), before, 'the current document, as ls --json prints it')

  const u = untilChange(env, before.digest)
  t.teardown(() => void u.child.kill('SIGKILL'))
  // A write that leaves the queue as it was (a working session's prompt) ends nothing: had it
  // ended the wait, the document printed would be the old queue.
  await runEmitter(JSON.stringify(payload('s-three', 'UserPromptSubmit', { prompt: 'go on' })), env)
  const other = untilChange(env, before.digest)
  t.teardown(() => void other.child.kill('SIGKILL'))
  await runEmitter(JSON.stringify(payload('s-three', 'Stop', { last_assistant_message: 'Ready?' })), env)
  t.equal(await u.exited, 0, u.stderr())
  const after = JSON.parse(u.stdout()) as Doc
  t.same(after.queue.map((i) => i.sessionId).sort(), ['s-one', 's-three'], 'the changed queue, in one document')
  t.not(after.digest, before.digest)
  t.same(after, await lsJson(env), 'what ls --json prints now')
  t.equal(await other.exited, 0, 'a second waiter ends as well')
  t.equal(other.stdout(), u.stdout())
})

t.test('ls --json --until-change: the unchanged document after its longest wait', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const before = await lsJson(env)
  const io = captureIo(env as Env)
  const args = parseFast(['--json', '--until-change', before.digest], LS_OPTIONS)
  if (!args) throw new Error('the arguments did not parse')
  const code = await runLsFollow(args, io, { maxWaitMs: 500 })
  t.equal(code, 0, io.err())
  t.same(JSON.parse(io.out()), before, 'the same document, printed once')
})

t.test('ls --json --until-change --read-at: nothing written since that moment, nothing read, and the wait ends empty', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const before = await lsJson(env)
  // A write within the slack before --read-at counts as after it (the kernel's coarse clock):
  // the moment given lies past it, as a caller's read some time after the last event would.
  await new Promise((r) => setTimeout(r, READ_AT_SLACK_MS + 20))
  const io = captureIo(env as Env)
  // The digest given is not the queue's: a run that read the queue would answer with it at once.
  const args = parseFast(['--json', '--until-change', '0000000000000000', '--read-at', String(Date.now())], LS_OPTIONS)
  if (!args) throw new Error('the arguments did not parse')
  const code = await runLsFollow(args, io, { maxWaitMs: 500 })
  t.equal(code, 0, io.err())
  t.equal(io.out(), '', 'nothing printed: the folder was not written after --read-at')
  t.match(before.digest, /^[0-9a-f]{16}$/)
})

t.test('ls --json --until-change --read-at: a write after that moment, before the run began, is read at once', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const before = await lsJson(env)
  const readAt = Date.now()
  await runEmitter(JSON.stringify(payload('s-two', 'Stop', { last_assistant_message: 'Which one?' })), env)
  const u = untilChange(env, before.digest, ['--read-at', String(readAt)])
  t.teardown(() => void u.child.kill('SIGKILL'))
  t.equal(await u.exited, 0, u.stderr())
  t.same(JSON.parse(u.stdout()), await lsJson(env), 'the changed queue')
})

t.test(
  'ls --json --until-change --read-at: a write while it waits wakes it; one that leaves the queue as it was does not end it',
  async (t) => {
    const env = baseEnv(tempDir(t))
    await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
    const before = await lsJson(env)
    const u = untilChange(env, before.digest, ['--read-at', String(Date.now())])
    t.teardown(() => void u.child.kill('SIGKILL'))
    // A session that starts working: its record is written, the queue stays as it was.
    await runEmitter(JSON.stringify(payload('s-three', 'UserPromptSubmit', { prompt: 'go on' })), env)
    await runEmitter(JSON.stringify(payload('s-three', 'Stop', { last_assistant_message: 'Ready?' })), env)
    t.equal(await u.exited, 0, u.stderr())
    const after = JSON.parse(u.stdout()) as Doc
    t.same(after.queue.map((i) => i.sessionId).sort(), ['s-one', 's-three'], 'the changed queue, in one document')
    t.same(after, await lsJson(env), 'what ls --json prints now')
  },
)

t.test('ls --json --until-change --read-at: a seen mark (ack from another shell) wakes it within 2 s', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const before = await lsJson(env)
  const u = untilChange(env, before.digest, ['--read-at', String(Date.now())])
  t.teardown(() => void u.child.kill('SIGKILL'))
  // Give it time to set its watch up: a mark written before that shows in the folder's mtime too.
  await new Promise((r) => setTimeout(r, 500))
  const ack = spawn(process.execPath, [CLI, 'ack', '1'], { env: env as NodeJS.ProcessEnv, stdio: 'ignore' })
  const acked = await new Promise<number>((resolve) => ack.on('exit', () => resolve(Date.now())))
  const answered = await Promise.race([u.exited.then(() => Date.now()), new Promise<null>((r) => setTimeout(() => r(null), 5000))])
  t.ok(
    answered !== null && answered - acked <= 2000,
    `answered ${answered === null ? 'not within 5 s' : `${answered - acked} ms`} after the ack`,
  )
  const after = JSON.parse(u.stdout() || '{"queue":[]}') as { queue: { sessionId: string; seen: boolean }[] }
  t.same(
    after.queue.map((i) => [i.sessionId, i.seen]),
    [['s-one', true]],
    'the wait, seen',
  )
})

t.test('ls --json --until-change --read-at: a wait with nothing written ends when its parent is killed', async (t) => {
  const env = baseEnv(tempDir(t))
  await runEmitter(JSON.stringify(payload('s-one', 'Stop', { last_assistant_message: 'Done?' })), env)
  const before = await lsJson(env)
  const pidFile = `${env.TRAILBOSS_HOME}.pid`
  const sh = spawn(
    '/bin/sh',
    [
      '-c',
      `"$0" "$1" ls --json --until-change "$3" --read-at "$4" & echo $! > "$2"; wait`,
      process.execPath,
      CLI,
      pidFile,
      before.digest,
      String(Date.now()),
    ],
    {
      env: env as NodeJS.ProcessEnv,
      stdio: 'ignore',
    },
  )
  t.ok(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 20_000), 'the wait started under sh')
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim())
  t.teardown(() => {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  })
  // Its watch is set up (a run that read the queue and found it unchanged would look the same).
  const watching = (): boolean => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === 'anon_inode:inotify')
    } catch {
      return false
    }
  }
  t.ok(await waitFor(watching, 20_000), 'watching')
  sh.kill('SIGKILL')
  t.ok(await waitFor(() => !isAlive(pid), 40_000, 100), 'gone after its parent was killed')
})

t.test('--read-at goes with --until-change, as ms since the epoch', async (t) => {
  const env = baseEnv(tempDir(t))
  for (const args of [
    ['ls', '--json', '--read-at', '1'],
    ['ls', '--json', '--until-change', 'abc', '--read-at', 'soon'],
  ]) {
    const child = spawn(process.execPath, [CLI, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    t.equal(code, 2, `${args.join(' ')}: a usage error`)
    t.match(err, /--read-at goes with --until-change/)
  }
})

t.test('--until-change goes with --json only', async (t) => {
  const env = baseEnv(tempDir(t))
  for (const args of [
    ['ls', '--until-change', 'abc'],
    ['ls', '--json', '--follow', '--until-change', 'abc'],
    ['ls', '--json', '--exit-status', '--until-change', 'abc'],
  ]) {
    const child = spawn(process.execPath, [CLI, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    t.equal(code, 2, `${args.join(' ')}: a usage error`)
    t.match(err, /--until-change goes with --json/)
  }
})
