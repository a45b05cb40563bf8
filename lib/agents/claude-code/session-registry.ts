// Claude Code's own list of its live interactive sessions (2.1.332; not in 2.1.197): one file
// `<config dir>/sessions/<pid>.json` per process, rewritten whole on every status change, with
// `status` idle / busy / waiting and, while waiting, `waitingFor` ("permission prompt",
// "dialog open", "input needed", …). It says `waiting` within tens of ms of a dialog showing,
// where the hooks may say nothing for 6 s (auto mode's "can't check actions" dialog and the
// approval after it fire no PermissionRequest, only a Notification 6–12 s later). So a session
// our hooks left at `working` is a wait when its registry file says so
// (test/fixtures/claude-code-2.1.332/registry.jsonl).
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { readRegularFile } from '../../fs/safe-file.js'
import type { Env } from '../../paths.js'
import type { SessionRecord } from '../../record/types.js'
import { readProcStat, type StatReader } from '../../proc/agent-process.js'
import { readArgv } from '../../proc/process-table.js'
import { isProcessNamed } from '../discovery.js'
import type { LiveWait } from '../types.js'
import { claudeConfigDir } from './paths.js'
import { QUESTION_TOOL } from './state-rules.js'

/** The fields we read of one registry file; the rest (pid, tmux, peer data) is Claude Code's. */
export interface RegistryEntry {
  sessionId: string
  status: string
  waitingFor: string | null
  /** When `status` last changed, ms since the epoch. */
  statusUpdatedAt: number
  /** The process that wrote it, when the file names one. */
  pid: number | null
  /** That process's start time in clock ticks since boot (`procStart`, /proc/<pid>/stat field 22). */
  procStart: number | null
}

/** A file of a live process is a few hundred bytes; anything near this is not one. */
export const REGISTRY_FILE_CAP = 64 * 1024
export const REGISTRY_NAME = /^\d{1,10}\.json$/
/** Claude Code's Notification comes 6 s after its dialog (12 s for auto mode's approval). */
const NOTIFICATION_LAG_MS = 30_000

/**
 * Pure: a registry file's text, or null when it is not one we understand. Four fields of a
 * foreign file on `ls`'s path: a type check each, not a schema library's load.
 */
export const parseRegistryEntry = (text: string): RegistryEntry | null => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null
  const o = data as Record<string, unknown>
  if (typeof o.sessionId !== 'string' || typeof o.status !== 'string' || typeof o.statusUpdatedAt !== 'number') return null
  return {
    sessionId: o.sessionId,
    status: o.status,
    waitingFor: typeof o.waitingFor === 'string' ? o.waitingFor.slice(0, 200) : null,
    statusUpdatedAt: o.statusUpdatedAt,
    pid: typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 ? o.pid : null,
    procStart: typeof o.procStart === 'string' && /^\d{1,15}$/.test(o.procStart) ? Number(o.procStart) : null,
  }
}

/** Pure: a process is Claude Code when it calls itself `claude` or runs its package's cli.js. */
export const isClaudeProcess = isProcessNamed('claude', /@anthropic-ai\/claude-code\/cli\.m?js$/)

/** What isRegistryProcess reads of the process table; swapped in tests. */
export interface ProcessProbe {
  stat: StatReader
  argv: (pid: number) => string[]
  /** Whether /proc is there at all: without it (macOS) a pid's liveness is all that can be told. */
  hasProc: () => boolean
  alive: (pid: number) => boolean
}

/**
 * Whether the process a registry file names is the one that wrote it. A dead Claude Code leaves
 * its file behind, and after a reboot its pid may belong to any program: the start time the file
 * gives (procStart) must be that pid's, or, in a file without one, the process must be Claude's.
 */
export const isRegistryProcess = (entry: Pick<RegistryEntry, 'pid' | 'procStart'>, probe: ProcessProbe = PROCESS_PROBE): boolean => {
  if (entry.pid === null) return false
  const s = probe.stat(entry.pid)
  if (s === null) return !probe.hasProc() && probe.alive(entry.pid)
  if (entry.procStart !== null) return s.startTicks === entry.procStart
  return isClaudeProcess(s.comm, probe.argv(entry.pid))
}

/**
 * Pure: the wait the registry tells of, for a record the hooks left at `working`, when the file
 * says `waiting`. For a `permission` wait a hook set later (PermissionRequest a moment after
 * the dialog, auto mode's Notification 6 s late) it gives the time the dialog really showed, so
 * the wait's `since` never moves once seen. Other states came from a hook that knows more.
 */
export const deriveRegistryWait = (rec: SessionRecord, entry: RegistryEntry | undefined): LiveWait | null => {
  if (!entry || rec.headless || entry.status !== 'waiting') return null
  const why = `claude code: ${entry.waitingFor ?? 'waiting'}`
  if (rec.state === 'permission' && rec.kind !== null) {
    const earlier = entry.statusUpdatedAt < rec.since && rec.since - entry.statusUpdatedAt <= NOTIFICATION_LAG_MS
    return earlier ? { kind: rec.kind, since: entry.statusUpdatedAt, why } : null
  }
  if (rec.state !== 'working') return null
  // No comparison with our own stamps: the emitter of the PreToolUse before a dialog may start
  // seconds late on a busy machine. Claude Code rewrites the file at every change of status,
  // so a live process's `waiting` is now; a dead process's file is left out when read.
  const question = entry.waitingFor === 'input needed' || rec.lastTool?.name === QUESTION_TOOL
  return { kind: question ? 'question' : 'permission', since: entry.statusUpdatedAt, why }
}

/** Per read: the registry is read once, at the first record that may need it. */
export const registryWaitChecker = (env: Env): ((rec: SessionRecord) => LiveWait | null) => {
  let registry: Map<string, RegistryEntry> | undefined
  return (rec) => {
    if (rec.headless || (rec.state !== 'working' && rec.state !== 'permission')) return null
    registry ??= readRegistry(env)
    return deriveRegistryWait(rec, registry.get(rec.sessionId))
  }
}

/** Whether a process of that id runs (EPERM: it runs, as another user). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const PROCESS_PROBE: ProcessProbe = { stat: readProcStat, argv: readArgv, hasProc: () => existsSync('/proc/self/stat'), alive: isAlive }

/** Pure: the pid a registry file's name gives (`<pid>.json`), for a file whose text names none. */
export const pidOfRegistryName = (name: string): number | null => {
  const pid = Number(name.slice(0, -'.json'.length))
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null
}

/**
 * Reads every registry file, by session id. Called only when some Claude Code record is
 * `working`; a missing folder (2.1.197, another config dir) is an empty map.
 */
export const readRegistry = (env: Env): Map<string, RegistryEntry> => {
  const dir = join(claudeConfigDir(env), 'sessions')
  const out = new Map<string, RegistryEntry>()
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return out
  }
  for (const name of names) {
    if (!REGISTRY_NAME.test(name)) continue
    // Only files of our own user, as Claude Code writes them: never one another user planted.
    const got = readRegularFile(join(dir, name), { cap: REGISTRY_FILE_CAP, ownOnly: true })
    const parsed = got.ok ? parseRegistryEntry(got.text) : null
    const entry = parsed && { ...parsed, pid: parsed.pid ?? pidOfRegistryName(name) }
    // A crashed process leaves its file behind, saying whatever it said last.
    if (entry && !isRegistryProcess(entry)) continue
    // Two files for one session (a resumed session in a new process): the newer status wins.
    if (entry && (out.get(entry.sessionId)?.statusUpdatedAt ?? -1) < entry.statusUpdatedAt) out.set(entry.sessionId, entry)
  }
  return out
}
