// Pure: records + transcript verdicts + live panes + screens + now → the ordered queue
// (docs/design.md §4). Everything effectful (reading files, asking tmux) happens in queue/load.ts.
import type { LiveState, SessionRecord, WaitKind } from '../record/types.js'
import { agentFor } from '../agents/index.js'
import type { LiveWait, ScreenVerdict, TranscriptVerdict } from '../agents/types.js'
import type { Pane } from '../tmux/panes.js'

export type DerivedState = LiveState | 'gone'

/** A session quiet this long in `working` or `permission` earns one look at its screen. */
export const SCREEN_CHECK_AFTER_MS = 20_000
/** At most this many capture-pane calls per run, so a big fleet never slows `ls`. */
export const MAX_SCREEN_CHECKS_PER_RUN = 8
/** Keys are at least this long, so they stay stable as sessions come and go. */
export const MIN_KEY_LENGTH = 8

/** Shells: a pane back at one of these no longer runs the agent (it exited or crashed). */
export const SHELL_COMMANDS = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'nu', 'xonsh', 'elvish', 'pwsh'])

export type ServerPanes =
  | {
      status: 'ok'
      serverPid: number | null
      panes: ReadonlyMap<string, Pane>
      /** The latest client activity in its attached sessions (ms), null when none is attached. */
      clientActivityAt?: number | null
    }
  | { status: 'no-server' }
  | { status: 'unknown' }

export interface QueueFacts {
  transcripts: ReadonlyMap<string, TranscriptVerdict>
  /** By socket path. A socket with no entry was not asked: its panes are unknown. */
  servers: ReadonlyMap<string, ServerPanes>
  screens: ReadonlyMap<string, ScreenVerdict>
  /** Waits an agent publishes itself (lib/agents/types.ts LiveWait), by session id. */
  liveWaits?: ReadonlyMap<string, LiveWait>
  /** The `since` of the last wait the person saw, by session id (queue/seen.ts). */
  seen?: ReadonlyMap<string, number>
}

export interface Ask {
  tool: string | null
  input: unknown
  message: string | null
}

/** Where a live pane sits, as tmux names it now (from the one list-panes per server). */
export interface PanePlace {
  session: string
  window: number
  windowName: string
}

export interface QueueItem {
  /** The wait's number, kept while it waits (queue/numbers.ts); null for a session that does not wait. */
  n: number | null
  key: string
  sessionId: string
  agent: string
  state: DerivedState
  kind: WaitKind | null
  since: number
  cwd: string | null
  project: string | null
  host: string
  headless: boolean
  tmux: { pane: string; socket: string; serverPid: number | null; alive: boolean | null; place?: PanePlace | null } | null
  /** The state rests on a screen or process check, not on a hook or the transcript. */
  inferred: boolean
  /** Why the state differs from the record's, when a check on read changed it. */
  reason: string | null
  /** A wait that blocks on the person (docs/queue.md): every kind but a finished turn. */
  needsYou: boolean
  /**
   * A wait the person has seen (went there, acknowledged it, or looked at its pane). A seen wait
   * that needs the person stays in the queue and every count; a seen finished turn leaves them.
   */
  seen: boolean
  ask: Ask
  /** Trail Boss's own advice about the session (how to give it hooks), apart from what the agent said; null when none. */
  hint: string | null
  record: SessionRecord
  /**
   * A wait of another host (lib/remote/): the destination it was read from, the session's own
   * key and id there (this item's key and sessionId are `<destination>:<theirs>`, unique across
   * hosts and never a file name here), and whether the host failed to answer this time (the item
   * is then its last known state). Absent for a session of this machine.
   */
  remote?: RemoteOrigin
}

export interface RemoteOrigin {
  destination: string
  key: string
  sessionId: string
  stale: boolean
}

const isLive = (s: LiveState): boolean => s === 'working' || s === 'permission' || s === 'waiting'

export const isQueued = (item: Pick<QueueItem, 'state' | 'headless'>): boolean =>
  !item.headless && (item.state === 'permission' || item.state === 'waiting')

/**
 * Whether an item is in the default queue (`ls` without --all): every wait that needs the person,
 * seen or not (a glance is not an answer), and the finished turns not yet seen.
 */
export const inDefaultQueue = (item: Pick<QueueItem, 'state' | 'headless' | 'needsYou' | 'seen'>): boolean =>
  isQueued(item) && (item.needsYou || !item.seen)

/**
 * Whether an item counts in every surface's count (ls, status, statusline, watch, notify, the
 * mod): the waits that need the person, seen or not; with `all`, the finished turns too.
 */
export const countsAsWaiting = (item: Pick<QueueItem, 'state' | 'headless' | 'needsYou'>, all = false): boolean =>
  isQueued(item) && (all || item.needsYou)

/**
 * Whether a wait blocks on the person. A finished turn ("done") does not: the agent has nothing
 * more to do, but nothing stops either. A turn that finished after the agent's own check refused
 * a tool (auto mode's denial) does: the work it wanted is undone until the person allows it.
 */
export const deriveNeedsYou = (state: DerivedState, kind: WaitKind | null, rec: Pick<SessionRecord, 'denied'>): boolean =>
  (state === 'permission' || state === 'waiting') && (kind !== 'done' || (rec.denied !== null && rec.denied !== undefined))

/**
 * Seen when the person saw this very wait or a later one: a new wait of the session begins
 * after the one they saw, so it is unseen again.
 */
export const deriveSeen = (seenSince: number | undefined, since: number): boolean => seenSince !== undefined && seenSince >= since

/**
 * Shortest prefix of each id, at least `min` long, that no other id shares (docs/design.md §4.5); for
 * the `wanted` ids only, when given (hundreds of ended ids count, but need no key).
 */
export const deriveKeys = (ids: readonly string[], min = MIN_KEY_LENGTH, wanted?: ReadonlySet<string>): Map<string, string> => {
  const sorted = [...new Set(ids)].sort()
  const keys = new Map<string, string>()
  const common = (a: string | undefined, b: string | undefined): number => {
    if (a === undefined || b === undefined) return 0
    const n = Math.min(a.length, b.length)
    let i = 0
    // charCodeAt, not a[i]: no one-character strings made in a loop too cold to be optimised.
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
    return i
  }
  // A plain loop: `ls` runs it once over every id, the ended ones too, in code too cold to be optimised.
  for (let i = 0; i < sorted.length; i++) {
    const id = sorted[i]!
    if (wanted && !wanted.has(id)) continue
    const len = Math.max(min, common(id, sorted[i - 1]) + 1, common(id, sorted[i + 1]) + 1)
    keys.set(id, id.slice(0, Math.min(len, id.length)))
  }
  return keys
}

/** Whether a session deserves a screen check now (docs/design.md §4.3); the caller caps the count. */
export const wantsScreenCheck = (rec: SessionRecord, state: DerivedState, now: number): boolean =>
  !rec.headless &&
  rec.tmux !== null &&
  (state === 'working' || state === 'permission') &&
  now - rec.lastEventAt >= SCREEN_CHECK_AFTER_MS &&
  // An agent that will wake itself (background tasks): its screen says nothing.
  agentFor(rec.agent)?.sleepsOnItsOwn(rec) !== true

interface Derived {
  state: DerivedState
  kind: WaitKind | null
  since: number
  inferred: boolean
  reason: string | null
  alive: boolean | null
  place?: PanePlace | null
  /** What the wait says when a check on read found it (an error's text); else the record's message. */
  message?: string | null
}

/** Which record owns each pane: the newest event wins (after /clear, or a reused pane). */
export const derivePaneOwners = (records: readonly SessionRecord[]): Map<string, string> => {
  const owners = new Map<string, SessionRecord>()
  for (const r of records) {
    // An ended session runs nowhere: after /clear its SessionEnd can be stamped after the new
    // session's SessionStart (they fire within a millisecond), and must not take the pane back.
    if (!r.tmux || r.headless || r.state === 'ended') continue
    const at = `${r.tmux.socket}\n${r.tmux.pane}`
    const cur = owners.get(at)
    if (!cur || r.lastEventAt > cur.lastEventAt) owners.set(at, r)
  }
  return new Map([...owners].map(([at, r]) => [at, r.sessionId]))
}

/** The state after the transcript check (no tmux involved): the input to pane and screen checks. */
export const applyTranscript = (rec: SessionRecord, verdict: TranscriptVerdict | undefined): Derived => {
  const d: Derived = { state: rec.state, kind: rec.kind, since: rec.since, inferred: false, reason: null, alive: null }
  if (!verdict || !isLive(rec.state)) return d
  if (verdict.verdict === 'interrupted') {
    if (rec.state === 'waiting' && rec.kind === 'interrupted') return d
    return { ...d, state: 'waiting', kind: 'interrupted', since: verdict.at, reason: 'transcript: interrupted' }
  }
  if (verdict.verdict === 'error') {
    // Gemini CLI ends a failed turn with AfterAgent, as a finished one: the record says done.
    if (rec.state === 'waiting' && rec.kind === 'error') return d
    return { ...d, state: 'waiting', kind: 'error', since: verdict.at, reason: 'transcript: the turn failed', message: verdict.message }
  }
  if (rec.state === 'working') return d
  return {
    ...d,
    state: 'working',
    kind: null,
    since: verdict.at,
    reason: verdict.why === 'tool-answered' ? 'transcript: permission answered' : 'transcript: new prompt',
  }
}

/**
 * The agent's own word that a session waits: a `working` session (by its hooks and transcript)
 * becomes a wait at once, marked inferred; a wait a late hook set keeps the time it began.
 */
const applyLiveWait = (rec: SessionRecord, d: Derived, wait: LiveWait | undefined): Derived => {
  if (!wait) return d
  if (d.state === 'working' && rec.state === 'working')
    return { ...d, state: 'permission', kind: wait.kind, since: wait.since, inferred: true, reason: wait.why }
  if (d.state === 'permission' && rec.state === 'permission' && wait.since < d.since) return { ...d, since: wait.since }
  return d
}

const applyPanes = (rec: SessionRecord, d: Derived, facts: QueueFacts, owners: ReadonlyMap<string, string>): Derived => {
  if (!rec.tmux || rec.headless || rec.state === 'ended') return d
  const server = facts.servers.get(rec.tmux.socket)
  if (!server || server.status === 'unknown') return d
  const gone = (reason: string, inferred = false): Derived => ({ ...d, state: 'gone', kind: null, alive: false, reason, inferred })
  if (server.status === 'no-server') return gone('tmux server is gone')
  if (rec.tmux.serverPid !== null && server.serverPid !== null && server.serverPid !== rec.tmux.serverPid)
    return gone('tmux server was restarted')
  const pane = server.panes.get(rec.tmux.pane)
  if (!pane || pane.dead) return gone('pane is gone')
  if (owners.get(`${rec.tmux.socket}\n${rec.tmux.pane}`) !== rec.sessionId) return gone('pane now runs another session')
  const place = { session: pane.sessionName, window: pane.windowIndex, windowName: pane.windowName }
  // The session left, the pane lives on at its shell: where it is still says something.
  if (SHELL_COMMANDS.has(pane.currentCommand.replace(/^-/, ''))) return { ...gone(`pane is back at ${pane.currentCommand}`, true), place }
  return { ...d, alive: true, place }
}

const applyScreen = (rec: SessionRecord, d: Derived, screen: ScreenVerdict | undefined): Derived => {
  if (!screen || (d.state !== 'working' && d.state !== 'permission')) return d
  const quietSince = rec.lastEventAt
  const inferred = { ...d, inferred: true }
  switch (screen) {
    case 'interrupted':
      return { ...inferred, state: 'waiting', kind: 'interrupted', since: quietSince, reason: 'screen: interrupted' }
    case 'idle':
      return { ...inferred, state: 'waiting', kind: 'done', since: quietSince, reason: 'screen: at the prompt' }
    case 'working':
      return d.state === 'working' ? d : { ...inferred, state: 'working', kind: null, since: quietSince, reason: 'screen: working' }
    case 'permission':
      return d.state === 'permission'
        ? d
        : {
            ...inferred,
            state: 'permission',
            kind: agentFor(rec.agent)?.isQuestionTool(rec.lastTool?.name) ? 'question' : 'permission',
            since: quietSince,
            reason: 'screen: dialog open',
          }
    default:
      return d
  }
}

/**
 * The whole derivation: every record becomes an item; the waits first (those that need the
 * person, oldest first, then the finished turns), unnumbered: loadQueue numbers them.
 */
export const deriveQueue = (records: readonly SessionRecord[], facts: QueueFacts, otherIds: readonly string[] = []): QueueItem[] => {
  // Keys are unique among all records on disk, loaded or not (docs/design.md §4.5).
  const loaded = records.map((r) => r.sessionId)
  const keys = deriveKeys([...loaded, ...otherIds], MIN_KEY_LENGTH, new Set(loaded))
  const owners = derivePaneOwners(records)
  const items = records.map((rec): QueueItem => {
    let d = applyTranscript(rec, facts.transcripts.get(rec.sessionId))
    d = applyLiveWait(rec, d, facts.liveWaits?.get(rec.sessionId))
    d = applyPanes(rec, d, facts, owners)
    d = applyScreen(rec, d, facts.screens.get(rec.sessionId))
    // An interrupted turn says what was refused (the dialog's tool) or running (the call in
    // flight in its prompt: the folds keep lastTool so); none: it was writing its answer.
    const pendingTool =
      d.state === 'permission'
        ? (rec.tool ?? (d.inferred ? rec.lastTool : null))
        : d.kind === 'interrupted'
          ? (rec.tool ?? rec.lastTool)
          : null
    return {
      n: null,
      key: keys.get(rec.sessionId) ?? rec.sessionId,
      sessionId: rec.sessionId,
      agent: rec.agent,
      state: d.state,
      kind: d.kind,
      since: d.since,
      cwd: rec.cwd,
      project: rec.project,
      host: rec.host,
      headless: rec.headless,
      tmux: rec.tmux && !rec.headless ? { ...rec.tmux, alive: d.alive, place: d.place ?? null } : null,
      inferred: d.inferred,
      reason: d.reason,
      needsYou: !rec.headless && deriveNeedsYou(d.state, d.kind, rec),
      seen: !rec.headless && (d.state === 'permission' || d.state === 'waiting') && deriveSeen(facts.seen?.get(rec.sessionId), d.since),
      ask: {
        tool: pendingTool?.name ?? null,
        input: pendingTool ? pendingTool.input : null,
        message: d.state === 'waiting' || d.state === 'permission' ? (d.message !== undefined ? d.message : rec.message) : null,
      },
      hint: null,
      record: rec,
    }
  })
  return orderItems(items)
}

/**
 * Pure: the queue's order. The waits that need the person, oldest first, then the finished turns,
 * then the other sessions, most recent first. Numbers are not positions: loadQueue gives each wait
 * the one the book kept for it (queue/numbers.ts). Items of several hosts merge by the same order.
 */
export const orderItems = (items: readonly QueueItem[]): QueueItem[] => {
  // Plain code-unit order for ties: localeCompare would load ICU's collator (~8 ms) on every run.
  const byAge = (a: QueueItem, b: QueueItem): number =>
    a.since - b.since || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0)
  const waits = items.filter(isQueued)
  const queued = [...waits.filter((i) => i.needsYou).sort(byAge), ...waits.filter((i) => !i.needsYou).sort(byAge)]
  const rest = items.filter((i) => !isQueued(i)).sort((a, b) => b.record.lastEventAt - a.record.lastEventAt)
  return [...queued, ...rest]
}
