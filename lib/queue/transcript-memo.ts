// Transcript verdicts remembered between runs ($TRAILBOSS_HOME/transcripts.json): `ls` and
// `status` run every few seconds over the same live sessions, and most of their transcripts did
// not change since the last run. A verdict is kept with what it was worked out from: the record's
// fields the agents' checks read, and the transcript file's identity and change stamp (as
// records.json keeps records). Any write to the transcript or a new event of the record misses
// it, and the transcript is read and checked as ever.
import { join } from 'node:path'
import type { TranscriptVerdict } from '../agents/types.js'
import { tryWriteHomeFile } from '../fs/home-file.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
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
  JSON.stringify([rec.agent, rec.transcriptPath, rec.offset, rec.state, rec.promptId, rec.tool?.useId ?? null, rec.since, rec.headless, rec.lastEventAt])

const VERDICTS = new Set(['moved-on', 'interrupted', 'error'])

const isVerdict = (v: unknown): v is TranscriptVerdict | null => {
  if (v === null) return true
  if (typeof v !== 'object') return false
  const o = v as { verdict?: unknown; at?: unknown; why?: unknown; message?: unknown }
  if (typeof o.verdict !== 'string' || !VERDICTS.has(o.verdict) || typeof o.at !== 'number') return false
  if (o.verdict === 'moved-on') return o.why === 'new-prompt' || o.why === 'tool-answered'
  if (o.verdict === 'error') return typeof o.message === 'string'
  return true
}

/** Pure: the entries a file's text holds; anything unexpected is left out (or no memo at all). */
export const parseTranscriptMemo = (text: string): Map<string, TranscriptMemoEntry> => {
  const entries = new Map<string, TranscriptMemoEntry>()
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return entries
  }
  const file = v as { v?: unknown; entries?: unknown } | null
  if (typeof file !== 'object' || file === null || file.v !== TRANSCRIPT_MEMO_VERSION) return entries
  if (typeof file.entries !== 'object' || file.entries === null || Array.isArray(file.entries)) return entries
  for (const [id, e] of Object.entries(file.entries as Record<string, unknown>)) {
    const entry = e as Partial<TranscriptMemoEntry> | null
    if (typeof entry === 'object' && entry !== null && typeof entry.r === 'string' && typeof entry.f === 'string' && isVerdict(entry.v)) entries.set(id, { r: entry.r, f: entry.f, v: entry.v })
  }
  return entries
}

/** Pure: the file's text for these entries. */
export const formatTranscriptMemo = (entries: ReadonlyMap<string, TranscriptMemoEntry>): string =>
  JSON.stringify({ v: TRANSCRIPT_MEMO_VERSION, entries: Object.fromEntries(entries) })

export const transcriptMemoFile = (env: Env): string => join(trailbossHome(env), 'transcripts.json')

/** The memo; missing, unreadable, corrupt or of another version = empty. */
export const readTranscriptMemo = (env: Env): TranscriptMemo => {
  // Never blocks on a FIFO, never follows a link, never reads past a state file's cap.
  const got = readRegularFile(transcriptMemoFile(env), { cap: READ_CAP.state, ownOnly: true })
  return got.ok ? { entries: parseTranscriptMemo(got.text), text: got.text } : { entries: new Map(), text: '' }
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
  tryWriteHomeFile(env, trailbossHome(env), transcriptMemoFile(env), text, '.transcripts')
}
