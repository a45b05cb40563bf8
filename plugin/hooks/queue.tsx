// The Claude Code mod: the other sessions' waits inside this one — a status entry, a toast when
// another session starts waiting, and `/trailboss`, a pane with a row per wait and a button that
// runs `trailboss go <key>` (the command's environment holds this session's TMUX and TMUX_PANE,
// so the person's own tmux client moves). The queue comes from `trailboss ls --json`, checked on
// read like every other view; it runs only when something changed: the sessions folder is
// stat'ed every POLL_MS (a record's atomic rename changes the folder's mtime; Claude Code gives a
// mod no file watch), and this session's own turn events refresh it too.
import type { EngineInterface, Register, RenderInputOf, Timer } from 'claude-code'
import { formatAge, formatStatus, formatToast, newWaits, nextChangeAt, othersOf, parseListing, waitId, type Wait } from './queue-view'

/** How often the sessions folder is stat'ed: a wait shows within this (plus one `ls`). */
export const POLL_MS = 2000
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

const readQueue = async ($: EngineInterface): Promise<void> => {
  try {
    const r = await $.process.run([COMMAND, 'ls', '--json'], { timeoutMs: LS_TIMEOUT_MS })
    if (r.exitCode !== 0) throw new Error(r.stderr.trim().split('\n')[0] || `\`trailboss ls --json\` exited ${r.exitCode}`)
    const others = othersOf(parseListing(r.stdout).waits, state.own)
    if (state.seen) {
      const fresh = newWaits(state.seen, others)
      for (const w of fresh.slice(0, MAX_TOASTS)) $.ui.toast(formatToast(w), { timeoutMs: 8000 })
      if (fresh.length > MAX_TOASTS) $.ui.toast(`and ${fresh.length - MAX_TOASTS} more wait`, { timeoutMs: 8000 })
    }
    state.seen = new Set(others.map(waitId))
    state.waits = others
    state.error = null
  } catch (err) {
    // Not installed, not on PATH, a foreign program: say so in the entry, once per change.
    const message = err instanceof Error ? err.message : String(err)
    state.error = /ENOENT|not found|No such file/i.test(message) ? '`trailboss` is not on PATH (npm install -g trailboss)' : message
    state.waits = []
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
      const changed = await othersChanged($).catch(() => true)
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
}

const start = async ($: EngineInterface): Promise<void> => {
  state.timer?.cancel()
  state.own = await $.session.id()
  state.stamp = Number.NaN
  state.signature = ''
  state.seen = null
  state.dir = await sessionsDir($)
  await $.command.register({ name: COMMAND, description: 'The other sessions waiting on you; a button takes you there' })
  state.timer = $.clock.every(POLL_MS, () => {
    state.now += POLL_MS
    void refresh($, false)
  })
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
