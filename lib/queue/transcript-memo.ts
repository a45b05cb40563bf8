// Transcript verdicts remembered between runs ($TRAILBOSS_HOME/transcripts.json): `ls` and
// `status` run every few seconds over the same live sessions, and most of their transcripts did
// not change since the last run. A verdict is kept with what it was worked out from: the record's
// fields the agents' checks read, and the transcript file's identity and change stamp (as
// records.json keeps records). Any write to the transcript or a new event of the record misses
// it, and the transcript is read and checked as ever.
import { join } from 'node:path'
import type { TranscriptVerdict } from '../agents/types.js'
import { checkTranscripts } from '../cache/check.generated.js'
import { type CacheFile, deriveCacheProblem, readCache, writeCache } from '../fs/cache-file.js'
import { READ_CAP } from '../fs/safe-file.js'
import { type Env, trailbossHome } from '../paths.js'
import type { SessionRecord } from '../record/types.js'

/** Bumped when what an entry holds changes: a memo of another version is none. */
export const TRANSCRIPT_MEMO_VERSION = 1

export interface TranscriptMemoEntry {
  /** deriveVerdictInputs of the record the verdict was worked out for. */
  r: string
  /** deriveFileStamp (lib/fs/file-stamp.ts) of the transcript it was read from. */
  f: string
  v: TranscriptVerdict | null
}

export interface TranscriptMemo {
  entries: Map<string, TranscriptMemoEntry>
  /** The file's text as read ('' when none): a run that changed nothing writes nothing. */
  text: string
}

/**
 * Pure: what of a record the agents' transcript checks read (lib/agents/<id>/index.ts
 * transcriptChecker), as one string; the record's last event too, so a new event always misses.
 */
export const deriveVerdictInputs = (rec: SessionRecord): string =>
  JSON.stringify([
    rec.agent,
    rec.transcriptPath,
    rec.offset,
    rec.state,
    rec.promptId,
    rec.tool?.useId ?? null,
    rec.since,
    rec.headless,
    rec.lastEventAt,
  ])

/** Pure: the entries of a file that passed its check (lib/schemas/caches.ts). */
const toEntries = (file: { entries: Record<string, TranscriptMemoEntry> } | null): Map<string, TranscriptMemoEntry> =>
  new Map(file ? Object.entries(file.entries) : [])

/** Pure: the entries a file's text holds; none for anything but a memo of this version. */
export const parseTranscriptMemo = (text: string): Map<string, TranscriptMemoEntry> => {
  const got = deriveCacheProblem(text, checkTranscripts)
  return toEntries(typeof got === 'object' ? (got.data as { entries: Record<string, TranscriptMemoEntry> }) : null)
}

/** Pure: the file's text for these entries. */
export const formatTranscriptMemo = (entries: ReadonlyMap<string, TranscriptMemoEntry>): string =>
  JSON.stringify({ v: TRANSCRIPT_MEMO_VERSION, entries: Object.fromEntries(entries) })

export const transcriptMemoFile = (env: Env): string => join(trailbossHome(env), 'transcripts.json')

const transcriptMemo = (env: Env): CacheFile => ({
  file: transcriptMemoFile(env),
  dir: trailbossHome(env),
  check: checkTranscripts,
  tmpPrefix: '.transcripts',
})

/** The memo; missing, unreadable, corrupt or of another version = empty. */
export const readTranscriptMemo = (env: Env): TranscriptMemo => {
  const got = readCache<{ entries: Record<string, TranscriptMemoEntry> }>(env, transcriptMemo(env))
  return { entries: toEntries(got.value), text: got.text }
}

/** Pure: whether two memos hold the same entries (a verdict follows from its inputs and stamp). */
export const sameMemoEntries = (a: ReadonlyMap<string, TranscriptMemoEntry>, b: ReadonlyMap<string, TranscriptMemoEntry>): boolean => {
  if (a.size !== b.size) return false
  for (const [id, e] of a) {
    const other = b.get(id)
    if (other?.f !== e.f || other.r !== e.r) return false
  }
  return true
}

/** Written only when it changed; one that cannot be written costs a read of each transcript next time. */
export const writeTranscriptMemo = (env: Env, before: TranscriptMemo, entries: ReadonlyMap<string, TranscriptMemoEntry>): void => {
  if (sameMemoEntries(before.entries, entries) && (before.text !== '' || entries.size === 0)) return
  const text = formatTranscriptMemo(entries)
  if (text.length > READ_CAP.state) return
  writeCache(env, transcriptMemo(env), text)
}
