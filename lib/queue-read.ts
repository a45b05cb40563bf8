// Effectful: reads records, transcripts, tmux panes and (rarely) screens, then hands the facts
// to the pure derivation in queue.ts. Shared by ls, show, go, watch, status and notify.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXIT_FAILURE, EXIT_USAGE, TrailbossError } from './errors.js'
import type { SessionRecord } from './events.js'
import type { Io } from './io.js'
import { trailbossHome, transcriptPathCheck, type Env } from './paths.js'
import { deriveQueue, isQueued, MAX_SCREEN_CHECKS_PER_RUN, SCREEN_CHECK_AFTER_MS, wantsScreenCheck, applyTranscript, type QueueItem, type ServerPanes } from './queue.js'
import { PRIVATE_DIR_MODE, writeFileAtomic } from './record-files.js'
import { classifyScreen, type ScreenVerdict } from './screen.js'
import { readStore, type SkippedFile } from './store.js'
import { callerSocket, capturePanes, execTmux, listPanes, TmuxUnavailable, type Pane, type TmuxExec } from './tmux.js'
import { deriveTranscriptVerdict, mayBeUserLine, readTranscriptAfter, TRANSCRIPT_READ_CAP, type TranscriptVerdict } from './transcript.js'

export interface QueueView {
  /** The waits, oldest first, numbered 1..n. */
  queue: QueueItem[]
  /** Every session: the waits first, then the others (n null), most recent first. */
  items: QueueItem[]
  skipped: SkippedFile[]
  /** False when tmux could not be run at all (cron's PATH): panes are unknown. */
  tmuxAvailable: boolean
  now: number
}

export interface LoadOptions {
  exec?: TmuxExec
  /** Screen checks are on unless a caller must stay cheaper than one capture-pane per session. */
  screens?: boolean
  /** Ended sessions are counted (for keys) but not loaded: for views that never show them. */
  skipEnded?: boolean
}

const LIVE = new Set(['working', 'permission', 'waiting'])

const checkTranscripts = (records: readonly SessionRecord[], env: Env, now: number): Map<string, TranscriptVerdict> => {
  const out = new Map<string, TranscriptVerdict>()
  const readable = transcriptPathCheck(env)
  for (const rec of records) {
    if (rec.headless || !LIVE.has(rec.state) || !readable(rec.transcriptPath)) continue
    const entries = readTranscriptAfter(rec.transcriptPath, rec.offset, TRANSCRIPT_READ_CAP, mayBeUserLine)
    if (!entries || entries.length === 0) continue
    const verdict = deriveTranscriptVerdict(
      entries,
      { promptId: rec.promptId, pendingToolUseId: rec.tool?.useId ?? null, permission: rec.state === 'permission' },
      now,
    )
    if (verdict) out.set(rec.sessionId, verdict)
  }
  return out
}

const askServers = async (records: readonly SessionRecord[], exec: TmuxExec): Promise<{ servers: Map<string, ServerPanes>; available: boolean }> => {
  const sockets = new Set<string>()
  for (const r of records) if (r.tmux && !r.headless && r.state !== 'ended') sockets.add(r.tmux.socket)
  const servers = new Map<string, ServerPanes>()
  let available = true
  await Promise.all(
    [...sockets].map(async (socket) => {
      // A socket file that no longer exists means its server is gone, without asking tmux.
      if (!existsSync(socket)) return servers.set(socket, { status: 'no-server' })
      try {
        const panes = await listPanes(socket, exec)
        if (panes === 'no-server') return servers.set(socket, { status: 'no-server' })
        const byId = new Map<string, Pane>(panes.map((p) => [p.paneId, p]))
        return servers.set(socket, { status: 'ok', serverPid: panes[0]?.serverPid ?? null, panes: byId })
      } catch (err) {
        if (err instanceof TmuxUnavailable) available = false
        return servers.set(socket, { status: 'unknown' })
      }
    }),
  )
  return { servers, available }
}

interface ScreenCacheEntry {
  at: number
  lastEventAt: number
  verdict: ScreenVerdict
}

const screenCacheFile = (env: Env): string => join(trailbossHome(env), 'screens.json')

const readScreenCache = (env: Env): Record<string, ScreenCacheEntry> => {
  try {
    const v: unknown = JSON.parse(readFileSync(screenCacheFile(env), 'utf8'))
    return typeof v === 'object' && v !== null ? (v as Record<string, ScreenCacheEntry>) : {}
  } catch {
    return {}
  }
}

/**
 * Screen checks, the last resort: at most one capture per session per SCREEN_CHECK_AFTER_MS
 * (remembered across runs in screens.json, since `status` runs every few seconds) and at most
 * MAX_SCREEN_CHECKS_PER_RUN captures per run.
 */
const checkScreens = async (
  records: readonly SessionRecord[],
  transcripts: ReadonlyMap<string, TranscriptVerdict>,
  servers: ReadonlyMap<string, ServerPanes>,
  env: Env,
  now: number,
  exec: TmuxExec,
): Promise<Map<string, ScreenVerdict>> => {
  const out = new Map<string, ScreenVerdict>()
  const candidates = records.filter((rec) => {
    if (!rec.tmux) return false
    const server = servers.get(rec.tmux.socket)
    if (server?.status !== 'ok' || !server.panes.has(rec.tmux.pane)) return false
    return wantsScreenCheck(rec, applyTranscript(rec, transcripts.get(rec.sessionId)).state, now)
  })
  if (candidates.length === 0) return out
  const cache = readScreenCache(env)
  const fresh: Record<string, ScreenCacheEntry> = {}
  const due: SessionRecord[] = []
  for (const rec of candidates.sort((a, b) => a.lastEventAt - b.lastEventAt)) {
    const cached = cache[rec.sessionId]
    if (cached && cached.lastEventAt === rec.lastEventAt && now - cached.at < SCREEN_CHECK_AFTER_MS) {
      out.set(rec.sessionId, cached.verdict)
      fresh[rec.sessionId] = cached
    } else if (due.length < MAX_SCREEN_CHECKS_PER_RUN) due.push(rec)
  }
  // One tmux run per server for all of its due panes.
  const bySocket = new Map<string, SessionRecord[]>()
  for (const rec of due) if (rec.tmux) bySocket.set(rec.tmux.socket, [...(bySocket.get(rec.tmux.socket) ?? []), rec])
  await Promise.all(
    [...bySocket].map(async ([socket, recs]) => {
      const texts = await capturePanes(socket, recs.map((r) => r.tmux?.pane ?? ''), exec).catch(() => recs.map(() => null))
      recs.forEach((rec, i) => {
        const text = texts[i]
        if (text === null || text === undefined) return
        const verdict = classifyScreen(text)
        out.set(rec.sessionId, verdict)
        fresh[rec.sessionId] = { at: now, lastEventAt: rec.lastEventAt, verdict }
      })
    }),
  )
  if (due.length > 0) {
    try {
      const home = trailbossHome(env)
      mkdirSync(home, { recursive: true, mode: PRIVATE_DIR_MODE })
      writeFileAtomic(screenCacheFile(env), JSON.stringify(fresh), home, '.screens')
    } catch {
      // A cache that cannot be written only costs a capture next time.
    }
  }
  return out
}

export const loadQueue = async (io: Pick<Io, 'env' | 'now'>, opts: LoadOptions = {}): Promise<QueueView> => {
  const exec = opts.exec ?? execTmux
  const now = io.now()
  const store = await readStore(io.env, undefined, { skipEnded: opts.skipEnded === true })
  // tmux answers while the transcripts are read: the list-panes processes start here.
  const asked = askServers(store.records, exec)
  const transcripts = checkTranscripts(store.records, io.env, now)
  const { servers, available } = await asked
  const screens = opts.screens === false ? new Map<string, ScreenVerdict>() : await checkScreens(store.records, transcripts, servers, io.env, now, exec)
  const items = deriveQueue(store.records, { transcripts, servers, screens }, store.endedIds)
  return { queue: items.filter(isQueued), items, skipped: store.skipped, tmuxAvailable: available, now }
}

/** One stderr line per skipped file, as every reading command reports them. */
export const reportSkipped = (view: Pick<QueueView, 'skipped'>, io: Pick<Io, 'stderr'>): void => {
  for (const s of view.skipped) io.stderr.write(`trailboss: skipped ${s.file}: ${s.why}\n`)
}

const describe = (item: QueueItem): string =>
  `${item.key} (${item.project ?? '?'}, ${item.state}${item.tmux ? `, pane ${item.tmux.pane}` : ''})`

/**
 * A number (queue position), a pane id (`%12`, the caller's tmux server first), or a key /
 * session-id prefix (DESIGN §4). Ambiguity is an error that lists the candidates.
 */
export const resolveTarget = (view: QueueView, target: string, io: Pick<Io, 'env'>): QueueItem => {
  const t = target.trim()
  // An empty prefix would match every session: say what is missing instead.
  if (t === '') throw new TrailbossError('no session named', 'give a number, a key or a pane id from trailboss ls', EXIT_USAGE)
  if (/^\d{1,4}$/.test(t)) {
    const n = Number(t)
    const item = view.queue.find((i) => i.n === n)
    if (item) return item
    throw new TrailbossError(
      view.queue.length === 0 ? `nothing waits, so there is no number ${n}` : `no wait number ${n}; the queue has 1–${view.queue.length}`,
      'see trailboss ls',
    )
  }
  if (/^%\d+$/.test(t)) {
    const live = view.items.filter((i) => i.tmux?.pane === t && i.state !== 'gone' && i.state !== 'ended')
    const socket = callerSocket(io.env.TMUX)
    const mine = socket ? live.filter((i) => i.tmux?.socket === socket) : []
    const pick = mine.length > 0 ? mine : live
    if (pick.length === 1 && pick[0]) return pick[0]
    if (pick.length === 0) throw new TrailbossError(`no live session in pane ${t}`, 'see trailboss ls --all')
    throw new TrailbossError(`pane ${t} exists on several tmux servers: ${pick.map(describe).join('; ')}`, 'name the session by its key instead', EXIT_FAILURE)
  }
  const matches = view.items.filter((i) => i.sessionId.startsWith(t))
  if (matches.length === 1 && matches[0]) return matches[0]
  if (matches.length === 0) throw new TrailbossError(`no session matches ${JSON.stringify(t)}`, 'use a number, a key or a pane id from trailboss ls')
  throw new TrailbossError(`${JSON.stringify(t)} matches ${matches.length} sessions: ${matches.map(describe).join('; ')}`, 'type more of the key')
}
