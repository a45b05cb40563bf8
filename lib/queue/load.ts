// Effectful: reads records, transcripts, tmux panes and (rarely) screens, then hands the facts
// to the pure derivation in queue/derive.ts. Shared by ls, show, go, watch, status and notify.
import { isFresh } from '../clock.js'
import { existsSync } from 'node:fs'
import type { SessionRecord } from '../record/types.js'
import type { Io } from '../io.js'
import { type Env, sessionsDir } from '../paths.js'
import { readSeenMarks, deriveSeenUpdate, writeSeenMark, type SeenMark } from './seen.js'
import { deriveNumbering, readNumbers, unreadHosts, waitKey } from './numbers.js'
import {
  deriveQueue,
  inDefaultQueue,
  isQueued,
  orderItems,
  MAX_SCREEN_CHECKS_PER_RUN,
  SCREEN_CHECK_AFTER_MS,
  wantsScreenCheck,
  applyTranscript,
  type QueueItem,
  type ServerPanes,
} from './derive.js'
import { agentFor } from '../agents/index.js'
import { hooksFor } from '../agents/hook-registry.js'
import type { AgentAdapter, LiveWait, ScreenVerdict, TranscriptVerdict } from '../agents/types.js'
import { readStore, type SkippedFile } from '../record/read.js'
import {
  deriveHookless,
  derivePanesToSearch,
  type Hookless,
  discoverInPanes,
  discoverySockets,
  hooklessReason,
  listPublishedSessions,
  NO_HOOKS_HINT,
  readHooklessScreens,
  toHooklessRecord,
} from './discover.js'
import { type DiscoveryCache, readDiscoveryCache, type WaitMemo, writeDiscoveryCache } from './discovery-cache.js'
import { applyHooklessAsk, readHooklessAsks } from './hookless-ask.js'
import { deriveContinuedWait, deriveSincePrompt, deriveWaitMemo, mayContinueWait } from './hookless-wait.js'
import { readScreenCache, type ScreenCacheEntry, writeScreenCache } from './screen-cache.js'
import { deriveVerdictInputs, readTranscriptMemo, type TranscriptMemoEntry, writeTranscriptMemo } from './transcript-memo.js'
import { deriveFileStamp, isSettled, myUid, statOwnRegularFile } from '../fs/file-stamp.js'
import { execTmuxIn, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { appendEntries } from '../history/append.js'
import { deriveAskText, deriveReadChange } from '../history/changes.js'
import { MARKS_KEEP_MS } from '../history/files.js'
import type { HistoryEntry } from '../history/types.js'
import { capturePanes, deriveClientActivity, listPanes, panesById } from '../tmux/panes.js'

export interface QueueView {
  /**
   * The default queue (derive.ts inDefaultQueue): the waits that need the person, seen or not,
   * oldest first, then the finished turns not yet seen. Each wait carries its kept number.
   */
  queue: QueueItem[]
  /** Every session: the waits first (seen ones too), then the others (n null), most recent first. */
  items: QueueItem[]
  skipped: SkippedFile[]
  /** False when tmux could not be run at all (cron's PATH): panes are unknown. */
  tmuxAvailable: boolean
  /** The latest client activity (ms) of the tmux servers read, as tmux said it; null when no client is attached. */
  clientActivityAt?: number | null
  /** The sessions found without a record (no hooks ran in them), for doctor. */
  hookless: readonly Hookless[]
  now: number
}

export interface LoadOptions {
  exec?: TmuxExec
  /** Screen checks are on unless a caller must stay cheaper than one capture-pane per session. */
  screens?: boolean
  /** Ended sessions are counted (for keys) but not loaded: for views that never show them. */
  skipEnded?: boolean
  /** Sessions without a record (no hooks ran in them) are found too, unless a caller only cleans records. */
  discover?: boolean
  /** Note waits whose pane is in front of the person, and mark them seen after a while (default on). */
  autoSeen?: boolean
  /**
   * Other hosts' items (lib/remote/fleet.ts), read while this machine's are: merged into the
   * queue's order before numbering, so numbers are given across all hosts by one book.
   */
  remote?: Promise<readonly QueueItem[]>
  /**
   * The hosts `remote` reads (all of them, stale or not): the numbers of the waits of every other
   * host are kept as they are, since this run did not look (`ls --local`, a command that reads
   * no host).
   */
  remoteHosts?: readonly string[]
}

/** The seen `since` of each session whose mark says seen: deriveQueue's `seen` fact. */
const seenSinces = (marks: ReadonlyMap<string, SeenMark>): Map<string, number> =>
  new Map([...marks].flatMap(([id, m]) => (m.seenAt !== null ? [[id, m.since] as const] : [])))

interface TranscriptCheck {
  check: ReturnType<AgentAdapter['transcriptChecker']>
  fileOf: ReturnType<AgentAdapter['transcriptFile']>
}

/**
 * The agents' transcript checks (lib/agents/): what the person did since each wait began. A
 * verdict whose transcript and record are unchanged since a run remembered it is not worked out
 * again (lib/queue/transcript-memo.ts): a stat instead of a read and a parse.
 */
const checkTranscripts = (records: readonly SessionRecord[], env: Env, now: number): Map<string, TranscriptVerdict> => {
  const out = new Map<string, TranscriptVerdict>()
  const checks = new Map<string, TranscriptCheck>()
  const memo = readTranscriptMemo(env)
  const kept = new Map<string, TranscriptMemoEntry>()
  const uid = myUid()
  for (const rec of records) {
    const agent = agentFor(rec.agent)
    if (!agent) continue
    let c = checks.get(agent.id)
    if (!c) checks.set(agent.id, (c = { check: agent.transcriptChecker(env), fileOf: agent.transcriptFile(env) }))
    const file = c.fileOf(rec)
    const st = file === null ? null : statOwnRegularFile(file, uid)
    let verdict: TranscriptVerdict | null
    if (st === null) verdict = c.check(rec, now)
    else {
      const entry = { r: deriveVerdictInputs(rec), f: deriveFileStamp(st) }
      const old = memo.entries.get(rec.sessionId)
      if (old && old.r === entry.r && old.f === entry.f) {
        verdict = old.v
        kept.set(rec.sessionId, old)
      } else {
        verdict = c.check(rec, now)
        // A transcript written within the last tick of its clock could change again unseen.
        if (isSettled(st.ctimeNs, now)) kept.set(rec.sessionId, { ...entry, v: verdict })
      }
    }
    if (verdict) out.set(rec.sessionId, verdict)
  }
  writeTranscriptMemo(env, memo, kept)
  return out
}

/** The agents' own word on which sessions wait (lib/agents/types.ts LiveWait). */
const checkLiveWaits = (records: readonly SessionRecord[], env: Env): Map<string, LiveWait> => {
  const out = new Map<string, LiveWait>()
  const checkers = new Map<string, ((rec: SessionRecord) => LiveWait | null) | null>()
  for (const rec of records) {
    if (rec.state !== 'working' && rec.state !== 'permission') continue
    const agent = agentFor(rec.agent)
    if (!agent?.liveWaitChecker) continue
    let check = checkers.get(agent.id)
    if (check === undefined) checkers.set(agent.id, (check = agent.liveWaitChecker(env)))
    const wait = check?.(rec)
    if (wait) out.set(rec.sessionId, wait)
  }
  return out
}

/** One server's panes; 'unavailable' when tmux could not be run at all. */
const askServer = async (socket: string, exec: TmuxExec): Promise<ServerPanes | 'unavailable'> => {
  // A socket file that no longer exists means its server is gone, without asking tmux.
  if (!existsSync(socket)) return { status: 'no-server' }
  try {
    const panes = await listPanes(socket, exec)
    if (panes === 'no-server') return { status: 'no-server' }
    return { status: 'ok', serverPid: panes[0]?.serverPid ?? null, panes: panesById(panes), clientActivityAt: deriveClientActivity(panes) }
  } catch (err) {
    return err instanceof TmuxUnavailable ? 'unavailable' : { status: 'unknown' }
  }
}

/**
 * Asks each tmux server once, as soon as a live record names it: `list-panes` (a process
 * start and a walk of every pane) then runs beside the reading of the other records and the
 * transcripts, instead of after them.
 */
const serverAsker = (
  exec: TmuxExec,
): {
  ask: (socket: string) => void
  see: (rec: SessionRecord) => void
  answers: () => Promise<{ servers: Map<string, ServerPanes>; available: boolean }>
} => {
  const asked = new Map<string, Promise<ServerPanes | 'unavailable'>>()
  const ask = (socket: string): void => {
    if (!asked.has(socket)) asked.set(socket, askServer(socket, exec))
  }
  return {
    ask,
    see: (rec) => {
      if (rec.tmux && !rec.headless && rec.state !== 'ended') ask(rec.tmux.socket)
    },
    answers: async () => {
      const servers = new Map<string, ServerPanes>()
      let available = true
      for (const [socket, answer] of asked) {
        const got = await answer
        if (got === 'unavailable') available = false
        servers.set(socket, got === 'unavailable' ? { status: 'unknown' } : got)
      }
      return { servers, available }
    },
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
    if (cached && cached.lastEventAt === rec.lastEventAt && isFresh(cached.at, now, SCREEN_CHECK_AFTER_MS)) {
      out.set(rec.sessionId, cached.verdict)
      fresh[rec.sessionId] = cached
    } else if (due.length < MAX_SCREEN_CHECKS_PER_RUN) due.push(rec)
  }
  // One tmux run per server for all of its due panes.
  const bySocket = new Map<string, SessionRecord[]>()
  for (const rec of due) if (rec.tmux) bySocket.set(rec.tmux.socket, [...(bySocket.get(rec.tmux.socket) ?? []), rec])
  await Promise.all(
    [...bySocket].map(async ([socket, recs]) => {
      const texts = await capturePanes(
        socket,
        recs.map((r) => r.tmux?.pane ?? ''),
        exec,
      ).catch(() => recs.map(() => null))
      recs.forEach((rec, i) => {
        const text = texts[i]
        if (text === null || text === undefined) return
        const verdict = agentFor(rec.agent)?.classifyScreen(text) ?? 'unknown'
        out.set(rec.sessionId, verdict)
        fresh[rec.sessionId] = { at: now, lastEventAt: rec.lastEventAt, verdict }
      })
    }),
  )
  if (due.length > 0) writeScreenCache(env, fresh)
  return out
}

/**
 * Gives each wait its number (queue/numbers.ts). A run that saw the whole queue writes the book
 * when it changed; a run that did not (no screen checks, no discovery: a wait only they find may
 * be missing) writes nothing, so it frees no number, and gives a wait the book does not know a
 * number for this run only. So does a run that could not write the book (its lock busy past the
 * emitter's bound, or a home that is not writable). Numbering in memory never gives a held
 * number away: a number freed now is held like any other.
 */
const numberWaits = async (env: Env, items: QueueItem[], now: number, complete: boolean, readHosts: readonly string[]): Promise<void> => {
  const waits = items.filter(isQueued)
  if (waits.length === 0 && !complete) return
  const { entries: book, bad } = readNumbers(env)
  const unread = unreadHosts(readHosts)
  let numbering = deriveNumbering(book, waits, now, undefined, unread)
  // A bad book is rewritten by its writer, changed or not: said once, not on every run.
  if ((numbering.changed || bad) && complete) {
    const { writeNumbering } = await import('./numbers-write.js')
    numbering = (await writeNumbering(env, waits, now, unread)) ?? numbering
  }
  for (const item of waits) item.n = numbering.numbers.get(waitKey(item)) ?? null
}

/**
 * The hook-less records with their asks (lib/queue/hookless-ask.ts), and the records whose
 * first hook continues a wait discovery gave their session (lib/queue/hookless-wait.ts). What
 * discovery gave each hook-less wait is remembered for that.
 */
const applyHooklessWaits = (
  hooked: readonly SessionRecord[],
  hookless: readonly SessionRecord[],
  cache: DiscoveryCache,
  env: Env,
  now: number,
  screensOff: boolean,
): SessionRecord[] => {
  const asks = readHooklessAsks(hookless, cache, env)
  const waits: Record<string, WaitMemo> = {}
  const found = hookless.map((r) => {
    const rec = applyHooklessAsk(r, asks.get(r.sessionId))
    const old = cache.waits[rec.sessionId]
    if (rec.state === 'waiting' || rec.state === 'permission')
      waits[rec.sessionId] = deriveWaitMemo(rec, old, asks.get(rec.sessionId)?.size ?? -1)
    // A read without screens (doctor) saw no state: what an earlier read saw still holds.
    else if (old && screensOff) waits[rec.sessionId] = old
    return rec
  })
  const records = hooked.map((rec) => {
    const memo = cache.waits[rec.sessionId]
    if (!memo || waits[rec.sessionId] || !mayContinueWait(rec, memo)) return rec
    let continues = memo.record?.firstEventAt === rec.firstEventAt ? memo.record.continues : undefined
    if (continues === undefined) {
      // Read once per record: a prompt after the hook-less wait began means a new turn ended since.
      const verdict = agentFor(rec.agent)?.transcriptChecker(env)(deriveSincePrompt(rec, memo), now)
      continues = !(verdict?.verdict === 'moved-on' && verdict.why === 'new-prompt')
    }
    waits[rec.sessionId] = { ...memo, record: { firstEventAt: rec.firstEventAt, continues } }
    return continues ? deriveContinuedWait(rec, memo) : rec
  })
  cache.waits = waits
  return [...records, ...found]
}

/** The wait's pane is the one a client shows (tmux's word, from the same list-panes). */
const inFront = (item: QueueItem, servers: ReadonlyMap<string, ServerPanes>): boolean => {
  if (!item.tmux || item.tmux.alive !== true) return false
  const server = servers.get(item.tmux.socket)
  return server?.status === 'ok' && server.panes.get(item.tmux.pane)?.inFront === true
}

/**
 * The changes a check on read found (a wait answered in the transcript, a pane found gone), to
 * the history (docs/design.md §11): every reader that notices one offers it, and its mark lets
 * only the first write it. Sessions found without hooks are not logged: nothing dates them.
 */
const logReadChanges = (env: Env, items: readonly QueueItem[], hookless: ReadonlySet<string>, now: number): void => {
  const entries: HistoryEntry[] = []
  for (const i of items) {
    if (i.reason === null || i.remote || hookless.has(i.sessionId)) continue
    const ask = deriveAskText(i.ask.tool, i.ask.input, i.ask.message)
    const e = deriveReadChange(i.record, { state: i.state, kind: i.kind, since: i.since, ask })
    if (e && now - e.at <= MARKS_KEEP_MS) entries.push(e)
  }
  if (entries.length > 0) appendEntries(env, entries)
}

export const loadQueue = async (io: Pick<Io, 'env' | 'now'>, opts: LoadOptions = {}): Promise<QueueView> => {
  const exec = opts.exec ?? execTmuxIn(io.env)
  const now = io.now()
  const tmux = serverAsker(exec)
  // tmux answers while the records and transcripts are read: each list-panes starts with the first record naming its server.
  const store = await readStore(io.env, sessionsDir(io.env), {
    agents: hooksFor,
    skipEnded: opts.skipEnded === true,
    onRecord: tmux.see,
    now,
  })
  const memo = opts.discover === false ? null : readDiscoveryCache(io.env)
  const published = memo ? listPublishedSessions(io.env, memo.cache) : []
  if (memo) for (const socket of discoverySockets(io.env, published)) tmux.ask(socket)
  const transcripts = checkTranscripts(store.records, io.env, now)
  const liveWaits = checkLiveWaits(store.records, io.env)
  const { servers, available } = await tmux.answers()
  const screens =
    opts.screens === false ? new Map<string, ScreenVerdict>() : await checkScreens(store.records, transcripts, servers, io.env, now, exec)
  let records = store.records
  const reasons = new Map<string, string>()
  let found: Hookless[] = []
  if (memo) {
    const ids = new Set([...store.records.map((r) => r.sessionId), ...store.endedIds])
    const inPanes = await discoverInPanes(derivePanesToSearch(servers, store.records, published), io.env, memo.cache, now)
    found = deriveHookless([...published, ...inPanes], ids)
    if (opts.screens !== false) await readHooklessScreens(found, memo.cache, now, exec)
    for (const s of found) reasons.set(s.sessionId, hooklessReason(s))
    // node:os only when there is a session to name the host of (it costs `ls` a little to load).
    const host = found.length > 0 ? process.getBuiltinModule('node:os').hostname() : ''
    const hookless = found.map((s) => toHooklessRecord(s, io.env, now, host))
    records = applyHooklessWaits(store.records, hookless, memo.cache, io.env, now, opts.screens === false)
    writeDiscoveryCache(io.env, memo.cache, memo.text)
  }
  const marks = readSeenMarks(
    io.env,
    records.filter((r) => r.state !== 'ended').map((r) => r.sessionId),
  )
  const facts = { transcripts, servers, screens, liveWaits }
  const derive = (): QueueItem[] => {
    const derived = deriveQueue(records, { ...facts, seen: seenSinces(marks) }, store.endedIds)
    for (const item of derived) {
      const reason = reasons.get(item.sessionId)
      // A found session's state is never a hook's word; a pane check (gone) keeps its own reason.
      if (reason !== undefined && item.state !== 'gone') Object.assign(item, { inferred: true, reason, hint: NO_HOOKS_HINT })
    }
    return derived
  }
  let items = derive()
  if (opts.autoSeen !== false) {
    const update = deriveSeenUpdate(
      items.filter(isQueued).map((i) => ({ sessionId: i.sessionId, since: i.since, inFront: inFront(i, servers) })),
      marks,
      now,
    )
    let newlySeen = false
    for (const [id, mark] of update) {
      if (!writeSeenMark(io.env, id, mark)) continue
      marks.set(id, mark)
      newlySeen ||= mark.seenAt !== null
    }
    if (newlySeen) items = derive()
  }
  logReadChanges(io.env, items, new Set(found.map((s) => s.sessionId)), now)
  if (opts.remote) items = orderItems([...items, ...(await opts.remote)])
  await numberWaits(io.env, items, now, opts.screens !== false && opts.discover !== false, opts.remoteHosts ?? [])
  const activity = [...servers.values()].map((v) => (v.status === 'ok' ? (v.clientActivityAt ?? 0) : 0))
  const clientActivityAt = Math.max(0, ...activity) || null
  return {
    queue: items.filter(inDefaultQueue),
    items,
    skipped: store.skipped,
    tmuxAvailable: available,
    now,
    hookless: found,
    clientActivityAt,
  }
}
