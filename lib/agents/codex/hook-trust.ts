// Codex runs a hook from hooks.json only once it is trusted: config.toml must hold
// `[hooks.state."<key>"] trusted_hash = "<hash>"` for it. Pure: the key and the hash, exactly as
// Codex 0.171.0 computes them (its `hooks/list` reports the same as `currentHash`), so `install`
// can trust our own hooks without starting Codex.
import { createHash } from 'node:crypto'

/** Codex's event names in hooks.json, and the snake_case labels its keys and hashes use. */
export const CODEX_HOOK_EVENTS = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'user_prompt_submit',
  PreToolUse: 'pre_tool_use',
  PermissionRequest: 'permission_request',
  PostToolUse: 'post_tool_use',
  PreCompact: 'pre_compact',
  PostCompact: 'post_compact',
  SubagentStart: 'subagent_start',
  SubagentStop: 'subagent_stop',
  Stop: 'stop',
  Interrupt: 'interrupt',
  SessionEnd: 'session_end',
} as const

export type CodexHookEvent = keyof typeof CODEX_HOOK_EVENTS

/** Codex's default for a handler without `timeout` (seconds); below 1 counts as 1. */
export const CODEX_DEFAULT_TIMEOUT_SEC = 600
/** Codex clamps these events' timeouts (it says so in hooks/list warnings), and hashes the clamped value. */
export const CODEX_CLAMPED_TIMEOUT_SEC: Partial<Record<CodexHookEvent, number>> = { SessionEnd: 3, Interrupt: 3 }

/** The timeout Codex uses, and hashes, for a handler of `event`. */
export const effectiveTimeout = (event: CodexHookEvent, timeout: number | undefined): number => {
  const t = Math.max(1, Math.trunc(timeout ?? CODEX_DEFAULT_TIMEOUT_SEC))
  const cap = CODEX_CLAMPED_TIMEOUT_SEC[event]
  return cap === undefined ? t : Math.min(t, cap)
}

export interface CodexCommandHandler {
  command: string
  timeout?: number
  async?: boolean
  statusMessage?: string
}

/** `<hooks.json path>:<event label>:<group index>:<handler index>`, the `[hooks.state]` key. */
export const hookStateKey = (hooksFile: string, event: CodexHookEvent, group: number, handler: number): string =>
  `${hooksFile}:${CODEX_HOOK_EVENTS[event]}:${group}:${handler}`

/** JSON with every object's keys sorted, no whitespace: the form Codex hashes. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * The trust hash of one command handler: sha256 over the canonical JSON of the normalized
 * identity `{event_name, matcher?, hooks: [handler]}`, where the handler has its timeout
 * filled in (and clamped, for SessionEnd and Interrupt) and fields that are unset left out (Codex serializes it through TOML, which has
 * no null). `matcher` counts only for events that take one; we install without matchers.
 */
export const hookTrustHash = (event: CodexHookEvent, handler: CodexCommandHandler, matcher: string | null = null): string => {
  const normalized = {
    type: 'command',
    command: handler.command,
    timeout: effectiveTimeout(event, handler.timeout),
    async: handler.async ?? false,
    statusMessage: handler.statusMessage,
  }
  const identity = { event_name: CODEX_HOOK_EVENTS[event], matcher: matcher ?? undefined, hooks: [normalized] }
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`
}
