// Pure: a hook payload (+ the hook's environment) becomes a HookEvent, and HookEvents fold into
// a session record by the state table of DESIGN §4. No I/O here and nothing heavy: this file is
// on the emitter's path, which runs on every agent event.
import type { Env } from './paths.js'

export const RECORD_VERSION = 1

export type AgentName = 'claude-code'
export type LiveState = 'idle' | 'working' | 'permission' | 'waiting' | 'ended'
export type WaitKind = 'permission' | 'question' | 'done' | 'error' | 'interrupted'

/** Context fields (a message, a tool input) are capped so a record stays well under 64 KB. */
export const CONTEXT_CAP = 4096
export const TRUNCATION_MARKER = '…[truncated]'

export interface TmuxLocation {
  pane: string
  socket: string
  serverPid: number | null
}

export interface ToolCall {
  name: string
  /** The tool's input; a string ending in TRUNCATION_MARKER when its JSON was over the cap. */
  input: unknown
  useId: string | null
}

/** What the emitter keeps of one hook event: the fold's input, and a pending file's content. */
export interface HookEvent {
  v: 1
  stamp: number
  name: string
  sessionId: string
  agent: AgentName
  promptId: string | null
  host: string
  headless: boolean
  cwd: string | null
  project: string | null
  transcriptPath: string | null
  offset: number | null
  tmux: TmuxLocation | null
  source: string | null
  reason: string | null
  notificationType: string | null
  tool: ToolCall | null
  message: string | null
  backgroundTasks: number
  isInterrupt: boolean
}

export interface SessionRecord {
  v: 1
  agent: AgentName
  sessionId: string
  host: string
  headless: boolean
  cwd: string | null
  project: string | null
  transcriptPath: string | null
  tmux: TmuxLocation | null
  state: LiveState
  kind: WaitKind | null
  /** When the current state (for a wait: the wait) began, ms since the epoch. */
  since: number
  /** The event that set the state, and its prompt id. */
  event: string
  promptId: string | null
  /** The tool a permission wait is about. */
  tool: ToolCall | null
  /** The agent's last message (Stop, StopFailure) or the notification text. */
  message: string | null
  /** Transcript size at the state event: where a check on read starts reading. */
  offset: number | null
  /** The latest PreToolUse, to give a PermissionRequest (which has none) its tool_use_id. */
  lastTool: ToolCall | null
  /** Prompt whose turn a Stop/StopFailure ended: its late tool events must not reopen it. */
  turnEndedPromptId: string | null
  backgroundTasks: number
  firstEventAt: number
  lastEventAt: number
  lastEvent: string
  /** Stamp of the newest event that set the state; older events update fields only. */
  stateStamp: number
  events: number
  /** Pending files already folded into this record; a later lock holder deletes them. */
  foldedPending: string[]
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

export const capText = (text: string, cap = CONTEXT_CAP): string =>
  text.length <= cap ? text : text.slice(0, cap - TRUNCATION_MARKER.length) + TRUNCATION_MARKER

/** Keeps small inputs as they are; a large one becomes its capped JSON text (DESIGN §7). */
export const capInput = (input: unknown, cap = CONTEXT_CAP): unknown => {
  if (input === undefined) return null
  const json = JSON.stringify(input)
  if (json === undefined) return null
  return json.length <= cap ? input : capText(json, cap)
}

/** `$TMUX` is `<socket path>,<server pid>,<session index>`; the socket path may hold commas. */
export const parseTmuxEnv = (tmux: string | undefined, pane: string | undefined): TmuxLocation | null => {
  if (!tmux || !pane || !/^%\d+$/.test(pane)) return null
  const parts = tmux.split(',')
  if (parts.length < 3) return null
  const pid = Number(parts[parts.length - 2])
  const socket = parts.slice(0, -2).join(',')
  if (!socket.startsWith('/')) return null
  return { pane, socket, serverPid: Number.isInteger(pid) && pid > 0 ? pid : null }
}

export interface EventContext {
  env: Env
  stamp: number
  host: string
  /** Transcript size at the event, when the transcript could be stat'ed. */
  offset: number | null
  project: string | null
}

/**
 * Turns a parsed payload into a HookEvent, or explains why it cannot be one. The session id
 * is validated here because it names a file.
 */
export const normalizeEvent = (payload: unknown, ctx: EventContext): HookEvent | string => {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'payload is not a JSON object'
  const p = payload as Record<string, unknown>
  const name = str(p.hook_event_name)
  if (!name) return 'payload has no hook_event_name'
  const sessionId = p.session_id
  if (typeof sessionId !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) {
    // Never String() a payload value: an object's own toString may be anything, or throw.
    return typeof sessionId === 'string' ? `invalid session_id ${JSON.stringify(sessionId.slice(0, 80))}` : `invalid session_id (${sessionId === null ? 'null' : typeof sessionId})`
  }
  const { env } = ctx
  // `claude -p` and the SDK run with this entrypoint: nobody sits at a pane (DESIGN §2).
  const headless = (env.CLAUDE_CODE_ENTRYPOINT ?? '').startsWith('sdk')
  const toolName = str(p.tool_name)
  const message =
    name === 'Notification'
      ? str(p.message)
      : str(p.last_assistant_message) ?? (name === 'StopFailure' ? str(p.error) : null)
  return {
    v: 1,
    stamp: ctx.stamp,
    name,
    sessionId,
    agent: 'claude-code',
    promptId: str(p.prompt_id),
    host: ctx.host,
    headless,
    cwd: str(p.cwd),
    project: ctx.project,
    transcriptPath: str(p.transcript_path),
    offset: ctx.offset,
    tmux: headless ? null : parseTmuxEnv(env.TMUX, env.TMUX_PANE),
    source: str(p.source),
    reason: str(p.reason),
    notificationType: str(p.notification_type),
    tool: toolName ? { name: toolName, input: capInput(p.tool_input), useId: str(p.tool_use_id) } : null,
    message: message === null ? null : capText(message),
    backgroundTasks: Array.isArray(p.background_tasks) ? p.background_tasks.length : 0,
    isInterrupt: p.is_interrupt === true,
  }
}

/** True when the message's last non-empty line ends with a question mark (DESIGN §4). */
export const endsWithQuestion = (message: string | null): boolean => {
  if (!message) return false
  const lines = message.trimEnd().split('\n')
  const last = (lines[lines.length - 1] ?? '').trim().replace(/[*_`)\]"']+$/, '')
  return last.endsWith('?')
}

interface StateChange {
  state: LiveState
  kind: WaitKind | null
  tool?: ToolCall | null
  message?: string | null
}

const TOOL_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'PermissionRequest',
  'SubagentStart',
])
const WORKING_EVENTS = new Set([
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PreToolUse',
  'PostToolUse',
  'PostToolBatch',
  'SubagentStart',
])

const sameInput = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Whether `ev` (a PreToolUse) is the call that the record's open permission dialog is about. */
const isOpenDialogFor = (rec: SessionRecord, ev: HookEvent): boolean =>
  rec.state === 'permission' &&
  rec.tool !== null &&
  ev.tool !== null &&
  rec.promptId === ev.promptId &&
  rec.tool.name === ev.tool.name &&
  sameInput(rec.tool.input, ev.tool.input)

/** The state an event asks for, or null when it leaves the state as it is. */
export const stateChangeFor = (rec: SessionRecord | null, ev: HookEvent): StateChange | null => {
  const current = rec?.state ?? null
  const isToolEvent = TOOL_EVENTS.has(ev.name) || (ev.name === 'Notification' && ev.notificationType === 'permission_prompt')
  // Within one prompt, a turn that Stop ended is not reopened by a late tool event of it.
  if (isToolEvent && rec && ev.promptId !== null && rec.turnEndedPromptId === ev.promptId) return null
  // The PreToolUse of the very call a dialog asks about, stamped after it (async hooks start
  // milliseconds apart): the dialog is still open.
  if (ev.name === 'PreToolUse' && rec && isOpenDialogFor(rec, ev)) return null
  if (WORKING_EVENTS.has(ev.name)) return { state: 'working', kind: null }
  switch (ev.name) {
    case 'SessionStart':
      return ev.source === 'compact' ? null : { state: 'idle', kind: null }
    case 'PostToolUseFailure':
      return ev.isInterrupt ? { state: 'waiting', kind: 'interrupted' } : { state: 'working', kind: null }
    case 'PermissionRequest': {
      const last = rec?.lastTool
      const tool = ev.tool && last && last.name === ev.tool.name && sameInput(last.input, ev.tool.input) ? { ...ev.tool, useId: last.useId } : ev.tool
      return { state: 'permission', kind: ev.tool?.name === 'AskUserQuestion' ? 'question' : 'permission', tool }
    }
    case 'Stop':
      if (ev.backgroundTasks > 0) return { state: 'working', kind: null }
      return { state: 'waiting', kind: endsWithQuestion(ev.message) ? 'question' : 'done', message: ev.message }
    case 'StopFailure':
      return { state: 'waiting', kind: 'error', message: ev.message }
    case 'SessionEnd':
      return { state: 'ended', kind: null }
    case 'Notification':
      switch (ev.notificationType) {
        case 'permission_prompt':
          // Repeats the PermissionRequest of the open dialog; alone (a missed PermissionRequest),
          // the latest PreToolUse is the best guess at what is asked.
          if (current === 'permission' && rec) return { state: 'permission', kind: rec.kind, tool: rec.tool }
          return {
            state: 'permission',
            kind: rec?.lastTool?.name === 'AskUserQuestion' ? 'question' : 'permission',
            tool: rec?.lastTool ?? null,
          }
        case 'elicitation_dialog':
          return { state: 'permission', kind: 'question', tool: null, message: ev.message }
        case 'idle_prompt':
          // Confirms a wait as it is, even when its prompt id is newer (a /compact in between).
          if (current === 'waiting') return null
          // After /clear Claude Code sends idle_prompt for the new session, which nobody has
          // prompted yet: nothing waits on the person there.
          if (current === 'idle') return null
          return { state: 'waiting', kind: 'done', tool: null, message: rec?.message ?? null }
        default:
          return null
      }
    default:
      return null
  }
}

const emptyRecord = (ev: HookEvent): SessionRecord => ({
  v: 1,
  agent: ev.agent,
  sessionId: ev.sessionId,
  host: ev.host,
  headless: ev.headless,
  cwd: ev.cwd,
  project: ev.project,
  transcriptPath: ev.transcriptPath,
  tmux: ev.tmux,
  state: 'idle',
  kind: null,
  since: ev.stamp,
  event: ev.name,
  promptId: ev.promptId,
  tool: null,
  message: null,
  offset: ev.offset,
  lastTool: null,
  turnEndedPromptId: null,
  backgroundTasks: 0,
  firstEventAt: ev.stamp,
  lastEventAt: ev.stamp,
  lastEvent: ev.name,
  stateStamp: 0,
  events: 0,
  foldedPending: [],
})

/**
 * Folds one event into a record (DESIGN §3 order rules, §4 state table). Pure: the same
 * record and event always give the same result, so readers can replay pending events.
 */
export const applyEvent = (prev: SessionRecord | null, ev: HookEvent): SessionRecord => {
  const base = prev ?? emptyRecord(ev)
  // Fields that locate the session heal on every event, whatever its age.
  const rec: SessionRecord = {
    ...base,
    host: ev.host || base.host,
    headless: base.headless || ev.headless,
    cwd: ev.cwd ?? base.cwd,
    project: ev.project ?? base.project,
    transcriptPath: ev.transcriptPath ?? base.transcriptPath,
    tmux: ev.headless || base.headless ? null : ev.tmux ?? base.tmux,
    firstEventAt: Math.min(base.firstEventAt, ev.stamp),
    lastEventAt: Math.max(base.lastEventAt, ev.stamp),
    lastEvent: ev.stamp >= base.lastEventAt ? ev.name : base.lastEvent,
    events: base.events + 1,
  }
  // A PermissionRequest has no tool_use_id; its PreToolUse, in whatever order it lands, has.
  if (ev.name === 'PreToolUse' && ev.tool && prev && isOpenDialogFor(prev, ev) && prev.tool?.useId === null) {
    rec.tool = { ...prev.tool, useId: ev.tool.useId }
  }
  if (prev && ev.stamp < prev.stateStamp) return rec
  if (ev.name === 'PreToolUse' && ev.tool) rec.lastTool = ev.tool
  // Once ended, only a new SessionStart (resume) brings a session back (DESIGN §4).
  if (base.state === 'ended' && prev && ev.name !== 'SessionStart') return rec
  const change = stateChangeFor(prev, ev)
  // idle_prompt: Claude Code sits at its prompt and the person pressed no key since the turn
  // ended, so what the transcript gained meanwhile (a /compact) is not the person coming back.
  if (!change && ev.name === 'Notification' && ev.notificationType === 'idle_prompt' && base.state === 'waiting' && ev.offset !== null) {
    rec.offset = ev.offset
  }
  // Only an event that sets the state moves stateStamp: a newer event that leaves the state
  // (MessageDisplay, an unknown one) must not void an older Stop still on its way.
  if (!change) return rec
  rec.stateStamp = ev.stamp
  const tool = change.tool !== undefined ? change.tool : change.state === 'permission' ? base.tool : null
  const message = change.message !== undefined ? change.message : null
  const sameWait =
    prev !== null &&
    prev.state === change.state &&
    prev.kind === change.kind &&
    prev.promptId === (ev.promptId ?? prev.promptId) &&
    sameInput(prev.tool, tool)
  rec.state = change.state
  rec.kind = change.kind
  rec.tool = tool
  rec.message = message
  if (ev.name === 'SessionStart') rec.lastTool = null
  if (ev.name === 'Stop' || ev.name === 'StopFailure') {
    rec.backgroundTasks = ev.backgroundTasks
    if (change.state === 'waiting') rec.turnEndedPromptId = ev.promptId
  } else if (ev.name === 'UserPromptSubmit' || ev.name === 'SessionStart') {
    rec.turnEndedPromptId = null
    rec.backgroundTasks = 0
  }
  if (!sameWait) {
    rec.since = ev.stamp
    rec.event = ev.name
    rec.promptId = ev.promptId ?? base.promptId
    rec.offset = ev.offset
  } else if (rec.offset === null) {
    rec.offset = ev.offset
  }
  return rec
}

/** Folds events in stamp order (ties by arrival), as readers and the reliability tests do. */
export const foldEvents = (rec: SessionRecord | null, events: readonly HookEvent[]): SessionRecord | null =>
  [...events].sort((a, b) => a.stamp - b.stamp).reduce<SessionRecord | null>((r, e) => applyEvent(r, e), rec)
