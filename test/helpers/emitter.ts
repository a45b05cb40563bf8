// Shared by the emitter and reliability suites: run the built emitter as the agent's hooks do
// (a real child process, payload on stdin), and read back what it left in the sessions folder.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { HookEvent, SessionRecord } from '../../lib/record/types.js'
import { recordFile } from '../../lib/paths.js'
import { looksLikeRecord } from '../../lib/record/light-check.js'
import { type PendingEvent, readPendingEvents, withPending } from '../../lib/record/pending-events.js'
import { hooksFor } from '../../lib/agents/hook-registry.js'

export const BUILT_EMITTER = fileURLToPath(new URL('../../dist/hooks/emit.cjs', import.meta.url))
/** The emitter's bundle, which BUILT_EMITTER (a loader) starts from its code cache. */
export const BUILT_EMITTER_BUNDLE = fileURLToPath(new URL('../../dist/hooks/emitter.cjs', import.meta.url))
/** The files of the built emitter: the loader, the bundle and, when the build made one, its code cache. */
const EMITTER_FILES = ['emit.cjs', 'emitter.cjs', 'emit.v8']

/**
 * The built emitter, copied once per test process: a rebuild (which empties dist/) while a
 * long suite runs must not turn into spurious failures. Its files need nothing beside them.
 */
export const EMITTER = ((): string => {
  if (!fs.existsSync(BUILT_EMITTER)) throw new Error(`${BUILT_EMITTER} is missing: run \`npm run build\` first`)
  const dir = fs.mkdtempSync(join(tmpdir(), 'trailboss-emit-'))
  const built = dirname(BUILT_EMITTER)
  for (const name of EMITTER_FILES)
    if (fs.existsSync(join(built, name)) || name !== 'emit.v8') fs.copyFileSync(join(built, name), join(dir, name))
  const copy = join(dir, 'emit.cjs')
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
  return copy
})()
export const FIXTURES = fileURLToPath(new URL('../fixtures/claude-code/', import.meta.url))

export type ChildEnv = Record<string, string | undefined>

/**
 * A fresh private temp folder, removed after the test. Not t.testdir(): its path is fixed by
 * the test's name, so two runs of the suite in one checkout would share (and wipe) it.
 */
export const tempDir = (t: { teardown: (fn: () => void) => void }): string => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'trailboss-test-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface EmitResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
  pid: number
}

export interface EmitOptions {
  /** Sends this signal after the delay (ms from spawn): a hook killed at a random moment. */
  killAfterMs?: number
  killSignal?: NodeJS.Signals
  /** Called with the pid as soon as the process exists. */
  onSpawn?: (pid: number) => void
  /** Writes the input but never closes stdin, as a broken caller might. */
  holdStdin?: boolean
}

/**
 * The environment a hook gets, reduced to what matters: never the test runner's own (its
 * loaders would slow the child and its variables would leak into what we assert on).
 */
export const baseEnv = (home: string, extra: ChildEnv = {}): ChildEnv => ({
  PATH: process.env.PATH,
  TMUX_TMPDIR: process.env.TMUX_TMPDIR,
  HOME: join(home, 'home'),
  TRAILBOSS_HOME: join(home, 'tb'),
  ...extra,
})

/** Runs the built emitter once with `input` on stdin. Never rejects. */
export const runEmitter = (input: string | Buffer, env: ChildEnv, opts: EmitOptions = {}): Promise<EmitResult> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [EMITTER], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => err.push(c))
    // The emitter may exit before it read everything (over the cap, a kill): not our failure.
    child.stdin.on('error', () => {})
    if (child.pid !== undefined) opts.onSpawn?.(child.pid)
    let timer: NodeJS.Timeout | undefined
    if (opts.killAfterMs !== undefined) {
      timer = setTimeout(() => child.kill(opts.killSignal ?? 'SIGKILL'), opts.killAfterMs)
    }
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: performance.now() - started,
        pid: child.pid ?? -1,
      })
    })
    if (opts.holdStdin) child.stdin.write(input)
    else child.stdin.end(input)
  })

/** Runs async tasks with at most `limit` in flight; results keep the tasks' order. */
export const pool = async <T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> => {
  const results: T[] = new Array<T>(tasks.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++
      results[i] = await tasks[i]!()
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker))
  return results
}

export interface SessionOnDisk {
  /** The record file as written (null when there is none). */
  file: SessionRecord | null
  /** Pending events not yet folded into the file. */
  pending: PendingEvent[]
  /** What a reader sees: the file with its pending events folded in. */
  view: SessionRecord | null
  /** Events applied so far: the file's count plus the unfolded pending events. */
  applied: number
}

/** Reads a session as a reader would; throws when the record file does not parse. */
export const readSession = (dir: string, sessionId: string): SessionOnDisk => {
  let file: SessionRecord | null = null
  const path = recordFile(dir, sessionId)
  if (fs.existsSync(path)) {
    const parsed: unknown = JSON.parse(fs.readFileSync(path, 'utf8'))
    if (!looksLikeRecord(parsed, sessionId)) throw new Error(`${path} is not a record of ${sessionId}`)
    file = parsed
  }
  const pending = readPendingEvents(dir, sessionId, file?.foldedPending ?? [])
  return { file, pending, view: withPending(file, pending, hooksFor), applied: (file?.events ?? 0) + pending.length }
}

/** Every path under `root`, relative, sorted (folders end with `/`). */
export const listTree = (root: string): string[] => {
  const out: string[] = []
  const walk = (dir: string, rel: string): void => {
    let names: string[]
    try {
      names = fs.readdirSync(dir)
    } catch {
      return
    }
    for (const name of names) {
      const full = join(dir, name)
      const r = rel ? `${rel}/${name}` : name
      if (fs.lstatSync(full).isDirectory()) {
        out.push(`${r}/`)
        walk(full, r)
      } else out.push(r)
    }
  }
  walk(root, '')
  return out.sort()
}

/** One captured hook invocation: the payload and the hook's environment. */
export interface Capture {
  ts: string
  env: Record<string, string>
  stdin: Record<string, unknown>
}

export const readCaptures = (name: string): Capture[] =>
  fs
    .readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Capture)

/** The variables of a captured environment that the emitter reads. */
export const CAPTURED_ENV_KEYS = ['TMUX', 'TMUX_PANE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_PROJECT_DIR', 'CLAUDE_CODE_SESSION_ID'] as const

export const captureEnv = (c: Capture): ChildEnv => {
  const env: ChildEnv = {}
  for (const k of CAPTURED_ENV_KEYS) if (c.env[k] !== undefined) env[k] = c.env[k]
  return env
}

/** A minimal, valid payload for synthetic events. */
export const payload = (sessionId: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  session_id: sessionId,
  transcript_path: `/nonexistent/${sessionId}.jsonl`,
  cwd: '/tmp',
  hook_event_name: name,
  ...extra,
})

/** Waits until `check` holds or the deadline passes; returns whether it held. */
export const waitFor = async (check: () => boolean, timeoutMs: number, stepMs = 20): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  for (;;) {
    if (check()) return true
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, stepMs))
  }
}

export type { HookEvent }
