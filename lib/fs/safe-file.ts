// The one way Trail Boss opens a file it did not just create: without blocking (a FIFO named
// like a record must not hang a command), only a regular file (not a device, a folder or a
// socket), optionally never through a symlink, optionally only one of our own, and never more
// than a stated number of bytes. Also the one append that never follows a link, and the check
// that a TRAILBOSS_HOME is ours before anything is written into it.
// Light on purpose: the emitter imports it (node builtins only).
import { type Stats, closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, writeSync } from 'node:fs'

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants

/** Caps of each kind of file we read: far above what we write, far below what hurts. */
export const READ_CAP = {
  /** A record is under 64 KB (4 KB per field). */
  record: 1024 * 1024,
  /** One event, under 64 KB like a record. */
  pending: 1024 * 1024,
  /** Claude Code's settings, Codex's hooks.json, Gemini's settings.json. */
  settings: 4 * 1024 * 1024,
  /** The screens cache and notify's state: one small entry per session. */
  state: 4 * 1024 * 1024,
} as const

export interface OpenOptions {
  /** Follow a symlink at the last component (settings files are often links into dotfiles). */
  follow?: boolean
  /** Accept only a file owned by this process's user (a file another user planted is skipped). */
  ownOnly?: boolean
}

/** Why a file was not read; `missing` tells "not there" (often fine) from "not acceptable". */
export interface Refusal {
  ok: false
  why: string
  missing: boolean
}

const KINDS: [string, (s: Stats) => boolean][] = [
  ['a FIFO', (s) => s.isFIFO()],
  ['a folder', (s) => s.isDirectory()],
  ['a character device', (s) => s.isCharacterDevice()],
  ['a block device', (s) => s.isBlockDevice()],
  ['a socket', (s) => s.isSocket()],
]

/** Pure: what a file that is not a regular file is, in words. */
export const describeKind = (st: Stats): string => KINDS.find(([, is]) => is(st))?.[0] ?? 'not a regular file'

const refusal = (why: string, missing = false): Refusal => ({ ok: false, why, missing })

const myUid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null)

const refuseOpenError = (err: unknown, follow: boolean): Refusal => {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return refusal('missing', true)
  // O_NOFOLLOW on a link fails with ELOOP (EMLINK on some BSDs).
  if (!follow && (code === 'ELOOP' || code === 'EMLINK')) return refusal('a symlink, not followed')
  if (code === 'ENXIO') return refusal('a socket or device, not a regular file')
  return refusal(`unreadable (${code ?? (err as Error).message})`)
}

/**
 * Opens `path` for reading and hands `use` the descriptor and size of a regular file; closes
 * it afterwards. Never blocks on open (O_NONBLOCK: a FIFO without a writer opens at once and
 * is then refused), never makes a terminal ours (O_NOCTTY).
 */
export const withRegularFile = <T>(path: string, opts: OpenOptions, use: (fd: number, st: Stats) => T): T | Refusal => {
  const follow = opts.follow === true
  let fd: number
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW))
  } catch (err) {
    return refuseOpenError(err, follow)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return refusal(`${describeKind(st)}, not a regular file`)
    const uid = myUid()
    if (opts.ownOnly === true && uid !== null && st.uid !== uid) return refusal(`owned by another user (uid ${st.uid})`)
    return use(fd, st)
  } finally {
    closeSync(fd)
  }
}

export const isRefusal = (v: unknown): v is Refusal =>
  typeof v === 'object' && v !== null && (v as Refusal).ok === false && typeof (v as Refusal).why === 'string'

/** Reads `length` bytes at `position` (fewer if the file shrank meanwhile). */
export const readRange = (fd: number, position: number, length: number): Buffer => {
  const buf = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done)
    if (n === 0) break
    done += n
  }
  return buf.subarray(0, done)
}

export interface ReadOptions extends OpenOptions {
  /** A file larger than this is refused unread (a 2 GB sparse file costs nothing). */
  cap: number
}

/** The whole text of a regular file of at most `cap` bytes, or why it was not read. */
export const readRegularFile = (path: string, opts: ReadOptions): { ok: true; text: string; st: Stats } | Refusal => {
  const got = withRegularFile(path, opts, (fd, st) => {
    if (st.size > opts.cap) return refusal(`larger than ${opts.cap} bytes (${st.size})`)
    return { ok: true as const, text: readRange(fd, 0, st.size).toString('utf8'), st }
  })
  return got
}

/** readRegularFile for files that may rightly be missing: null when absent, text, or a refusal. */
export const readRegularIfExists = (path: string, opts: ReadOptions): string | null | Refusal => {
  const got = readRegularFile(path, opts)
  if (got.ok) return got.text
  return got.missing ? null : got
}

/** The first `bytes` bytes of a regular file (all of a shorter one), or why it was not read. */
export const readRegularHead = (path: string, bytes: number, opts: OpenOptions = {}): string | Refusal =>
  withRegularFile(path, opts, (fd, st) => readRange(fd, 0, Math.min(bytes, st.size)).toString('utf8'))

/**
 * Appends `text` to `path` (created 0600), never through a symlink and never into anything but
 * a regular file of our own: a planted `log` link must not carry our lines into another file.
 * Throws when it will not write.
 */
export const appendPrivate = (path: string, text: string): void => {
  const fd = openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
  try {
    const st = fstatSync(fd)
    const uid = myUid()
    if (!st.isFile()) throw new Error(`${path} is ${describeKind(st)}, not a regular file`)
    if (uid !== null && st.uid !== uid) throw new Error(`${path} belongs to another user (uid ${st.uid})`)
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
}

/** Why a folder may not hold our files, or null when it may (or does not exist yet). */
export const checkOwnFolder = (dir: string): string | null => {
  let st: Stats
  try {
    st = lstatSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    return `cannot be checked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`
  }
  // A link to a folder of our own is a person's choice (a home on another disk); follow it once.
  if (st.isSymbolicLink()) {
    try {
      st = statSync(dir)
    } catch (err) {
      return `is a symlink that cannot be followed (${(err as NodeJS.ErrnoException).code})`
    }
  }
  return deriveFolderProblem(st, myUid())
}

/**
 * Pure: a folder owned by someone else may hold anything they planted, and we would write our
 * records (commands, messages) where they can read them. Looser modes of our own folder are
 * tightened by the writer (ensurePrivateDir), so only the owner decides here.
 */
export const deriveFolderProblem = (st: Pick<Stats, 'uid' | 'mode' | 'isDirectory'>, uid: number | null): string | null => {
  if (!st.isDirectory()) return 'is not a folder'
  if (uid !== null && st.uid !== uid) return `belongs to another user (uid ${st.uid}, we are ${uid})`
  return null
}
