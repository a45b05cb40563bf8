// The ssh adapter: runs OpenSSH's `ssh` with an argument array (./ssh-args.ts), bounded in time
// and in the size of its answer, and says in one word why a call failed. A host that refuses,
// goes silent or floods us costs at most its bound and never throws.
import { chmodSync, lstatSync, mkdirSync } from 'node:fs'
import { deriveHomeProblem } from '../fs/home-check.js'
import { ensurePrivateDir, PRIVATE_DIR_MODE } from '../fs/private-dir.js'
import { endChildInput } from '../io.js'
import { trailbossHome, type Env } from '../paths.js'
import { formatVisible } from '../text/visible-text.js'
import {
  assertSafeDestination,
  assertSafeRemoteWord,
  controlDir,
  SSH_MAX_ANSWER_BYTES,
  SSH_READ_TIMEOUT_MS,
  sshArgs,
  sshControlArgs,
} from './ssh-args.js'

export type SshFailure = 'connect' | 'timeout' | 'too-big' | 'exit' | 'no-ssh'

export type SshResult =
  | { ok: true; stdout: string; stderr: string; ms: number }
  | { ok: false; reason: SshFailure; message: string; code: number | null; stderr: string; ms: number }

/** `-O exit` only talks to a local socket: it is done at once or never. */
export const SSH_CONTROL_TIMEOUT_MS = 2000
/** ssh's own complaints are a few lines; a remote flooding stderr is not kept past this. */
const MAX_STDERR_BYTES = 64 * 1024
const MAX_MESSAGE_CHARS = 200

/**
 * Lines ssh itself prints when it could not reach the host or was not let in (its exit code is
 * 255 then, which a remote command may also exit with).
 */
const CONNECT_TROUBLE =
  /^ssh: |Connection (refused|closed|reset)|Connection timed out|banner exchange|kex_exchange_identification|Host key verification failed|HOST IDENTIFICATION HAS CHANGED|host key .*(changed|known)|Permission denied|Too many authentication failures|No route to host|Network is unreachable|Could not resolve|Bad configuration option|bad configuration options|Can't open user config file|mux_client|Control ?socket|unix_listener|ProxyCommand|Received disconnect|Timeout, server .* not responding/im

/** Of those, the ones that say the host did not answer in time rather than refused. */
const TIMED_OUT = /timed out|Timeout, server/i

/** Pure: the first line of ssh's stderr as plain visible text, short (the host chose part of it). */
export const formatSshMessage = (stderr: string): string => {
  const line =
    stderr
      .split(/\r?\n|\r/)
      .map((l) => l.replace(/[\p{Cc}\s]+/gu, ' ').trim())
      .find((l) => l !== '') ?? ''
  const chars = [...line]
  const short = chars.length > MAX_MESSAGE_CHARS ? `${chars.slice(0, MAX_MESSAGE_CHARS - 1).join('')}…` : line
  return formatVisible(short)
}

/** How an ssh run ended, before it is judged. */
export interface SshExit {
  code: number | null
  stdout: string
  stderr: string
  /** Why we ended it ourselves, or why it never ran. */
  cut: 'timeout' | 'too-big' | 'no-ssh' | null
  ms: number
}

/** Pure: the result of one run, from how it ended. */
export const deriveSshResult = (exit: SshExit, limits: { timeoutMs: number; maxBytes: number }): SshResult => {
  const { code, stderr, ms } = exit
  const fail = (reason: SshFailure, message: string): SshResult => ({ ok: false, reason, message, code, stderr, ms })
  if (exit.cut === 'no-ssh') return fail('no-ssh', 'ssh is not installed or not on PATH')
  if (exit.cut === 'timeout') return fail('timeout', `no answer within ${limits.timeoutMs / 1000} s`)
  if (exit.cut === 'too-big') return fail('too-big', `an answer over ${limits.maxBytes} bytes was refused`)
  if (code === 0) return { ok: true, stdout: exit.stdout, stderr, ms }
  const said = formatSshMessage(stderr)
  if (code === 255 && CONNECT_TROUBLE.test(stderr)) return fail(TIMED_OUT.test(said) ? 'timeout' : 'connect', said)
  const how = code === null ? 'was ended by a signal' : `exited with ${code}`
  return fail('exit', said ? `the remote command ${how}: ${said}` : `the remote command ${how}`)
}

/**
 * Whether the socket folder may be used, made 0700 if missing. In the Trail Boss home it is as
 * private as the home; in /tmp anyone could have made it first (a link, a folder of theirs
 * where they would see our sockets): only a real folder of ours is used.
 */
export const ensureControlDir = (env: Env): boolean => {
  const dir = controlDir(env)
  try {
    if (dir.startsWith(`${trailbossHome(env)}/`)) {
      if (deriveHomeProblem(env)) return false
      ensurePrivateDir(dir)
    } else {
      try {
        mkdirSync(dir, { mode: PRIVATE_DIR_MODE })
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false
      }
    }
    return isOwnPrivateDir(dir, true)
  } catch {
    return false
  }
}

/** A real folder (not a link) of ours; with `tighten`, a looser mode of it is made 0700. */
const isOwnPrivateDir = (dir: string, tighten: boolean): boolean => {
  const st = lstatSync(dir)
  const uid = process.getuid?.()
  if (st.isSymbolicLink() || !st.isDirectory() || (uid !== undefined && st.uid !== uid)) return false
  if ((st.mode & 0o777) !== PRIVATE_DIR_MODE) {
    if (!tighten) return false
    chmodSync(dir, PRIVATE_DIR_MODE)
  }
  return true
}

const childEnv = (env: Env): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined))

/**
 * Runs `ssh args` in its own process group, so a timeout ends everything it started (a
 * ProxyCommand too). A master it leaves behind for ControlPersist is not in that group: OpenSSH
 * detaches it (setsid, stdio on /dev/null), and it ends by itself.
 */
const spawnSsh = (env: Env, args: readonly string[], limits: { timeoutMs: number; maxBytes: number; input?: string }): Promise<SshExit> =>
  new Promise((resolve) => {
    const started = performance.now()
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outBytes = 0
    let errBytes = 0
    let done = false
    let timer: NodeJS.Timeout | undefined
    // Loaded here, not with the module: `status` reads the hosts' caches through this module and
    // runs ssh only for a refresh (child_process and the stream modules it pulls cost ~8 ms).
    const { spawn } = process.getBuiltinModule('node:child_process')
    const child = spawn('ssh', args, {
      env: childEnv(env),
      stdio: [limits.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    })
    const finish = (code: number | null, cut: SshExit['cut']): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      if (cut === 'timeout' || cut === 'too-big') {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
        } catch {
          // already gone
        }
      }
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({
        code,
        stdout: cut ? '' : Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        cut,
        ms: Math.round(performance.now() - started),
      })
    }
    timer = setTimeout(() => finish(null, 'timeout'), limits.timeoutMs)
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'EACCES') finish(null, 'no-ssh')
      else {
        err.push(Buffer.from(e.message))
        finish(null, null)
      }
    })
    child.stdout?.on('data', (c: Buffer) => {
      outBytes += c.length
      if (outBytes > limits.maxBytes) finish(null, 'too-big')
      else out.push(c)
    })
    child.stderr?.on('data', (c: Buffer) => {
      if (errBytes < MAX_STDERR_BYTES) err.push(c.subarray(0, MAX_STDERR_BYTES - errBytes))
      errBytes += c.length
    })
    child.on('close', (code) => finish(code, null))
    endChildInput(child.stdin, limits.input)
  })

/**
 * Runs `remote` (fixed words, each checked) on `destination` over ssh, sharing a connection
 * when TRAILBOSS_SSH_PERSIST allows. Throws only for a destination or word it refuses to send,
 * before ssh runs; every failure of the host is a result.
 */
export const runSsh = async (
  env: Env,
  destination: string,
  remote: readonly string[],
  /** `master`: ensureControlDir's verdict, when the caller already has it (one check for many hosts). */
  opts: { timeoutMs?: number; maxBytes?: number; input?: string; master?: boolean } = {},
): Promise<SshResult> => {
  assertSafeDestination(destination)
  remote.forEach(assertSafeRemoteWord)
  const limits = { timeoutMs: opts.timeoutMs ?? SSH_READ_TIMEOUT_MS, maxBytes: opts.maxBytes ?? SSH_MAX_ANSWER_BYTES }
  const args = sshArgs(env, destination, remote, { master: opts.master ?? ensureControlDir(env) })
  return deriveSshResult(await spawnSsh(env, args, { ...limits, input: opts.input }), limits)
}

/** Ends the shared connection to `destination` (`ssh -O exit`); whether one was ended. Never throws. */
export const closeMaster = async (env: Env, destination: string): Promise<boolean> => {
  try {
    // Only a socket in a folder of ours is spoken to.
    if (!isOwnPrivateDir(controlDir(env), false)) return false
    const exit = await spawnSsh(env, sshControlArgs(env, destination, 'exit'), {
      timeoutMs: SSH_CONTROL_TIMEOUT_MS,
      maxBytes: MAX_STDERR_BYTES,
    })
    return exit.cut === null && exit.code === 0
  } catch {
    return false
  }
}
