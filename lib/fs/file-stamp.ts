// A file's identity and change stamp, for what is remembered between runs by the file it came
// from (records.json, transcripts.json): equal stamps mean the same unchanged file, so a run
// takes what was worked out from it instead of reading it again.
import { type BigIntStats, lstatSync } from 'node:fs'

/**
 * File timestamps move in clock ticks (coarse on some filesystems): a file changed again within
 * the tick of the stamp we saw would keep that stamp. Something is remembered by a file only once
 * its ctime is this much older than the moment it was read, so a later write lands in a later tick.
 */
export const SETTLED_MS = 2000

/** Pure: the identity and change stamp of a file; equal stamps mean the same unchanged file. */
export const deriveFileStamp = (st: Pick<BigIntStats, 'dev' | 'ino' | 'size' | 'mtimeNs' | 'ctimeNs'>): string =>
  `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`

/** Pure: whether a file whose last change is `ctimeNs` may be remembered when read at `readAt` (ms). */
export const isSettled = (ctimeNs: bigint, readAt: number): boolean => ctimeNs <= BigInt(Math.floor(readAt - SETTLED_MS)) * 1_000_000n

/** This process's uid, as lstat's bigint fields give one; null where there is none (Windows). */
export const myUid = (): bigint | null => (typeof process.getuid === 'function' ? BigInt(process.getuid()) : null)

/**
 * The lstat of a file that may be stood for by what was remembered of it: a regular file
 * (never a link, a FIFO or a device) of our own (`uid`), at most `maxBytes`. Anything else
 * answers null, and the caller reads it, or refuses it, as it would without a memo.
 */
export const statOwnRegularFile = (path: string, uid: bigint | null, maxBytes = Number.POSITIVE_INFINITY): BigIntStats | null => {
  let st: BigIntStats | undefined
  try {
    st = lstatSync(path, { bigint: true, throwIfNoEntry: false })
  } catch {
    return null
  }
  if (!st || !st.isFile() || Number(st.size) > maxBytes) return null
  if (uid !== null && st.uid !== uid) return null
  return st
}
