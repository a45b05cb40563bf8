// The view (docs/design.md §12), as pure functions: what one tmux server holds now (one
// list-panes), which windows the queue wants in the view, and the tmux commands that bring the
// one to the other. No command when the view is already right: every status line runs this.
import type { QueueItem } from '../queue/derive.js'
import { FIELD_SEP } from '../tmux/panes.js'
import { KEEP_SESSION, VIEW_SESSION } from '../tmux/view-session.js'

/** Stored in the view session's `@trailboss-view`: a view of another version is not ours to change. */
export const VIEW_VERSION = '1'
/** The session option holding the version. */
export const VIEW_OPTION = '@trailboss-view'
/** The session option holding the digest of the first window's text (respawned only when it changes). */
export const LIST_OPTION = '@trailboss-view-list'
/** The window option marking the view's first window, the one that lists waits it cannot link. */
export const LIST_WINDOW_OPTION = '@trailboss-view-first'
/** The session option holding the pane a client was on before it entered the view (for --off). */
export const FROM_OPTION = '@trailboss-view-from'

/**
 * Exact-name targets: a person's session called `trailboss-view-2` is never matched by prefix.
 * Always with a colon: tmux 3.3's set-option refuses `=name` alone as a session.
 */
export const VIEW_TARGET = `=${VIEW_SESSION}`
const KEEP_TARGET = `=${KEEP_SESSION}`

/** One line per pane of `list-panes -a`; the session name, free text, last. */
export const VIEW_PANE_FORMAT = [
  '#{session_id}',
  '#{session_activity}',
  '#{window_index}',
  '#{window_id}',
  '#{window_linked_sessions}',
  '#{pane_id}',
  '#{pane_active}',
  `#{${VIEW_OPTION}}`,
  `#{${LIST_OPTION}}`,
  `#{${LIST_WINDOW_OPTION}}`,
  `#{${FROM_OPTION}}`,
  '#{session_name}',
].join(FIELD_SEP)

export interface ViewPane {
  sessionId: string
  sessionName: string
  activity: number
  windowIndex: number
  windowId: string
  linkedSessions: number
  paneId: string
  active: boolean
  /** The session's options (empty when unset). */
  version: string
  listDigest: string
  from: string
  /** The window is the view's first window. */
  first: boolean
}

export const parseViewPanes = (text: string): ViewPane[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('$'))
    .map((line) => {
      const f = line.split(FIELD_SEP)
      return {
        sessionId: f[0] ?? '',
        activity: Number(f[1]) || 0,
        windowIndex: Number(f[2]),
        windowId: f[3] ?? '',
        linkedSessions: Number(f[4]) || 0,
        paneId: f[5] ?? '',
        active: f[6] === '1',
        version: f[7] ?? '',
        listDigest: f[8] ?? '',
        first: f[9] === '1',
        from: f[10] ?? '',
        sessionName: f.slice(11).join(FIELD_SEP),
      }
    })

/** A window of the view session, by index. */
export interface ViewWindow {
  index: number
  windowId: string
  activePane: string
  /** How many sessions hold it, the view included. */
  linkedSessions: number
}

/** A window of the keeper session. */
export interface KeptWindow {
  windowId: string
  /** How many sessions hold it, the keeper included. */
  linkedSessions: number
}

export interface ViewNow {
  /** The view session exists. */
  exists: boolean
  version: string
  listDigest: string
  from: string
  /** The first window's index; null when the view has none (or no view). */
  firstIndex: number | null
  /** The view's other windows, by index. */
  windows: ViewWindow[]
  keepExists: boolean
  /** The keeper's windows (lib/tmux/view-session.ts). */
  kept: KeptWindow[]
  /** Which window each pane is in. */
  paneWindow: ReadonlyMap<string, string>
}

/** Pure: the view's state from one list-panes. */
export const deriveViewNow = (panes: readonly ViewPane[]): ViewNow => {
  const inView = panes.filter((p) => p.sessionName === VIEW_SESSION)
  const windows = new Map<number, ViewWindow>()
  let firstIndex: number | null = null
  for (const p of inView) {
    if (p.first) {
      firstIndex = p.windowIndex
      continue
    }
    const had = windows.get(p.windowIndex)
    const activePane = p.active ? p.paneId : (had?.activePane ?? '')
    windows.set(p.windowIndex, { index: p.windowIndex, windowId: p.windowId, activePane, linkedSessions: p.linkedSessions })
  }
  return {
    exists: inView.length > 0,
    version: inView[0]?.version ?? '',
    listDigest: inView[0]?.listDigest ?? '',
    from: inView[0]?.from ?? '',
    firstIndex,
    windows: [...windows.values()].sort((a, b) => a.index - b.index),
    keepExists: panes.some((p) => p.sessionName === KEEP_SESSION),
    kept: [
      ...new Map(
        panes
          .filter((p) => p.sessionName === KEEP_SESSION)
          .map((p) => [p.windowId, { windowId: p.windowId, linkedSessions: p.linkedSessions }]),
      ).values(),
    ],
    paneWindow: new Map(panes.map((p) => [p.paneId, p.windowId])),
  }
}

/** A window the view should show, with the pane to select in it. */
export interface WantedWindow {
  windowId: string
  pane: string
}

export interface ViewWant {
  windows: WantedWindow[]
  /**
   * The waits the view cannot link (another tmux server, another host): its first window lists
   * them. Null: this run did not read every host (`--local`, `go <key>`), so the list stays as it is.
   */
  elsewhere: QueueItem[] | null
}

/** A wait whose pane can be linked or gone to, as far as the queue knows. */
const live = (i: QueueItem): boolean => i.tmux !== null && i.tmux.alive !== false && i.state !== 'gone' && i.remote?.stale !== true

/**
 * Pure: the windows of the default queue's waits on `socket`, once each, where the window's first
 * wait stands in the queue's order, its oldest wait's pane selected; every other live wait with a
 * pane is listed as elsewhere.
 */
export const deriveWant = (
  queue: readonly QueueItem[],
  socket: string,
  paneWindow: ReadonlyMap<string, string>,
  everyHost = true,
): ViewWant => {
  const windows: WantedWindow[] = []
  const since = new Map<string, number>()
  const elsewhere: QueueItem[] = []
  for (const item of queue) {
    if (!live(item) || !item.tmux) continue
    if (item.remote || item.tmux.socket !== socket) {
      elsewhere.push(item)
      continue
    }
    const windowId = paneWindow.get(item.tmux.pane)
    if (windowId === undefined) continue
    const at = windows.findIndex((w) => w.windowId === windowId)
    if (at < 0) {
      windows.push({ windowId, pane: item.tmux.pane })
      since.set(windowId, item.since)
    } else if (item.since < (since.get(windowId) ?? Infinity)) {
      windows[at] = { windowId, pane: item.tmux.pane }
      since.set(windowId, item.since)
    }
  }
  return { windows, elsewhere: everyHost ? elsewhere : null }
}

/** Pure: the first window's text: how to walk the view, and the waits it cannot show with how to reach each. */
export const formatFirstWindow = (elsewhere: readonly QueueItem[]): string => {
  const lines = [
    'Trail Boss view: each window after this one holds a wait, in the queue order.',
    "tmux's next-window / previous-window walk them; trailboss view --off leaves.",
  ]
  if (elsewhere.length > 0) {
    lines.push('', 'Waits this view cannot show (another tmux server or host):')
    for (const i of elsewhere) {
      const where = i.remote ? `host ${i.remote.destination}` : `tmux ${i.tmux?.socket ?? '?'}`
      lines.push(`  ${i.n ?? '-'}  ${i.project ?? '?'}  ${i.kind ?? ''}  (${where})  trailboss go ${i.key}`)
    }
  }
  return `${lines.join('\n')}\n`
}

/** Pure: a short digest of a text (FNV-1a, 32 bits): only to notice that the first window's text changed. */
export const textDigest = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}

/** The first window's pane: prints the text and exits, kept on screen (remain-on-exit). */
const firstWindowCommand = (text: string): string[] => ['printf', '%s', text]

/** Pure: the commands that make a new view session holding only its first window. */
export const planCreate = (text: string): string[][] => [
  // `cat` waits until remain-on-exit is set: a pane that exited first would take the session with it.
  ['new-session', '-d', '-s', VIEW_SESSION, '-n', 'waits', 'cat'],
  ['set-option', '-w', '-t', `${VIEW_TARGET}:`, 'remain-on-exit', 'on'],
  ['set-option', '-w', '-t', `${VIEW_TARGET}:`, LIST_WINDOW_OPTION, '1'],
  ['set-option', '-t', `${VIEW_TARGET}:`, VIEW_OPTION, VIEW_VERSION],
  ['respawn-pane', '-k', '-t', `${VIEW_TARGET}:.0`, ...firstWindowCommand(text)],
  ['set-option', '-t', `${VIEW_TARGET}:`, LIST_OPTION, textDigest(text)],
]

/**
 * Pure: how many sessions other than the view and the keeper hold each window of either: 0 for a
 * window whose own session was closed (or that the person made in the view).
 */
export const deriveOthers = (now: ViewNow): Map<string, number> => {
  const inView = new Set(now.windows.map((w) => w.windowId))
  const inKeep = new Set(now.kept.map((w) => w.windowId))
  const others = new Map<string, number>()
  for (const w of [...now.windows, ...now.kept])
    others.set(w.windowId, w.linkedSessions - (inView.has(w.windowId) ? 1 : 0) - (inKeep.has(w.windowId) ? 1 : 0))
  return others
}

/** Pure: the windows no session of the person's holds, kept (or to be kept) by the keeper: the rescued ones. */
export const deriveRescued = (now: ViewNow): string[] => [...deriveOthers(now)].filter(([, n]) => n <= 0).map(([id]) => id)

/** Pure: the commands that link `ids` into the keeper, made for them when it is not there. */
const planKeep = (now: ViewNow, ids: readonly string[]): string[][] => {
  if (ids.length === 0) return []
  const fresh = !now.keepExists
  const cmds: string[][] = []
  // The new session's placeholder window is its first; the kept windows come after it.
  if (fresh) cmds.push(['new-session', '-d', '-s', KEEP_SESSION, '-n', 'trailboss-placeholder', 'cat'])
  for (const id of ids) cmds.push(['link-window', '-d', '-s', id, '-t', `${KEEP_TARGET}:`])
  if (fresh) cmds.push(['kill-window', '-t', `${KEEP_TARGET}:^`])
  return cmds
}

/**
 * Pure: the keeper's links of windows a session of the person's holds and the view does not
 * (`shown`), undone. Named by window id: a `renumber-windows` of the person's cannot shift them.
 * Its last window unlinked, the keeper session ends with it: no trace when nothing needs rescue.
 */
const planLetGo = (now: ViewNow, shown: ReadonlySet<string>): string[][] => {
  const others = deriveOthers(now)
  return now.kept
    .filter((w) => !shown.has(w.windowId) && (others.get(w.windowId) ?? 0) > 0)
    .map((w) => ['unlink-window', '-t', `${KEEP_TARGET}:${w.windowId}`])
}

/** Far above any index a view reaches: where a window waits while the others take their places. */
const PARKING = 10_000

/**
 * Pure: the commands that take the view from `now` to `want` (none when it is right). Every
 * window the view shows is linked into the keeper first, and so is a window only the view holds,
 * so that unlinking it, or killing the view by hand, never kills it; a wait's window is never
 * moved out of a person's session, only linked and unlinked here. `selectAll`: select the waiting
 * pane of every window (entering the view), else only of the windows linked now (a person who
 * picked another pane in the view keeps it).
 */
export const planView = (now: ViewNow, want: ViewWant, selectAll = false): string[][] => {
  if (!now.exists || now.version !== VIEW_VERSION) return []
  const cmds: string[][] = []
  const at = (index: number): string => `${VIEW_TARGET}:${index}`
  const text = want.elsewhere === null ? null : formatFirstWindow(want.elsewhere)
  if (text !== null && now.firstIndex !== null && now.listDigest !== textDigest(text)) {
    cmds.push(['respawn-pane', '-k', '-t', `${at(now.firstIndex)}.0`, ...firstWindowCommand(text)])
    cmds.push(['set-option', '-t', `${VIEW_TARGET}:`, LIST_OPTION, textDigest(text)])
  }
  const others = deriveOthers(now)
  const inKeep = new Set(now.kept.map((w) => w.windowId))
  const toKeep = [
    ...want.windows.map((w) => w.windowId),
    ...now.windows.filter((w) => (others.get(w.windowId) ?? 0) <= 0).map((w) => w.windowId),
  ]
  cmds.push(
    ...planKeep(
      now,
      [...new Set(toKeep)].filter((id) => !inKeep.has(id)),
    ),
  )
  const wanted = new Map(want.windows.map((w, i) => [w.windowId, i]))
  const base = (now.firstIndex ?? 0) + 1
  const kept = new Map<string, number>()
  for (const w of now.windows) {
    if (wanted.has(w.windowId) && !kept.has(w.windowId)) kept.set(w.windowId, w.index)
    else cmds.push(['unlink-window', '-t', at(w.index)])
  }
  // Windows out of place are parked above every index, then each takes its place.
  const misplaced = [...kept].filter(([id, index]) => index !== base + (wanted.get(id) ?? 0))
  const parked = new Map<string, number>()
  const top = Math.max(PARKING, ...now.windows.map((w) => w.index + 1))
  misplaced.forEach(([id, index], k) => {
    parked.set(id, top + k)
    cmds.push(['move-window', '-d', '-s', at(index), '-t', at(top + k)])
  })
  want.windows.forEach((w, i) => {
    const from = parked.get(w.windowId)
    if (from !== undefined) cmds.push(['move-window', '-d', '-s', at(from), '-t', at(base + i)])
    else if (!kept.has(w.windowId)) cmds.push(['link-window', '-d', '-s', w.windowId, '-t', at(base + i)])
  })
  const shown = new Map(now.windows.map((w) => [w.windowId, w.activePane]))
  for (const w of want.windows) {
    const linkedNow = !kept.has(w.windowId)
    if ((linkedNow || selectAll) && shown.get(w.windowId) !== w.pane) cmds.push(['select-pane', '-t', w.pane])
  }
  cmds.push(...planLetGo(now, new Set(wanted.keys())))
  return cmds
}

/**
 * Pure: the commands that end the view: every window only the view holds goes to the keeper
 * first, then the view session goes (killing a session only unlinks windows held elsewhere), then
 * the keeper lets go of every window a session of the person's holds. With no view (killed by
 * hand), only the last.
 */
export const planOff = (now: ViewNow): string[][] => {
  const others = deriveOthers(now)
  const inKeep = new Set(now.kept.map((w) => w.windowId))
  const cmds = planKeep(
    now,
    now.windows.filter((w) => (others.get(w.windowId) ?? 0) <= 0 && !inKeep.has(w.windowId)).map((w) => w.windowId),
  )
  if (now.exists) {
    // Each unlink fails (and so ends the sequence, before the kill) for a window held nowhere else.
    for (const w of now.windows) cmds.push(['unlink-window', '-t', `${VIEW_TARGET}:${w.index}`])
    // Without a first window of ours (a view of another version), the last unlink ended the session.
    if (now.firstIndex !== null) cmds.push(['kill-session', '-t', `${VIEW_TARGET}:`])
  }
  cmds.push(...planLetGo(now, new Set()))
  return cmds
}
