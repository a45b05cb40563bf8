// The Claude Code mod: the other sessions' waits inside this one — a status entry, a toast when
// another session starts waiting, and `/trailboss`, a pane with a row per wait and a button that
// runs `trailboss go <key>` (the command's environment holds this session's TMUX and TMUX_PANE,
// so the person's own tmux client moves). The queue comes from `trailboss ls --json`, checked on
// read like every other view. At rest the mod makes no call into Claude Code at all (each call
// costs the host's main thread, docs/benchmarks.md): one `trailboss ls --json --until-change
// <digest>` stays pending, watching the sessions folder, and answers only when the queue differs
// from the one the mod shows; then the mod draws it and asks again. The age in the entry moves
// with a timer only while others wait, and this session's own turn events read the queue at once
// (what only a check on read sees, such as an answered dialog). The pending run is told when the
// queue it compares with was read (`--read-at`): until the sessions folder is written after that,
// it reads nothing and loads nothing, and a wait in which nothing was written ends empty, so each
// renewal at rest costs one small start. A read the person's own act causes (a prompt, `/trailboss`)
// passes `--return-digest`: it counts as an interactive command, and after a quiet stretch the
// queue comes with what arrived meanwhile, shown once as a toast (docs/design.md §11.8).
import type { EngineInterface, Register, RenderInputOf, Timer } from 'claude-code'
import {
  formatAge,
  formatStatus,
  formatToast,
  isTypedByPerson,
  newWaits,
  nextChangeAt,
  othersOf,
  parseListing,
  visibleText,
  waitId,
  type Wait,
} from './queue-view'

/** `trailboss ls` takes ~0.1 s; this bounds a hung one (a stuck tmux server). */
const LS_TIMEOUT_MS = 15_000
/** The pending run answers within 9 minutes (unchanged if nothing moved); Claude Code allows ten at most. */
const WAIT_TIMEOUT_MS = 600_000
/** Two pending runs start at least this far apart, whatever they answer. */
export const MIN_WAIT_GAP_MS = 1000
/**
 * A pending run that answers has watched the folder until then, but a write in its last moments
 * may not have been read: the next one counts writes from this long before the answer.
 */
export const ANSWER_SLACK_MS = 5000
/** After this many waits in which nothing was written (about an hour), the queue is read anyway: what only a check on read sees (a pane gone). */
export const QUIET_WAITS_BEFORE_READ = 6
/** After a failed read (no `trailboss` on PATH, a foreign one), the next try. */
export const RETRY_MS = 60_000
const GO_TIMEOUT_MS = 15_000
const PANE_ID = 'trailboss-queue'
const COMMAND = 'trailboss'
/** A return's digest says more than a wait's toast, and is shown once: it stays longer. */
const DIGEST_TOAST_MS = 15_000
/** Toasts for this many new waits at once; beyond, one toast counts the rest. */
const MAX_TOASTS = 3
/**
 * The entry's age moves (a minute a step) only this long after this session was last used (a
 * prompt, a turn's end, the pane): each new text makes Claude Code draw its status line again,
 * which costs its main thread more than the mod's own work. After that it stays as a floor
 * (`oldest 4m+`) until the next use or change; the nine sessions a person is not in draw nothing.
 */
export const AGE_MOVES_FOR_MS = 10 * 60_000
/** Ages in an open pane move on this often. */
const PANE_TICK_MS = 1000

interface State {
  own: string | null
  /** The digest of the queue shown (`ls --json`'s `digest`); null until a read succeeded. */
  digest: string | null
  waits: Wait[]
  /** Waits already seen (told or there at start); null until the first read. */
  seen: Set<string> | null
  error: string | null
  shown: string | undefined
  /** A `trailboss ls --json --until-change` is pending. */
  waiting: boolean
  /** Writes to the sessions folder from this moment on may not be in the queue shown; null: read before waiting. */
  readAt: number | null
  /** Waits in a row that ended with nothing written. */
  quietWaits: number
  /** When this session was last used (its prompts, turn ends, the pane); null: not since it started. */
  usedAt: number | null
  /** A use not yet stamped: the next read stamps it. */
  used: boolean
  /**
   * The person acted (a prompt, `/trailboss`) and no read has said so yet: the next one passes
   * `--return-digest`. Not a turn's end (the agent's, which may come while the person is away),
   * nor the pending run or a timer, which run by themselves.
   */
  person: boolean
  /** The next step of the entry's age, the retry after a failure, the open pane's ticks. */
  ageTimer: Timer | null
  retryTimer: Timer | null
  paneTimer: Timer | null
  running: Promise<void> | null
  again: boolean
  paneOpen: boolean
}

const state: State = {
  own: null,
  digest: null,
  waits: [],
  seen: null,
  error: null,
  shown: undefined,
  waiting: false,
  readAt: null,
  quietWaits: 0,
  usedAt: null,
  used: false,
  person: false,
  ageTimer: null,
  retryTimer: null,
  paneTimer: null,
  running: null,
  again: false,
  paneOpen: false,
}

/**
 * Runs one `trailboss ls` and takes its queue; whether what shows changed, or 'quiet' when a wait
 * with `--read-at` ended with nothing written. Never rejects.
 */
const readQueue = async ($: EngineInterface, argv: readonly string[], timeoutMs: number): Promise<boolean | 'quiet'> => {
  try {
    const r = await $.process.run(argv, { timeoutMs })
    if (r.exitCode !== 0 && /read-at/.test(r.stderr))
      throw new Error('`trailboss` is older than this plugin (no --read-at): npm install -g trailboss')
    if (r.exitCode !== 0 && /return-digest/.test(r.stderr))
      throw new Error('`trailboss` is older than this plugin (no --return-digest): npm install -g trailboss')
    if (r.exitCode !== 0) throw new Error(r.stderr.trim().split('\n')[0] || `\`trailboss ls --json\` exited ${r.exitCode}`)
    if (argv.includes('--read-at') && r.stdout.trim() === '') return 'quiet'
    const listing = parseListing(r.stdout)
    if (listing.digest === null) throw new Error('`trailboss` is older than this plugin (no digest): npm install -g trailboss')
    // Outside the queue's digest: it shows even when the queue did not change.
    if (listing.returnDigest !== null) $.ui.toast(listing.returnDigest, { timeoutMs: DIGEST_TOAST_MS })
    if (listing.digest === state.digest && state.error === null) return false
    const others = othersOf(listing.waits, state.own)
    if (state.seen) {
      const fresh = newWaits(state.seen, others)
      for (const w of fresh.slice(0, MAX_TOASTS)) $.ui.toast(formatToast(w), { timeoutMs: 8000 })
      if (fresh.length > MAX_TOASTS) $.ui.toast(`and ${fresh.length - MAX_TOASTS} more wait`, { timeoutMs: 8000 })
    }
    state.seen = new Set(others.map(waitId))
    state.waits = others
    state.digest = listing.digest
    state.error = null
  } catch (err) {
    // Not installed, not on PATH, a foreign program: say so in the entry, once per change.
    const message = err instanceof Error ? err.message : String(err)
    const error = /ENOENT|not found|No such file/i.test(message)
      ? '`trailboss` is not on PATH (npm install -g trailboss)'
      : visibleText(message)
    if (error === state.error) return false
    state.error = error
    state.waits = []
    state.digest = null
  }
  return true
}

/**
 * Reads the queue now (at start, on this session's turns, after `go`), then draws it; `person`:
 * the person's own act asked for it. Never rejects.
 */
const refresh = async ($: EngineInterface, used = false, person = false): Promise<void> => {
  if (used) state.used = true
  if (person) state.person = true
  if (state.running) {
    // One `ls` at a time; a request meanwhile runs once after it.
    state.again = true
    return state.running
  }
  state.running = (async () => {
    try {
      const startedAt = await $.clock.now()
      const used = state.used
      if (used) {
        state.used = false
        state.usedAt = startedAt
      }
      const person = state.person
      state.person = false
      const argv = [COMMAND, 'ls', '--json', ...(person ? ['--return-digest'] : [])]
      // A use restarts the age even when the queue is the same.
      if ((await readQueue($, argv, LS_TIMEOUT_MS)) || used) await draw($)
      if (state.digest !== null) {
        state.readAt = startedAt
        state.quietWaits = 0
      }
    } catch {
      // The session is ending (its calls are refused): nothing to draw on.
    } finally {
      state.running = null
    }
  })()
  await state.running
  if (state.again) {
    state.again = false
    await refresh($)
  }
  wait($)
}

/**
 * Keeps one `ls --json --until-change <digest> --read-at <ms>` pending: it returns when the queue
 * differs from the one shown, or after its longest wait (empty when nothing was written), and the
 * next one starts with the new digest. After a failure, a plain read retries later instead.
 */
const wait = ($: EngineInterface): void => {
  if (state.waiting) return
  if (state.digest !== null && state.quietWaits >= QUIET_WAITS_BEFORE_READ) {
    // Nothing written for about an hour: read once, as a turn would, then wait again.
    state.quietWaits = 0
    void refresh($)
    return
  }
  if (state.digest === null) {
    if (!state.retryTimer) {
      state.retryTimer = $.clock.after(RETRY_MS, () => {
        state.retryTimer = null
        void refresh($)
      })
    }
    return
  }
  state.waiting = true
  const digest = state.digest
  const readAt = state.readAt
  void (async () => {
    try {
      const startedAt = await $.clock.now()
      const argv = [
        COMMAND,
        'ls',
        '--json',
        '--until-change',
        digest,
        ...(readAt === null ? [] : ['--read-at', String(Math.floor(readAt))]),
      ]
      const answer = await readQueue($, argv, WAIT_TIMEOUT_MS)
      const answeredAt = await $.clock.now()
      if (answer === true) {
        // The new queue was read some time after the run began: writes since then count.
        state.readAt = startedAt
        state.quietWaits = 0
        await draw($, answeredAt)
      } else if (state.digest !== null) {
        // Unchanged or nothing written: the run watched every write until its answer.
        state.readAt = answeredAt - ANSWER_SLACK_MS
        state.quietWaits = answer === 'quiet' ? state.quietWaits + 1 : 0
      }
      // A queue that changes without pause (or a CLI that answers at once) asks at most once per gap.
      const early = startedAt + MIN_WAIT_GAP_MS - answeredAt
      if (early > 0) await $.clock.sleep(early)
    } catch {
      // The session is ending: its calls are refused, and no wait is asked again.
      return
    } finally {
      state.waiting = false
    }
    wait($)
  })()
}

/**
 * The status entry and an open pane, as of `at` (now, unless the caller knows it); and the timer
 * for the entry's next age step. A step costs Claude Code's main thread more than the mod (its
 * status line is drawn again), so it makes two calls: the new text and the next timer.
 */
const draw = async ($: EngineInterface, at?: number): Promise<void> => {
  const now = at ?? (await $.clock.now())
  const moving = state.paneOpen || (state.usedAt !== null && now - state.usedAt < AGE_MOVES_FOR_MS)
  const text = state.error ? `trailboss: ${state.error}` : formatStatus(state.waits, now, !moving)
  if (text !== state.shown) {
    state.shown = text
    $.ui.status(text)
  }
  if (state.paneOpen) $.ui.invalidate('ui.render')
  state.ageTimer?.cancel()
  state.ageTimer = null
  // The age moves only while others wait and this session is in use; then one last step writes
  // it as a floor. At rest no timer runs at all.
  const step = state.error || !moving ? Number.POSITIVE_INFINITY : nextChangeAt(state.waits, now)
  const next = Number.isFinite(step) && !state.paneOpen ? Math.min(step, (state.usedAt ?? 0) + AGE_MOVES_FOR_MS) : step
  if (Number.isFinite(next)) {
    state.ageTimer = $.clock.after(Math.max(1, next - now), () => {
      state.ageTimer = null
      // The timer fires at the step: its moment is the age's, with no call to ask the clock.
      void draw($, next).catch(() => {})
    })
  }
}

const start = async ($: EngineInterface): Promise<void> => {
  state.ageTimer?.cancel()
  state.retryTimer?.cancel()
  state.ageTimer = null
  state.retryTimer = null
  state.own = await $.session.id()
  state.seen = null
  state.digest = null
  state.readAt = null
  state.quietWaits = 0
  state.usedAt = null
  state.used = false
  state.person = false
  await $.command.register({ name: COMMAND, description: 'The other sessions waiting on you; a button takes you there' })
  await refresh($)
}

const go = async ($: EngineInterface, key: string): Promise<void> => {
  const r = await $.process.run([COMMAND, 'go', key], { timeoutMs: GO_TIMEOUT_MS }).catch((err: unknown) => ({
    exitCode: 1,
    stderr: err instanceof Error ? err.message : String(err),
  }))
  if (r.exitCode !== 0) $.ui.toast(`trailboss go: ${visibleText(r.stderr.trim().split('\n')[0] ?? 'failed')}`, { timeoutMs: 8000 })
  await refresh($, true)
}

const openPane = async ($: EngineInterface, person: boolean): Promise<void> => {
  state.paneOpen = true
  await $.ui.open({ id: PANE_ID, title: 'Waits', focus: true, closeOnEscape: true })
  // Ages in the pane move by the second while it is open.
  state.paneTimer?.cancel()
  state.paneTimer = $.clock.every(PANE_TICK_MS, () => {
    if (state.waits.length > 0) $.ui.invalidate('ui.render')
  })
  await refresh($, true, person)
}

const drawPane = async (
  $: EngineInterface,
  e:
    | RenderInputOf<'Pane', 'terminal'>
    | RenderInputOf<'Pane', Exclude<Parameters<EngineInterface['ui']['resolve']>[0]['surface'], 'terminal'>>,
) => {
  const { Box, Text, Button } = $.ui.resolve(e)
  const now = await $.clock.now()
  if (state.error) return <Text color="red">trailboss: {state.error}</Text>
  if (state.waits.length === 0) return <Text dimColor>Nobody else waits.</Text>
  return (
    <Box flexDirection="column">
      {state.waits.map((w) => (
        <Box key={w.key} flexDirection="row" gap={1}>
          {/* The hotkey is the wait's own number, the one every command and surface gives it. */}
          <Button key={`go-${w.key}`} label={`go ${w.n}`} hotkey={w.n <= 9 ? String(w.n) : undefined} onPress={() => go($, w.key)} />
          <Text bold>{w.project}</Text>
          <Text color="yellow">{w.seen ? `${w.kind} ✓` : w.kind}</Text>
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
    void refresh($, true, isTypedByPerson(e.origin))
    return next(e)
  })
  on('turn.complete', async ($, e, next) => {
    // A subagent's turns say nothing about the other sessions.
    if (e.agentId === undefined) void refresh($, true)
    return next(e)
  })
  on('command.run', { command: COMMAND }, async ($, e) => {
    await openPane($, isTypedByPerson(e.origin))
    return {}
  })
  on('ui.close', { id: PANE_ID }, async ($, e, next) => {
    state.paneOpen = false
    state.paneTimer?.cancel()
    state.paneTimer = null
    return next(e)
  })
  on('ui.render', { component: 'Pane', requestId: PANE_ID }, ($, e) => drawPane($, e))
}
