// How the built emitter reads its event, whatever its stdin is: a socket (what Node gives a
// child for a "pipe", so Claude Code's and Gemini CLI's hooks), a pipe or FIFO (Codex's), a
// regular file, /dev/null, a terminal. Real child processes; the modules each one loaded are
// read from process.moduleLoadList through a preload that writes them at exit.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { EMITTER, baseEnv, listTree, payload, readSession, tempDir, type ChildEnv } from './helpers/emitter.js'

t.setTimeout(300_000) // a bound for hangs; a loaded 2-core machine needs minutes

const INTERACTIVE = { TMUX: '/tmp/tmux-1000/default,800,0', TMUX_PANE: '%7', CLAUDE_CODE_ENTRYPOINT: 'cli' }
const hasScript = spawnSync('script', ['--version']).status === 0

interface Home {
  root: string
  env: ChildEnv
  sessions: string
  log: string
  modules: string
  preload: string
}

const makeHome = (t: Test): Home => {
  const root = tempDir(t)
  fs.mkdirSync(join(root, 'home'))
  const modules = join(root, 'modules.txt')
  const preload = join(root, 'modules.cjs')
  fs.writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(modules)}, process.moduleLoadList.join('\\n')))\n`,
  )
  const env = baseEnv(root, INTERACTIVE)
  return { root, env, sessions: join(env.TRAILBOSS_HOME!, 'sessions'), log: join(env.TRAILBOSS_HOME!, 'log'), modules, preload }
}

const logText = (home: Home): string => (fs.existsSync(home.log) ? fs.readFileSync(home.log, 'utf8') : '')
const loaded = (home: Home): string[] => fs.readFileSync(home.modules, 'utf8').split('\n')
/** Node's socket and stream modules, which process.stdin on a pipe or a socket loads. */
const streamModules = (home: Home): string[] =>
  loaded(home).filter((m) => /^NativeModule (net|stream|internal\/streams\/readable)$/.test(m))

interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * The emitter's command line, run through env(1) without NODE_OPTIONS: the test runner puts its
 * own loader there for every child, and that loader loads the very modules looked for here.
 */
const command = (home: Home): string[] => ['-u', 'NODE_OPTIONS', process.execPath, '-r', home.preload, EMITTER]

/** Starts the built emitter (with the preload) on the given stdin; `feed` gets its stdin pipe, if any. */
const start = (home: Home, stdin: number | 'pipe', feed?: (w: NodeJS.WritableStream) => void): Promise<Exit> =>
  new Promise((resolve) => {
    const child = spawn('env', command(home), { env: home.env as NodeJS.ProcessEnv, stdio: [stdin, 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (c: Buffer) => out.push(c))
    child.stderr!.on('data', (c: Buffer) => err.push(c))
    child.stdin?.on('error', () => {})
    if (child.stdin && feed) feed(child.stdin)
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    )
  })

const quiet = (t: Test, r: Exit, what: string): void => {
  t.equal(r.code, 0, `${what}: exit 0`)
  t.equal(r.signal, null, `${what}: it exited on its own`)
  t.equal(r.stdout, '', `${what}: nothing on stdout`)
  t.equal(r.stderr, '', `${what}: nothing on stderr`)
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** The event in three pieces, a pause between them: a writer slower than the emitter's start-up. */
const inPieces = (text: string): string[] => [text.slice(0, 10), text.slice(10, 40), text.slice(40)]

/** A named FIFO with its read end for the child and its write end for the test, both blocking. */
const fifo = (home: Home): { reader: number; writer: number } => {
  const path = join(home.root, 'stdin.fifo')
  execFileSync('mkfifo', [path])
  // Opening one end waits for the other: a non-blocking reader first lets the writer open at once.
  const probe = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  const writer = fs.openSync(path, fs.constants.O_WRONLY)
  const reader = fs.openSync(path, fs.constants.O_RDONLY)
  fs.closeSync(probe)
  return { reader, writer }
}

t.test('a socket (a Node parent): read whole, in pieces, without loading net or streams', async (t) => {
  const home = makeHome(t)
  const text = JSON.stringify(payload('sock1', 'Stop', { last_assistant_message: 'Done.' }))
  const r = await start(home, 'pipe', (w) => {
    void (async () => {
      for (const piece of inPieces(text)) {
        w.write(piece)
        await pause(150)
      }
      w.end()
    })()
  })
  quiet(t, r, 'socket')
  t.equal(readSession(home.sessions, 'sock1').view?.state, 'waiting', 'the whole event was read')
  t.same(streamModules(home), [], 'no net or stream modules loaded')
  t.equal(logText(home), '', 'nothing to log')
})

t.test('a pipe (a shell pipeline), in pieces: read whole, without loading net or streams', async (t) => {
  const home = makeHome(t)
  const [a, b, c] = inPieces(JSON.stringify(payload('pipe1', 'Stop')))
  const script = `printf '%s' "$A"; sleep 0.2; printf '%s' "$B"; sleep 0.2; printf '%s' "$C"`
  const r = spawnSync('sh', ['-c', `(${script}) | env -u NODE_OPTIONS "$NODE" -r "$PRELOAD" "$EMITTER"`], {
    env: { ...home.env, A: a, B: b, C: c, NODE: process.execPath, PRELOAD: home.preload, EMITTER } as NodeJS.ProcessEnv,
    encoding: 'utf8',
  })
  quiet(t, { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr }, 'pipe')
  t.equal(readSession(home.sessions, 'pipe1').view?.state, 'waiting', 'the whole event was read')
  t.same(streamModules(home), [], 'no net or stream modules loaded')
})

t.test('a FIFO written in pieces, then closed: read whole', async (t) => {
  const home = makeHome(t)
  const { reader, writer } = fifo(home)
  const done = start(home, reader)
  fs.closeSync(reader)
  for (const piece of inPieces(JSON.stringify(payload('fifo1', 'Stop')))) {
    fs.writeSync(writer, piece)
    await pause(150)
  }
  fs.closeSync(writer)
  quiet(t, await done, 'FIFO')
  t.equal(readSession(home.sessions, 'fifo1').view?.state, 'waiting')
  t.same(streamModules(home), [])
})

t.test('a regular file on stdin, and /dev/null', async (t) => {
  const home = makeHome(t)
  const file = join(home.root, 'event.json')
  fs.writeFileSync(file, JSON.stringify(payload('file1', 'Stop')))
  const fd = fs.openSync(file, 'r')
  quiet(t, await start(home, fd), 'file')
  fs.closeSync(fd)
  t.equal(readSession(home.sessions, 'file1').view?.state, 'waiting')
  t.same(streamModules(home), [])

  const nul = fs.openSync('/dev/null', 'r')
  quiet(t, await start(home, nul), '/dev/null')
  fs.closeSync(nul)
  t.match(logText(home), /stdin is not JSON \(0 bytes\)/, 'an empty stdin is said in the log')
  t.same(streamModules(home), [])
  t.same(
    listTree(home.sessions).filter((p) => !p.startsWith('.')),
    ['file1.json'],
    'nothing recorded for /dev/null',
  )
})

t.test('stdin never closed: a FIFO, a socket and a terminal each end at the stdin deadline, logged', async (t) => {
  const homes = [makeHome(t), makeHome(t), makeHome(t)]
  const [fifoHome, sockHome, ttyHome] = homes as [Home, Home, Home]
  const { reader, writer } = fifo(fifoHome)
  const unfinished = '{"session_id":"open1","hook_event_name":"Stop"'
  fs.writeSync(writer, unfinished)
  const runs: Promise<Exit>[] = [start(fifoHome, reader), start(sockHome, 'pipe', (w) => w.write(unfinished))]
  fs.closeSync(reader)
  // A terminal from script(1): the emitter's stdin is a pty that nobody types into.
  if (hasScript) {
    runs.push(
      new Promise((resolve) => {
        const cmd = `env ${command(ttyHome)
          .map((a) => `'${a}'`)
          .join(' ')}`
        const child = spawn('script', ['-qec', cmd, '/dev/null'], {
          env: ttyHome.env as NodeJS.ProcessEnv,
          stdio: ['pipe', 'pipe', 'pipe'],
        })
        child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr: '' }))
      }),
    )
  }
  const [fifoRun, sockRun, ttyRun] = await Promise.all(runs)
  fs.closeSync(writer)
  quiet(t, fifoRun!, 'FIFO held open')
  quiet(t, sockRun!, 'socket held open')
  for (const home of [fifoHome, sockHome]) {
    t.match(logText(home), /gave up after 10000 ms, before its event was read/)
    t.same(listTree(home.sessions), [], 'nothing recorded')
    t.same(streamModules(home), [], 'no net or stream modules loaded')
  }
  if (!hasScript) {
    t.comment('script(1) is not installed: no terminal to test')
    return
  }
  t.equal(ttyRun!.code, 0, 'terminal: exit 0 (through script -e)')
  t.match(logText(ttyHome), /gave up after 10000 ms, before its event was read/)
  t.ok(loaded(ttyHome).includes('NativeModule tty'), 'a terminal is read by process.stdin, as before')
  // The check above can fail: process.stdin on a terminal loads them (tty needs net).
  t.not(streamModules(ttyHome).length, 0, 'the stream path shows in the modules list')
})
