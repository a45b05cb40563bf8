// The ways `notify` reaches a person: a desktop notification, a tmux message on every attached
// client, a terminal bell, or their own command. Each adapter runs programs with argument
// arrays; only --exec goes through `sh -c`, because that command line is the person's own, and
// the payload reaches it on stdin, never in the command line (docs/design.md §6.5).
import { execFile, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { kindLabel, summarizeItemAsk, toJsonItem, truncate } from '../render/queue-table.js'
import { findOnPath } from '../fs/find-on-path.js'
import { endChildInput, type OutStream } from '../io.js'
import { type Client, listClients } from '../tmux/clients.js'
import type { Env } from '../paths.js'
import type { QueueItem } from '../queue/derive.js'
import { formatVisible } from '../text/visible-text.js'
import { formatJson } from '../render/json-text.js'
import { execTmux, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'

export const CHANNELS = ['desktop', 'tmux', 'bell', 'exec'] as const
export type Channel = (typeof CHANNELS)[number]

/** How long a desktop or tmux message stays up, and how long a program of ours may take. */
export const TMUX_MESSAGE_MS = 5000
export const NOTIFIER_TIMEOUT_MS = 10_000
/** The person's --exec command gets this long per item before it is killed. */
export const EXEC_TIMEOUT_MS = 30_000

export interface Notice {
  title: string
  /** One line per wait, for desktops that show several lines. */
  body: string
  /** Everything on one line, for tmux's status line. */
  line: string
}

const describe = (item: QueueItem): string => {
  const ask = summarizeItemAsk(item, 60)
  return `${formatVisible(item.project ?? '?')} · ${kindLabel(item)}${ask ? `: ${ask}` : ''}`
}

/** Pure: one message for all new waits (several arriving together make one notification). */
export const formatNotice = (items: readonly QueueItem[]): Notice => {
  const title = `Trail Boss: ${items.length === 1 ? '1 session waits' : `${items.length} sessions wait`}`
  const lines = items.map(describe)
  const shown = lines.length > 5 ? [...lines.slice(0, 4), `… and ${lines.length - 4} more`] : lines
  return { title, body: shown.join('\n'), line: truncate(`${title} — ${lines.join('; ')}`, 200) }
}

export interface Outcome {
  channel: Channel
  ok: boolean
  /** What happened, for the person: where it went, or why not. */
  detail: string
  /** Not possible here (no desktop session, no client), as opposed to a failed attempt. */
  unavailable?: boolean
}

const run = (file: string, args: readonly string[], env: Env): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => {
    execFile(file, args, { env: env as NodeJS.ProcessEnv, timeout: NOTIFIER_TIMEOUT_MS, encoding: 'utf8' }, (err, _out, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, stderr: err && !stderr ? err.message : stderr })
    })
  })

export type DesktopCheck = { ok: true; program: string; args: (n: Notice) => string[] } | { ok: false; why: string }

/**
 * Whether a desktop notification can be shown from here. On Linux notify-send needs the
 * session bus, which cron never has; macOS's osascript reaches the person's session.
 */
export const checkDesktop = (env: Env, platform: NodeJS.Platform = process.platform): DesktopCheck => {
  if (platform === 'darwin') {
    const program = findOnPath('osascript', env.PATH) ?? '/usr/bin/osascript'
    // The text travels as arguments of `on run`, so nothing in it is read as AppleScript.
    return {
      ok: true,
      program,
      args: (n) => [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e',
        'end run',
        n.title,
        n.body,
      ],
    }
  }
  const program = findOnPath('notify-send', env.PATH)
  if (!program) return { ok: false, why: 'notify-send is not on PATH' }
  if (!env.DBUS_SESSION_BUS_ADDRESS && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    return { ok: false, why: 'no desktop session here (run from cron?)' }
  return { ok: true, program, args: (n) => ['--app-name=Trail Boss', n.title, n.body] }
}

export const notifyDesktop = async (notice: Notice, check: DesktopCheck, env: Env): Promise<Outcome> => {
  if (!check.ok) return { channel: 'desktop', ok: false, detail: check.why, unavailable: true }
  const r = await run(check.program, check.args(notice), env)
  return r.code === 0
    ? { channel: 'desktop', ok: true, detail: 'desktop notification' }
    : { channel: 'desktop', ok: false, detail: `${check.program} failed: ${r.stderr.trim() || `exit ${r.code}`}` }
}

export interface TmuxClients {
  socket: string
  clients: Client[]
}

/** The attached clients of every tmux server the waits (or this process) live on. */
export interface TmuxReach {
  servers: TmuxClients[]
  /** Why no client can be reached, when none can. */
  why: string | null
}

export const listTmuxClients = async (sockets: readonly string[], exec: TmuxExec = execTmux): Promise<TmuxReach> => {
  const servers: TmuxClients[] = []
  let unavailable = false
  for (const socket of new Set(sockets)) {
    if (!fs.existsSync(socket)) continue
    try {
      const clients = await listClients(socket, exec)
      if (clients.length > 0) servers.push({ socket, clients })
    } catch (err) {
      // Not installed or not on this PATH (cron's PATH is short), or a server that does not answer.
      if (err instanceof TmuxUnavailable) unavailable = true
    }
  }
  return { servers, why: servers.length > 0 ? null : unavailable ? 'tmux is not on PATH' : 'no tmux client is attached' }
}

/** tmux expands `#` in display-message; a literal one is `##`. */
export const escapeTmuxFormat = (text: string): string => text.replaceAll('#', '##')

export const notifyTmux = async (notice: Notice, reach: TmuxReach, exec: TmuxExec = execTmux): Promise<Outcome> => {
  if (reach.servers.length === 0)
    return { channel: 'tmux', ok: false, detail: reach.why ?? 'no tmux client is attached', unavailable: true }
  let shown = 0
  const errors: string[] = []
  for (const { socket, clients } of reach.servers) {
    for (const c of clients) {
      const r = await exec(['display-message', '-c', c.name, '-d', String(TMUX_MESSAGE_MS), escapeTmuxFormat(notice.line)], { socket })
      if (r.code === 0) shown++
      else errors.push(r.stderr.trim())
    }
  }
  return shown > 0
    ? { channel: 'tmux', ok: true, detail: `tmux message on ${shown} client${shown === 1 ? '' : 's'}` }
    : { channel: 'tmux', ok: false, detail: `tmux display-message failed: ${errors[0] ?? 'no client'}` }
}

/**
 * A bell on the person's terminals: this process's own, and every attached tmux client's tty
 * (which is how a bell reaches someone from cron). O_NOCTTY: never adopt a terminal.
 */
export const ringBell = (servers: readonly TmuxClients[], own: OutStream | null): Outcome => {
  let rung = 0
  if (own?.isTTY) {
    own.write('\u0007')
    rung++
  }
  for (const { clients } of servers) {
    for (const c of clients) {
      if (c.controlMode || !c.tty.startsWith('/dev/')) continue
      try {
        const fd = fs.openSync(c.tty, fs.constants.O_WRONLY | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK)
        try {
          fs.writeSync(fd, '\u0007')
          rung++
        } finally {
          fs.closeSync(fd)
        }
      } catch {
        // Another user's terminal, or gone: skip it.
      }
    }
  }
  return rung > 0
    ? { channel: 'bell', ok: true, detail: `bell on ${rung} terminal${rung === 1 ? '' : 's'}` }
    : { channel: 'bell', ok: false, detail: 'no terminal to ring', unavailable: true }
}

export interface ExecStreams {
  stdout: OutStream
  stderr: OutStream
}

/** Runs the person's command once for one item, its JSON (the `ls --json` item) on stdin. */
export const runExec = (command: string, item: QueueItem, env: Env, streams: ExecStreams, timeoutMs = EXEC_TIMEOUT_MS): Promise<Outcome> =>
  runExecWith(
    command,
    `${formatJson(toJsonItem(item))}\n`,
    { ...env, TRAILBOSS_KEY: item.key },
    streams,
    `--exec for ${item.key}`,
    timeoutMs,
  )

/** Runs the person's command once with `input` on stdin; `what` names the run in the outcome. */
export const runExecWith = (
  command: string,
  input: string,
  env: Env,
  streams: ExecStreams,
  what: string,
  timeoutMs = EXEC_TIMEOUT_MS,
): Promise<Outcome> =>
  new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (c: Buffer) => streams.stdout.write(c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => streams.stderr.write(c.toString('utf8')))
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({ channel: 'exec', ok: false, detail: `--exec could not start: ${err.message}` })
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve(
        code === 0
          ? { channel: 'exec', ok: true, detail: what }
          : { channel: 'exec', ok: false, detail: `${what} ${signal ? `was killed (${signal})` : `exited ${code}`}` },
      )
    })
    endChildInput(child.stdin, input)
  })
