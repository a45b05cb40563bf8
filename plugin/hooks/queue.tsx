// The Claude Code mod: the other sessions' waits inside this one — a status entry, a toast when
// another session starts waiting, and `/trailboss`, a pane with a row per wait and a button that
// runs `trailboss go <key>` (the command's environment holds this session's TMUX and TMUX_PANE,
// so the person's own tmux client moves). The queue comes from `trailboss ls --json --follow`, a
// child for the session's life that prints the queue again each time it changes: at rest nothing
// runs here and nothing crosses into this worker (a poll's every period is a dispatch into it),
// and a new wait shows without waiting out a period. Checked on read like every other view. Where the child
// cannot run (a `trailboss` without --follow), the sessions folder is stat'ed every POLL_MS
// instead (a record's atomic rename changes the folder's mtime; a mod has no file watch). This
// session's own turn events refresh it too.
import type { EngineInterface, Register, RenderInputOf, Timer } from 'claude-code'
import { formatAge, formatStatus, formatToast, newWaits, nextChangeAt, othersOf, parseListing, waitId, type Wait } from './queue-view'

/** Without the follower: how often the sessions folder is stat'ed (a wait shows within this plus one `ls`). */
export const POLL_MS = 2000
/** The follower's command: `ls --json`, then a line again on every change. */
export const FOLLOW_ARGV = ['trailboss', 'ls', '--json', '--follow'] as const
/** `trailboss ls` takes ~0.1 s; this bounds a hung one (a stuck tmux server). */
const LS_TIMEOUT_MS = 15_000
const GO_TIMEOUT_MS = 15_000
const PANE_ID = 'trailboss-queue'
const COMMAND = 'trailboss'
/** Toasts for this many new waits at once; beyond, one toast counts the rest. */
const MAX_TOASTS = 3

interface State {
  own: string | null
  /** `$TRAILBOSS_HOME/sessions`, read once per session start. */
  dir: string
  /** The sessions folder's mtime at the last look, and what its other files looked like. */
  stamp: number
  signature: string
  waits: Wait[]
  /** Waits already seen (told or there at start); null until the first read. */
  seen: Set<string> | null
  error: string | null
  shown: string | undefined
  /** The clock as last read, moved on by POLL_MS per tick; and when the entry's text changes next. */
  now: number
  changeAt: number
  timer: Timer | null
  /** The age's next step while the follower runs (no poll to move it on). */
  ageTimer: Timer | null
  /** Bumped on each start: an old follower's lines and end are not this start's. */
  generation: number
  /** The follower's stream, ended on a new start (`/clear` starts the session anew). */
  follower: { return: (value: never) => Promise<unknown> } | null
  following: boolean
  running: Promise<void> | null
  again: boolean
  paneOpen: boolean
}

const state: State = {
  own: null,
  dir: '',
  stamp: Number.NaN,
  signature: '',
  waits: [],
  seen: null,
  error: null,
  shown: undefined,
  now: 0,
  changeAt: 0,
  timer: null,
  ageTimer: null,
  generation: 0,
  follower: null,
  following: false,
  running: null,
  again: false,
  paneOpen: false,
}

const sessionsDir = async ($: EngineInterface): Promise<string> => {
  const home = (await $.env.get('TRAILBOSS_HOME')) || `${(await $.env.get('HOME')) ?? ''}/.trailboss`
  return `${home.replace(/\/+$/, '')}/sessions`
}

/**
 * Whether another session's record may have changed since the last look. The folder's mtime
 * moves on every record write, this session's own included; so when it moved, the other files'
 * names and mtimes decide, and this session's own turns cost no `ls` in the other sessions' mods.
 */
const othersChanged = async ($: EngineInterface): Promise<boolean> => {
  const dir = state.dir
  const stat = await $.fs.stat(dir).catch(() => null)
  const stamp = stat?.kind === 'dir' ? stat.mtimeMs : -1
  if (stamp === state.stamp) return false
  state.stamp = stamp
  const own = state.own ? `${state.own}.json` : null
  const entries = stamp < 0 ? [] : await $.fs.list(dir).catch(() => [])
  const signature = entries
    .filter((e) => e.name !== own && !e.name.startsWith('.') && !e.name.endsWith('.tmp'))
    .map((e) => `${e.name}:${e.mtimeMs}`)
    .sort()
    .join('\n')
  if (signature === state.signature) return false
  state.signature = signature
  return true
}

/** A listing read: the waits kept, a new one toasted once. Throws when it is not the contract. */
const takeListing = ($: EngineInterface, text: string): void => {
  const others = othersOf(parseListing(text).waits, state.own)
  if (state.seen) {
    const fresh = newWaits(state.seen, others)
    for (const w of fresh.slice(0, MAX_TOASTS)) $.ui.toast(formatToast(w), { timeoutMs: 8000 })
    if (fresh.length > MAX_TOASTS) $.ui.toast(`and ${fresh.length - MAX_TOASTS} more wait`, { timeoutMs: 8000 })
  }
  state.seen = new Set(others.map(waitId))
  state.waits = others
  state.error = null
}

const takeError = (err: unknown): void => {
  // Not installed, not on PATH, a foreign program: say so in the entry, once per change.
  const message = err instanceof Error ? err.message : String(err)
  state.error = /ENOENT|not found|No such file/i.test(message) ? '`trailboss` is not on PATH (npm install -g trailboss)' : message
  state.waits = []
}

const readQueue = async ($: EngineInterface): Promise<void> => {
  try {
    const r = await $.process.run([COMMAND, 'ls', '--json'], { timeoutMs: LS_TIMEOUT_MS })
    if (r.exitCode !== 0) throw new Error(r.stderr.trim().split('\n')[0] || `\`trailboss ls --json\` exited ${r.exitCode}`)
    takeListing($, r.stdout)
  } catch (err) {
    takeError(err)
  }
}

/** Refreshes the queue when something changed (or `force`), then the status entry and the pane. Never rejects. */
const refresh = async ($: EngineInterface, force: boolean): Promise<void> => {
  try {
    await refreshOnce($, force)
  } catch {
    // The session is ending (its calls are refused) or the host is busy: the next tick tries again.
  }
}

const refreshOnce = async ($: EngineInterface, force: boolean): Promise<void> => {
  if (state.running) {
    // One `ls` at a time; a request meanwhile runs once after it.
    state.again ||= force
    return state.running
  }
  state.running = (async () => {
    try {
      // The follower tells of every change; without it the folder's stat does.
      const changed = state.following ? false : await othersChanged($).catch(() => true)
      if (changed || force || state.seen === null) await readQueue($)
      await draw($, changed || force)
    } finally {
      state.running = null
    }
  })()
  await state.running
  if (state.again) {
    state.again = false
    await refreshOnce($, true)
  }
}

const draw = async ($: EngineInterface, queueChanged: boolean): Promise<void> => {
  // Every call into the host costs CPU in each open session: at rest a tick makes one (the stat),
  // and asks the clock only when the entry's age may have moved on.
  if (queueChanged || state.paneOpen || state.now >= state.changeAt) state.now = await $.clock.now()
  const now = state.now
  state.changeAt = nextChangeAt(state.waits, now)
  const text = state.error ? `trailboss: ${state.error}` : formatStatus(state.waits, now)
  if (text !== state.shown) {
    state.shown = text
    $.ui.status(text)
  }
  // Ages in an open pane move too; redraw it on every look while it is open.
  if (state.paneOpen && (queueChanged || state.waits.length > 0)) $.ui.invalidate('ui.render')
  if (state.following) scheduleAge($)
}

/** With the follower and no poll, the entry's age moves on by a timer of its own, set to its next step. */
const scheduleAge = ($: EngineInterface): void => {
  state.ageTimer?.cancel()
  state.ageTimer = null
  const wait = state.paneOpen && state.waits.length > 0 ? POLL_MS : state.changeAt - state.now
  if (!Number.isFinite(wait)) return
  state.ageTimer = $.clock.after(Math.max(wait, 250), () => {
    state.ageTimer = null
    state.now = Math.max(state.now, state.changeAt)
    void drawSafely($)
  })
}

const drawSafely = async ($: EngineInterface): Promise<void> => {
  try {
    await draw($, false)
  } catch {
    // The session is ending; nothing to draw on.
  }
}

const startPoll = ($: EngineInterface): void => {
  state.timer?.cancel()
  state.timer = $.clock.every(POLL_MS, () => {
    state.now += POLL_MS
    void refresh($, false)
  })
}

/**
 * Runs `trailboss ls --json --follow` for the session's life, taking each line it prints as the
 * queue. When it cannot start, or ends (a `trailboss` too old for --follow exits with a usage
 * error), the poll takes over.
 */
const follow = async ($: EngineInterface, generation: number): Promise<void> => {
  try {
    const child = $.process.spawn({ argv: FOLLOW_ARGV })
    state.follower = child
    let buffer = ''
    for await (const piece of child) {
      if (generation !== state.generation) return
      // What it says on stderr (a record it skipped) is in the document too.
      if (piece.stream === 'stderr') continue
      buffer += piece.text
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at)
        buffer = buffer.slice(at + 1)
        try {
          takeListing($, line)
        } catch (err) {
          takeError(err)
        }
        state.following = true
        state.timer?.cancel()
        state.timer = null
        await draw($, true)
      }
    }
  } catch {
    // It could not start (no `trailboss` on PATH), or the session is ending.
  }
  if (generation !== state.generation || !state.following) return
  // It ran and ended: the poll takes over, from a fresh look. (One that never printed a line,
  // such as a `trailboss` without --follow, leaves the poll of the start running.)
  state.following = false
  state.ageTimer?.cancel()
  state.ageTimer = null
  try {
    startPoll($)
    await refresh($, true)
  } catch {
    // The session is ending.
  }
}

const start = async ($: EngineInterface): Promise<void> => {
  state.timer?.cancel()
  state.timer = null
  state.ageTimer?.cancel()
  state.ageTimer = null
  state.generation++
  state.following = false
  void state.follower?.return(undefined as never).catch(() => {})
  state.follower = null
  state.own = await $.session.id()
  state.stamp = Number.NaN
  state.signature = ''
  state.seen = null
  state.dir = await sessionsDir($)
  await $.command.register({ name: COMMAND, description: 'The other sessions waiting on you; a button takes you there' })
  // The follower's first line is the queue; it ends the poll, which covers the time until then.
  startPoll($)
  void follow($, state.generation)
  await refresh($, true)
}

const go = async ($: EngineInterface, key: string): Promise<void> => {
  const r = await $.process.run([COMMAND, 'go', key], { timeoutMs: GO_TIMEOUT_MS }).catch((err: unknown) => ({
    exitCode: 1,
    stderr: err instanceof Error ? err.message : String(err),
  }))
  if (r.exitCode !== 0) $.ui.toast(`trailboss go: ${r.stderr.trim().split('\n')[0] ?? 'failed'}`, { timeoutMs: 8000 })
  await refresh($, true)
}

const openPane = async ($: EngineInterface): Promise<void> => {
  state.paneOpen = true
  await $.ui.open({ id: PANE_ID, title: 'Waits', focus: true, closeOnEscape: true })
  await refresh($, true)
}

const drawPane = async ($: EngineInterface, e: RenderInputOf<'Pane', 'terminal'> | RenderInputOf<'Pane', Exclude<Parameters<EngineInterface['ui']['resolve']>[0]['surface'], 'terminal'>>) => {
  const { Box, Text, Button } = $.ui.resolve(e)
  const now = await $.clock.now()
  if (state.error) return <Text color="red">trailboss: {state.error}</Text>
  if (state.waits.length === 0) return <Text dimColor>Nobody else waits.</Text>
  return (
    <Box flexDirection="column">
      {state.waits.map((w, i) => (
        <Box key={w.key} flexDirection="row" gap={1}>
          <Button key={`go-${w.key}`} label="go" hotkey={i < 9 ? String(i + 1) : undefined} onPress={() => go($, w.key)} />
          <Text bold>{w.project}</Text>
          <Text color="yellow">{w.kind}</Text>
          <Text dimColor>{formatAge(now - w.since)}</Text>
          <Text wrap="truncate-end">{w.ask}</Text>
        </Box>
      ))}
    </Box>
  )
}

export const register: Register = (on) => {
  on('session.start', async ($, e, next) => {
    const result = await next(e)
    // Headless runs (`claude -p`) have nobody to show a queue to.
    if (e.isInteractive) await start($)
    return result
  })
  on('prompt.submit', async ($, e, next) => {
    void refresh($, true)
    return next(e)
  })
  on('turn.complete', async ($, e, next) => {
    // A subagent's turns say nothing about the other sessions.
    if (e.agentId === undefined) void refresh($, true)
    return next(e)
  })
  on('command.run', { command: COMMAND }, async ($) => {
    await openPane($)
    return {}
  })
  on('ui.close', { id: PANE_ID }, async ($, e, next) => {
    state.paneOpen = false
    return next(e)
  })
  on('ui.render', { component: 'Pane', requestId: PANE_ID }, ($, e) => drawPane($, e))
}
