// The spool: where hooks/spool.sh leaves the events of agents that wait for their hooks (Codex,
// Gemini CLI), one file per event, until an emitter started by it folds them into the records
// (`trailboss-emit --fold-spool`) or a reader folds them in memory. A file is written in place
// (a rename would cost the hook another program), so one whose payload is not whole JSON yet
// is still being written while it is young, and a lost event once it is old. A folder claims a
// file by renaming it, so two folds never apply one event twice. Light on purpose: the emitter
// imports it.
import { fstatSync, lstatSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { listRealDir } from '../fs/own-files.js'
import { isRefusal, readRange, readRegularHead, withRegularFile } from '../fs/safe-file.js'

export const SPOOL_MAGIC = 'trailboss-spool 1'
/** The payload cap of the emitter, plus room for the header. */
export const SPOOL_READ_CAP = 16 * 1024 * 1024 + 64 * 1024
/** A claim this old belongs to a fold that died; another may take the file over. */
export const SPOOL_STALE_CLAIM_MS = 10_000
/**
 * A file still incomplete this long after its last write is a lost event: its hook died or was
 * killed half way (agents end a hook after their timeout, 10 s at most for ours). The fold
 * logs it and keeps it aside as `<name>.lost`, as it does at once with a payload that is not
 * JSON; `trailboss gc` removes those past its threshold, `trailboss doctor` lists them.
 */
export const SPOOL_LOST_MS = 30_000
/**
 * The variables every spooled event keeps: its pane. An agent's own (`sessionEnv` in
 * lib/agents/<agent>/hooks.ts) come on top; the build writes both into the shipped spool.sh
 * (lib/agents/spool-env.ts), and spoolEnv applies the same lists when an event is folded.
 */
export const SPOOL_PANE_ENV = ['TMUX', 'TMUX_PANE'] as const
/** What a variable's name in a spool file may be; spoolEnv keeps only the agent's and the pane's. */
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/
/** At most this many `env` lines are read: spool.sh writes a handful. */
const MAX_ENV = 16

export const spoolDir = (sessionsDir: string): string => join(sessionsDir, '.spool')

/**
 * A spooled event: `<stamp>-<pid>.ev` (the stamp: the uptime in centiseconds; nanoseconds since
 * the epoch from an older spool.sh); claimed: `…ev.<pid of the fold>.claim`.
 */
const SPOOLED = /^(\d{1,24})-(\d{1,10})\.ev$/
const CLAIMED = /^(\d{1,24})-(\d{1,10})\.ev\.(\d{1,10})\.claim$/
const LOST_SUFFIX = '.lost'

/** A lost event's name: its spooled name (`<stamp>-<pid>.ev`) kept aside, out of the spool's names. */
export const lostNameOf = (base: string): string => `${base}${LOST_SUFFIX}`

/** Pure: whether `name` is one lostNameOf gave. */
export const isLostSpoolName = (name: string): boolean => name.endsWith(LOST_SUFFIX) && SPOOLED.test(name.slice(0, -LOST_SUFFIX.length))

export interface SpoolEntry {
  agent: string
  /** ms since the epoch: the file's mtime (older spool files: their `stamp` line). */
  stamp: number
  env: Record<string, string>
  /** The hook's parent pid ($PPID), where the file says. */
  ppid: number | null
  /** `/proc/<pid>/stat` of the parent and its parents as the hook read them, nearest first. */
  procs: string[]
  /** The payload as JSON. */
  payload: unknown
}

/**
 * A spool file that is no event: one spool.sh is still writing, or died writing (its payload
 * ends before its JSON does), or one whose payload is not JSON at all (`notJson`).
 */
export interface SpoolIncomplete {
  /** What is wrong with it, for the log. */
  incomplete: string
  /** Its last write. */
  mtimeMs: number
  /**
   * Its payload holds a byte no JSON may hold where it stands: no further write makes it an
   * event, so it is lost at once rather than waited for.
   */
  notJson?: boolean
}

export const isIncomplete = (v: unknown): v is SpoolIncomplete =>
  typeof v === 'object' && v !== null && typeof (v as SpoolIncomplete).incomplete === 'string'

/** Pure: whether an incomplete file is a lost event by now, rather than one still being written. */
export const isLostSpoolFile = (f: SpoolIncomplete, now: number): boolean => f.notJson === true || now - f.mtimeMs >= SPOOL_LOST_MS

/** Pure: why a lost spool file is lost, for the log and for readers' messages. */
export const describeLost = (f: SpoolIncomplete, now: number): string =>
  f.notJson === true
    ? `its ${f.incomplete}`
    : `incomplete for ${Math.round((now - f.mtimeMs) / 1000)} s: its hook stopped half way (${f.incomplete})`

/**
 * Pure: whether JSON.parse stopped at the end of `text` (a prefix of JSON: a file still being
 * written, or cut short), rather than at a byte inside it that no JSON may hold there. V8 says
 * "Unexpected end of JSON input", or "… at position N" with N at the end, for the first;
 * "Unexpected token 'x', …" or a position inside the text for the second. A message it does not
 * know counts as the end: such a file is waited for, as before, never dropped early.
 */
export const stoppedAtEnd = (err: unknown, length: number): boolean => {
  const message = err instanceof Error ? err.message : ''
  if (/^Unexpected token .* is not valid JSON$/s.test(message)) return false
  const at = / at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message)
  return at === null || Number(at[1]) >= length
}

export interface SpoolFile {
  name: string
  /** The file's name when it was spooled (its stamp and the hook's pid). */
  base: string
  claimed: boolean
  /** Its last write: what orders the spool. */
  mtimeMs: number
}

/** Pure: nanoseconds since the epoch (digits) as ms, without losing the sub-ms part. */
export const nsToMs = (ns: string): number => (ns.length > 6 ? Number(ns.slice(0, -6)) + Number(ns.slice(-6)) / 1e6 : Number(ns) / 1e6)

/** At most this many `proc` lines are read: spool.sh writes the parent and two of its parents. */
const MAX_PROCS = 3

/**
 * Pure: a spool file's text, what is missing from one still being written, or why it is not
 * one. `mtimeMs` stamps a file without a `stamp` line (spool.sh writes none: the time of day
 * would cost it a program).
 */
export const parseSpool = (text: string, mtimeMs: number): SpoolEntry | SpoolIncomplete | string => {
  const end = text.indexOf('\n\n')
  if (end < 0)
    return SPOOL_MAGIC.startsWith(text.slice(0, SPOOL_MAGIC.length)) ? { incomplete: 'no header yet', mtimeMs } : 'not a spool file'
  const lines = text.slice(0, end).split('\n')
  if (lines[0] !== SPOOL_MAGIC) return 'not a spool file'
  let agent: string | null = null
  let stamp: number | null = mtimeMs
  const env: Record<string, string> = {}
  let ppid: number | null = null
  const procs: string[] = []
  for (const line of lines.slice(1)) {
    const space = line.indexOf(' ')
    const key = line.slice(0, space)
    const value = line.slice(space + 1)
    if (key === 'agent' && /^[a-z0-9-]{1,40}$/.test(value)) agent = value
    else if (key === 'stamp') stamp = /^\d{1,24}$/.test(value) ? nsToMs(value) : null
    else if (key === 'ppid' && /^[1-9]\d{0,9}$/.test(value)) ppid = Number(value)
    else if (key === 'proc' && procs.length < MAX_PROCS) procs.push(value)
    else if (key === 'env' && Object.keys(env).length < MAX_ENV) {
      const eq = value.indexOf('=')
      const name = value.slice(0, eq)
      if (eq > 0 && ENV_NAME.test(name)) env[name] = value.slice(eq + 1)
    }
  }
  if (agent === null) return 'no agent'
  if (stamp === null || !Number.isFinite(stamp)) return 'no stamp'
  const body = text.slice(end + 2)
  let payload: unknown
  try {
    payload = JSON.parse(body)
  } catch (err) {
    if (!stoppedAtEnd(err, body.length)) return { incomplete: `payload is not JSON (${body.length} bytes)`, mtimeMs, notJson: true }
    return { incomplete: `payload ends before its JSON does (${body.length} bytes)`, mtimeMs }
  }
  return { agent, stamp, env, ppid, procs, payload }
}

/**
 * The environment an event of `entry` saw: the fold's own, without what a hook's environment
 * says about one session (the fold may serve another's events), plus what the hook wrote down.
 * `agentEnv`: the variables the entry's agent reads (its `sessionEnv`); with the pane's, the
 * only ones taken from the file, whatever else it names.
 */
export const spoolEnv = (
  base: Readonly<Record<string, string | undefined>>,
  entry: SpoolEntry,
  agentEnv: readonly string[],
): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...base }
  for (const name of [...SPOOL_PANE_ENV, ...agentEnv]) {
    delete env[name]
    if (Object.hasOwn(entry.env, name)) env[name] = entry.env[name]
  }
  return env
}

/** Pure: the pid a name of the spool ends with. */
const pidOf = (f: SpoolFile): number => Number(/-(\d+)\.ev/.exec(f.base)?.[1] ?? 0)

/** Pids this far apart within one stamp were handed out across the counter's wrap. */
const PID_WRAP_GAP = 1 << 14

/**
 * Pure: the spool's order. Its files' mtimes first: a blocking agent runs its next hook only
 * once the last has written its file, so a session's files are never out of mtime order
 * (mtime moves by clock ticks: several may share one). Then the names' stamps, taken at each
 * hook's start; then, within one stamp, the hooks' pids, which the kernel hands out rising
 * until they wrap (past the wrap, a small pid is the newer).
 */
export const sortSpool = <F extends SpoolFile>(files: readonly F[]): F[] => {
  const keyed = files.map((f) => ({ f, stamp: BigInt(f.base.slice(0, f.base.indexOf('-')) || '0'), pid: pidOf(f) }))
  // Per stamp, its lowest and highest pid: far apart, they lie on both sides of a wrap.
  const pids = new Map<bigint, { lo: number; hi: number }>()
  for (const k of keyed) {
    const r = pids.get(k.stamp)
    if (r) {
      r.lo = Math.min(r.lo, k.pid)
      r.hi = Math.max(r.hi, k.pid)
    } else pids.set(k.stamp, { lo: k.pid, hi: k.pid })
  }
  const rank = (k: (typeof keyed)[number]): number => {
    const r = pids.get(k.stamp)!
    return r.hi - r.lo > PID_WRAP_GAP && k.pid < (r.lo + r.hi) / 2 ? k.pid + 2 ** 32 : k.pid
  }
  return keyed
    .sort((a, b) => {
      if (a.f.mtimeMs !== b.f.mtimeMs) return a.f.mtimeMs - b.f.mtimeMs
      if (a.stamp !== b.stamp) return a.stamp < b.stamp ? -1 : 1
      return rank(a) - rank(b) || (a.f.name < b.f.name ? -1 : a.f.name > b.f.name ? 1 : 0)
    })
    .map((k) => k.f)
}

/** The spooled files, oldest first (claimed ones too); nothing when the folder is missing or a link. */
export const listSpool = (sdir: string): SpoolFile[] => {
  const out: SpoolFile[] = []
  for (const e of listRealDir(sdir)) {
    if (!e.isFile()) continue
    const m = SPOOLED.exec(e.name) ?? CLAIMED.exec(e.name)
    if (!m) continue
    let mtimeMs: number
    try {
      mtimeMs = lstatSync(join(sdir, e.name)).mtimeMs
    } catch {
      // Claimed or folded meanwhile.
      continue
    }
    out.push({ name: e.name, base: `${m[1]}-${m[2]}.ev`, claimed: e.name.endsWith('.claim'), mtimeMs })
  }
  return sortSpool(out)
}

/**
 * Reads and parses one spool file (a regular file of our own, never through a link). One that
 * grew while it was read is still being written.
 */
export const readSpoolFile = (path: string): SpoolEntry | SpoolIncomplete | string => {
  const got = withRegularFile(path, { ownOnly: true }, (fd, st) => {
    if (st.size > SPOOL_READ_CAP) return `larger than ${SPOOL_READ_CAP} bytes (${st.size})`
    const text = readRange(fd, 0, st.size).toString('utf8')
    const after = fstatSync(fd)
    if (after.size !== st.size) return { incomplete: 'still growing', mtimeMs: after.mtimeMs }
    return parseSpool(text, after.mtimeMs)
  })
  return isRefusal(got) ? got.why : got
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

/** Enough of a spool file's start for its magic line and its agent line. */
export const SPOOL_HEAD_BYTES = SPOOL_MAGIC.length + '\nagent '.length + 41

const AGENT_LINE = new RegExp(`^${SPOOL_MAGIC}\\nagent ([a-z0-9-]{1,40})\\n`)

/** Pure: the agent a spool file's first bytes name, if they name one. */
export const parseSpoolAgent = (head: string): string | null => AGENT_LINE.exec(head)?.[1] ?? null

/** The agent a spool file names, read from its start (a regular file of our own); null when none. */
export const readSpoolAgent = (path: string): string | null => {
  const head = readRegularHead(path, SPOOL_HEAD_BYTES, { ownOnly: true })
  return typeof head === 'string' ? parseSpoolAgent(head) : null
}

/** How long ago each spooled file of `agent` was last written (doctor: a fold that never runs). */
export const spoolAgesOf = (sdir: string, agent: string, now: number): number[] =>
  listSpool(sdir)
    .filter((f) => readSpoolAgent(join(sdir, f.name)) === agent)
    .map((f) => now - f.mtimeMs)
