// The spool: where hooks/spool.sh leaves the events of agents that wait for their hooks (Codex,
// Gemini CLI), one file per event, until an emitter started by it folds them into the records
// (`trailboss-emit --fold-spool`) or a reader folds them in memory. A file is written beside and
// renamed in, so it is whole once it has its name; a folder claims it by renaming it again, so
// two folds never apply one event twice. Light on purpose: the emitter imports it.
import { lstatSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { listRealDir } from '../fs/own-files.js'
import { isRefusal, readRegularFile } from '../fs/safe-file.js'

export const SPOOL_MAGIC = 'trailboss-spool 1'
/** The payload cap of the emitter, plus room for the header. */
export const SPOOL_READ_CAP = 16 * 1024 * 1024 + 64 * 1024
/** A claim this old belongs to a fold that died; another may take the file over. */
export const SPOOL_STALE_CLAIM_MS = 10_000
/** The only variables a spool file may carry: what the hook's environment says about the session. */
export const SPOOL_ENV_NAMES = ['TMUX', 'TMUX_PANE', 'CODEX_HOME', 'GEMINI_PROJECT_DIR', 'GEMINI_SESSION_ID', 'CLAUDE_PROJECT_DIR'] as const

export const spoolDir = (sessionsDir: string): string => join(sessionsDir, '.spool')

/** A spooled event: `<ns stamp>-<pid>.ev`; claimed: `…ev.<pid of the fold>.claim`. */
const SPOOLED = /^(\d{1,24})-(\d{1,10})\.ev$/
const CLAIMED = /^(\d{1,24})-(\d{1,10})\.ev\.(\d{1,10})\.claim$/

export interface SpoolEntry {
  agent: string
  /** ms since the epoch, from the hook's nanosecond clock. */
  stamp: number
  env: Record<string, string>
  /** The hook's parent pid ($PPID), where the file says. */
  ppid: number | null
  /** `/proc/<pid>/stat` of the parent and its parents as the hook read them, nearest first. */
  procs: string[]
  payload: string
}

export interface SpoolFile {
  name: string
  /** The file's name when it was spooled (its stamp and the hook's pid). */
  base: string
  claimed: boolean
}

/** Pure: nanoseconds since the epoch (digits) as ms, without losing the sub-ms part. */
export const nsToMs = (ns: string): number => (ns.length > 6 ? Number(ns.slice(0, -6)) + Number(ns.slice(-6)) / 1e6 : Number(ns) / 1e6)

/** At most this many `proc` lines are read: spool.sh writes the parent and two of its parents. */
const MAX_PROCS = 3

/** Pure: a spool file's text, or why it is not one. */
export const parseSpool = (text: string): SpoolEntry | string => {
  const end = text.indexOf('\n\n')
  if (end < 0) return 'no header'
  const lines = text.slice(0, end).split('\n')
  if (lines[0] !== SPOOL_MAGIC) return 'not a spool file'
  let agent: string | null = null
  let stamp: number | null = null
  const env: Record<string, string> = {}
  let ppid: number | null = null
  const procs: string[] = []
  for (const line of lines.slice(1)) {
    const space = line.indexOf(' ')
    const key = line.slice(0, space)
    const value = line.slice(space + 1)
    if (key === 'agent' && /^[a-z0-9-]{1,40}$/.test(value)) agent = value
    else if (key === 'stamp' && /^\d{1,24}$/.test(value)) stamp = nsToMs(value)
    else if (key === 'ppid' && /^[1-9]\d{0,9}$/.test(value)) ppid = Number(value)
    else if (key === 'proc' && procs.length < MAX_PROCS) procs.push(value)
    else if (key === 'env') {
      const eq = value.indexOf('=')
      const name = value.slice(0, eq)
      if (eq > 0 && (SPOOL_ENV_NAMES as readonly string[]).includes(name)) env[name] = value.slice(eq + 1)
    }
  }
  if (agent === null) return 'no agent'
  if (stamp === null || !Number.isFinite(stamp)) return 'no stamp'
  return { agent, stamp, env, ppid, procs, payload: text.slice(end + 2) }
}

/**
 * The environment an event of `entry` saw: the fold's own, without what a hook's environment
 * says about one session (the fold may serve another's events), plus what the hook wrote down.
 */
export const spoolEnv = (base: Readonly<Record<string, string | undefined>>, entry: SpoolEntry): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...base }
  for (const name of SPOOL_ENV_NAMES) delete env[name]
  return { ...env, ...entry.env }
}

/** The spooled files, oldest first (claimed ones too); nothing when the folder is missing or a link. */
export const listSpool = (sdir: string): SpoolFile[] => {
  const out: (SpoolFile & { ns: bigint })[] = []
  for (const e of listRealDir(sdir)) {
    if (!e.isFile()) continue
    const m = SPOOLED.exec(e.name) ?? CLAIMED.exec(e.name)
    if (!m) continue
    out.push({ name: e.name, base: `${m[1]}-${m[2]}.ev`, claimed: e.name.endsWith('.claim'), ns: BigInt(m[1]!) })
  }
  return out.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : a.name < b.name ? -1 : 1)).map(({ ns: _ns, ...f }) => f)
}

/** Reads and parses one spool file (a regular file of our own, never through a link). */
export const readSpoolFile = (path: string): SpoolEntry | string => {
  const got = readRegularFile(path, { cap: SPOOL_READ_CAP, ownOnly: true })
  if (isRefusal(got)) return got.why
  return parseSpool(got.text)
}

/**
 * Claims a spooled file for this process: the name it now has, or null when another fold got
 * it first (or holds a claim younger than SPOOL_STALE_CLAIM_MS).
 */
export const claimSpoolFile = (sdir: string, file: SpoolFile, now: number, pid = process.pid): string | null => {
  const from = join(sdir, file.name)
  if (file.claimed) {
    try {
      // A rename sets ctime: the claim's age.
      if (now - lstatSync(from).ctimeMs < SPOOL_STALE_CLAIM_MS) return null
    } catch {
      return null
    }
  }
  const to = join(sdir, `${file.base}.${pid}.claim`)
  try {
    renameSync(from, to)
    return to
  } catch {
    return null
  }
}
