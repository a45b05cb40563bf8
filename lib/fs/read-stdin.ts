// The emitter's event, read from descriptor 0 without process.stdin: on a pipe or a socket,
// Node's stream for it loads `net` and the stream modules, about a fifth of a Node start-up by
// themselves, on every agent event. A plain synchronous read of descriptor 0 would block for
// good on a stdin its writer never closes, and no timer fires during a synchronous read; so
// stdin is read without blocking, until its end, with a short sleep whenever it is empty, up
// to the stdin deadline:
// - a pipe or FIFO (what Codex's hooks get) is opened anew through /proc: a second open file
//   description of the same pipe, non-blocking, which leaves descriptor 0 as it is;
// - a socket (Node's child processes get one end of a socket pair for a "pipe": Claude Code's
//   and Gemini CLI's hooks) cannot be opened anew; libuv's pipe handle, opened on descriptor 0
//   and never read from, makes it non-blocking, as process.stdin would (Node puts the flag
//   back at exit);
// - a regular file or /dev/null never waits on a writer: read as it is.
// Anything else (a terminal, no /proc, an open or a handle refused) is left to the stream.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs'
import { sleepSync } from '../clock.js'
import { nodeBinding } from '../node-binding.js'

/** What stdin held: its text, or null when it was over the cap or failed midway; and its size. */
export interface StdinText {
  text: string | null
  bytes: number
}

/** Descriptor 0's stdin was read; 'deadline' when it was still open at `until`; null when it is not a kind read here. */
export type StdinRead = StdinText | 'deadline' | null

/** A pipe's buffer is 64 KiB by default: one read takes what a writer has put in. */
const CHUNK_BYTES = 64 * 1024
/** Sleeps while an open pipe is empty grow to this; a payload still coming waits at most this long more. */
const LONGEST_SLEEP_MS = 8

const isDevNull = (st: Stats): boolean => {
  try {
    return st.rdev === statSync('/dev/null').rdev
  } catch {
    return false
  }
}

/** libuv's pipe handle, which Node keeps off its public API; undefined where this Node has none to give. */
interface PipeHandle {
  open(fd: number): number
  close(): void
}
type PipeBinding = { Pipe: new (type: number) => PipeHandle; constants: { SOCKET: number } }

/** Descriptor 0 made non-blocking by a pipe handle opened on it; null when this Node refuses. */
const openNonBlocking = (): PipeHandle | null => {
  const binding = nodeBinding<PipeBinding>('pipe_wrap')
  if (!binding) return null
  try {
    const handle = new binding.Pipe(binding.constants.SOCKET)
    if (handle.open(0) === 0) return handle
    handle.close()
    return null
  } catch {
    return null
  }
}

interface Opened {
  fd: number
  /** What to undo once read: close a descriptor of our own, or the pipe handle (which leaves descriptor 0 open). */
  done: () => void
}

/** The descriptor to read stdin from without blocking for good, or null to leave stdin to the stream. */
const openForReading = (): Opened | null => {
  let st: Stats
  try {
    st = fstatSync(0)
  } catch {
    return null
  }
  // A read of a file or of /dev/null never waits on a writer.
  if (st.isFile() || (st.isCharacterDevice() && isDevNull(st))) return { fd: 0, done: () => {} }
  if (st.isFIFO()) {
    try {
      const fd = openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK)
      return { fd, done: () => closeSync(fd) }
    } catch {
      // No /proc: the stream reads it.
      return null
    }
  }
  if (!st.isSocket()) return null
  const handle = openNonBlocking()
  return handle ? { fd: 0, done: () => handle.close() } : null
}

/**
 * Reads all of stdin: the text when it holds at most `maxBytes` (more is read and dropped, so
 * the writer is never left blocked on a full pipe), until the clock passes `until` (ms since
 * the epoch).
 */
export const readStdinSync = (maxBytes: number, until: number): StdinRead => {
  const opened = openForReading()
  if (!opened) return null
  const chunks: Buffer[] = []
  let bytes = 0
  let sleepMs = 1
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES)
      let n: number
      try {
        n = readSync(opened.fd, buf, 0, CHUNK_BYTES, null)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return { text: null, bytes }
        if (Date.now() >= until) return 'deadline'
        sleepSync(sleepMs)
        sleepMs = Math.min(sleepMs * 2, LONGEST_SLEEP_MS)
        continue
      }
      if (n === 0) break
      sleepMs = 1
      bytes += n
      if (bytes <= maxBytes) chunks.push(buf.subarray(0, n))
      else chunks.length = 0
      // A file or a pipe that never runs dry (a writer that never stops) ends at the deadline too.
      if (Date.now() >= until) return 'deadline'
    }
  } finally {
    opened.done()
  }
  return { text: bytes <= maxBytes ? Buffer.concat(chunks).toString('utf8') : null, bytes }
}
