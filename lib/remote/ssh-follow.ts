// A long-lived ssh read (`watch`'s `trailboss ls --json --local --follow` on each host): the
// same argument list as every call (ssh-args.ts: after `--`, fixed words, BatchMode), but its
// answer is a line at a time for as long as it runs. Each line is capped like a whole answer;
// a host that goes silent is ended by ssh itself (ServerAliveInterval × ServerAliveCountMax).
import { spawn } from 'node:child_process'
import type { Env } from '../paths.js'
import { assertSafeDestination, assertSafeRemoteWord, SSH_MAX_ANSWER_BYTES, sshArgs } from './ssh-args.js'
import { ensureControlDir, formatSshMessage } from './ssh-run.js'

const MAX_STDERR_BYTES = 64 * 1024

export interface SshFollow {
  /** Ends the run (its whole process group); `onEnd` is not called for it. */
  close: () => void
}

/** Pure: complete lines out of what arrived, and the part of a line still to come. */
export const splitLines = (pending: string, chunk: string): { lines: string[]; rest: string } => {
  const parts = (pending + chunk).split('\n')
  const rest = parts.pop() ?? ''
  return { lines: parts.filter((l) => l.trim() !== ''), rest }
}

/**
 * Runs `remote` on `destination` and hands each line of its output to `onLine`; `onEnd` gets
 * why it ended (plain text) once, unless `close` ended it. Throws only for a destination or a
 * word it refuses to send, before ssh runs.
 */
export const spawnSshFollow = (
  env: Env,
  destination: string,
  remote: readonly string[],
  onLine: (line: string) => void,
  onEnd: (why: string) => void,
  maxLineBytes: number = SSH_MAX_ANSWER_BYTES,
): SshFollow => {
  assertSafeDestination(destination)
  remote.forEach(assertSafeRemoteWord)
  const args = sshArgs(env, destination, remote, { master: ensureControlDir(env) })
  const child = spawn('ssh', args, {
    env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: close() ends whatever it started (a ProxyCommand too).
    detached: true,
  })
  let pending = ''
  let stderr = ''
  let ended = false
  const kill = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    } catch {
      // already gone
    }
    child.stdout?.destroy()
    child.stderr?.destroy()
  }
  const end = (why: string | null): void => {
    if (ended) return
    ended = true
    kill()
    if (why !== null) onEnd(why)
  }
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    if (ended) return
    const got = splitLines(pending, chunk)
    pending = got.rest
    for (const line of got.lines) {
      if (ended) return
      if (Buffer.byteLength(line) > maxLineBytes) return end('its answer was too large')
      onLine(line)
    }
    if (Buffer.byteLength(pending) > maxLineBytes) end('its answer was too large')
  })
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.slice(0, MAX_STDERR_BYTES - stderr.length)
  })
  child.on('error', (e: NodeJS.ErrnoException) =>
    end(e.code === 'ENOENT' || e.code === 'EACCES' ? 'ssh could not be run here' : formatSshMessage(e.message)),
  )
  child.on('close', (code) => {
    const said = formatSshMessage(stderr)
    end(said ? `its follow ended: ${said}` : `its follow ended (exit ${code ?? 'by a signal'})`)
  })
  return { close: () => end(null) }
}
