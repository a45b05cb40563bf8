// The seam between the core (fold, queue, commands) and each agent we follow. Everything that
// depends on which agent runs a session sits behind AgentAdapter, in lib/agents/<id>/; the core
// asks for the adapter of `record.agent` (lib/agents/index.ts) and never names an agent.
// AgentHooks is the part the emitter needs: it is registered apart (lib/agents/hook-registry.ts)
// so that the emitter's import graph holds only what turns a payload into a folded record.
import type { PermissionDialog } from './dialog.js'
import type { Env } from '../paths.js'
import type { Scope } from '../settings/scope.js'
import type { AgentRecordRules } from '../record/agent-rules.js'
import type { HookEvent, LiveState, SessionRecord, TmuxLocation, WaitKind } from '../record/types.js'
import type { EmptyHooks } from '../settings/empty-hooks.js'
import type { JsonObject } from '../settings/json-value.js'
import type { EmitterCommand } from '../settings/package-root.js'

// The record layer's half of the seam (the fold's rules, the hook context) is declared below the
// agents, where the fold can use it without importing an agent (lib/record/agent-rules.ts).
export type { FoldRules, HookContext, StateChange } from '../record/agent-rules.js'

/** The emitter's side of an agent: light (node builtins and pure code only). */
export interface AgentHooks extends AgentRecordRules {
  id: string
  /** A payload too large to read: what the environment alone says, to keep the pane fresh. */
  oversizedPayload: (env: Env) => Record<string, unknown>
  /**
   * A line worth logging once (not once per event) about an event this version does not fully
   * know, such as a newer build's notification type; null for a known event.
   */
  notice?: (ev: HookEvent) => string | null
}

/** What the person did after the wait began, by the agent's transcript. */
export type TranscriptVerdict =
  | { verdict: 'moved-on'; at: number; why: 'new-prompt' | 'tool-answered' }
  | { verdict: 'interrupted'; at: number }
  /** The turn failed (an API error), as only the transcript tells (Codex fires no hook; Gemini CLI one like a finished turn's). */
  | { verdict: 'error'; at: number; message: string }

/**
 * A wait the agent itself publishes (Claude Code's session registry) before, or without, a hook
 * telling of it: marked inferred, it turns a `working` session into a wait at once.
 */
export interface LiveWait {
  kind: WaitKind
  /** When the wait began, by the agent's clock. */
  since: number
  /** For `reason`: where it was read and the agent's words ("claude code: dialog open"). */
  why: string
}

/** What a pane shows, as far as a screen tells (always marked inferred). */
export type ScreenVerdict = 'working' | 'permission' | 'interrupted' | 'idle' | 'unknown'

/** One line of a conversation as `show` prints it. */
export interface ConversationLine {
  who: 'you' | 'agent' | 'tool' | 'result'
  text: string
  at: string | null
  /** A tool call's name and input (a `tool` line), for `show` to render it as it renders the ask. */
  tool?: { name: string; input: unknown }
}

/** Where and how `install` registers our hooks with the agent. */
export interface InstallTarget {
  /** The agent's name for people ("Claude Code"). */
  label: string
  /** The settings file of a scope. */
  settingsFile: (scope: Scope, env: Env, cwd: string) => string
  /** The hook events registered. */
  events: readonly string[]
  /** Whether the agent waits for this event's hook (blocking) rather than running it async. */
  blocks: (event: string) => boolean
  /** Pure: the settings with exactly our hooks, each running `command`; `known`: emitter paths of ours. */
  merge: (settings: JsonObject, command: EmitterCommand, known: readonly string[]) => JsonObject
  /**
   * Pure: the settings without any hook of ours. `keep`: the containers that were empty before
   * install (settings/empty-hooks.ts), left empty rather than removed.
   */
  unmerge: (settings: JsonObject, known: readonly string[], keep?: EmptyHooks | null) => JsonObject
  /** A plugin of ours the agent may load besides the settings hooks (both: every event twice). */
  plugin?: { isEnabledIn: (settings: JsonObject) => boolean; uninstall: string }
  /**
   * What each hook runs. `emitter` (the default): Node and dist/hooks/emit.cjs. `spool`: for
   * agents that wait for every hook, `/bin/sh dist/hooks/spool.sh <agent id> <node>`, which
   * stores the event in a few ms and folds it with a detached emitter (docs/codex.md). `merge`
   * then gets that command as `{command: '/bin/sh', args: [spool.sh, id, node]}`, and `known`
   * holds spool.sh paths instead of emitter paths.
   */
  runner?: 'emitter' | 'spool'
  /**
   * For an agent that loads a file of ours rather than hook entries in its settings (OpenCode's
   * plugin): `settingsFile` is then that file, which install writes whole (`text`, running
   * `command`) and uninstall removes; one that is not ours (`isOurs`) is refused, untouched.
   * `merge` and `unmerge` are not used for it.
   */
  ownFile?: OwnFile
  /** A second file kept in step with the settings file (Codex: trust entries in config.toml). */
  companion?: CompanionFile
  /**
   * When a running session reads the hooks `install` writes: at its next event, or only when a
   * session starts (one already running must be restarted). For doctor's advice.
   */
  hooksReadAt: 'next-event' | 'start'
  /** For doctor, in the agent's own terms: how a session run with settings of its own gets our hooks. */
  ownSettings: string
  /** `install --statusline`: our status line in the same settings file, for an agent that shows one. */
  statusLine?: InstallOption
}

/** A file an agent loads that is wholly ours (InstallTarget.ownFile). */
export interface OwnFile {
  /** The file's text, running `command` (Node and our emitter, or `trailboss-emit` from PATH). */
  text: (command: EmitterCommand) => string
  /** Whether a file's text is one we wrote. */
  isOurs: (text: string) => boolean
}

/** A setting of ours that an install option puts beside the hooks, in the same settings file. */
export interface InstallOption {
  /** Pure: the settings with ours in. `cli`: how the setting runs our CLI (Node and CLI file, or `trailboss` from PATH). */
  merge: (settings: JsonObject, cli: readonly string[]) => JsonObject
  /** Pure: the settings without ours. Uninstall always runs it: ours goes whether or not the option is given. */
  unmerge: (settings: JsonObject) => JsonObject
  /** The line install prints about it once written. */
  report: (cli: readonly string[]) => string
}

/** The change of an install target's settings file, for its companion file to follow. */
export interface SettingsChange {
  settingsFile: string
  /** The companion file's path, for messages. */
  file: string
  /** The settings before (null: no file) and after the change. */
  before: JsonObject | null
  after: JsonObject
  known: readonly string[]
}

export interface CompanionFile {
  file: (env: Env) => string
  /** Pure: the companion's new text from its text now (null: missing), or null to leave it. */
  update: (text: string | null, change: SettingsChange) => string | null
}

/** One verdict of `doctor` about an agent's own setup (the shape of lib/doctor/checks.ts's Check). */
export interface AgentCheck {
  id: string
  status: 'ok' | 'info' | 'warn' | 'fail'
  summary: string
  fix: string | null
  details?: string[]
}

/** A live session found without a record of ours (no hooks ran in it), with what tells its state. */
export interface FoundSession {
  sessionId: string
  /** The agent's process. */
  pid: number
  cwd: string | null
  transcriptPath: string | null
  tmux: TmuxLocation | null
  /** The state the agent itself publishes (Claude Code's registry); null: the screen decides. */
  state: { state: LiveState; kind: WaitKind | null; since: number; why: string } | null
  /** The session ran a turn (its transcript has one): an agent at its prompt is done, not new. */
  hadTurn: boolean
}

/** A process of the agent, as discovery hands it over. */
export interface AgentProcessInfo {
  pid: number
  /** When it started, ms since the epoch (null: unknown). */
  startedAt: number | null
  cwd: string | null
}

/**
 * How to find an agent's sessions that have no record (issue #16): how its process looks, the
 * sessions it lists itself, and the session a process runs by its transcripts. Cached facts are
 * the caller's (`memo`): plain JSON kept between runs.
 */
export interface AgentDiscovery {
  /** Whether a process (its command name and arguments) is this agent. */
  isAgentProcess: (comm: string, argv: readonly string[]) => boolean
  /** The live sessions the agent lists itself, if it does. `memo` is this agent's cache. */
  listSessions?: (env: Env, memo: Record<string, unknown>) => FoundSession[]
  /** The session a process of the agent runs, by its transcripts; null when none is found yet. */
  findSession: (env: Env, proc: AgentProcessInfo) => Promise<Pick<FoundSession, 'sessionId' | 'transcriptPath' | 'hadTurn'> | null>
  /**
   * Per read: the folders a new transcript of a process in `cwd` would be made in
   * (`transcriptPath`: the one it writes now, if known). findSession runs again only when one of
   * them changed (a file made or removed there): a stat each per run instead of a search. Null:
   * none known, so findSession runs again on a timer.
   */
  sessionFolders: (env: Env, now: number) => (cwd: string | null, transcriptPath: string | null) => string[] | null
  /** For doctor: the setting that turns hooks off for a session in `cwd` ("disableAllHooks in <file>"), or null. */
  hooksOffIn?: (env: Env, cwd: string | null) => string | null
}

/** Everything agent-specific the core needs, for one agent. */
export interface AgentAdapter extends AgentHooks {
  /** A short name for narrow columns (the table's AGENT): claude, codex, gemini. */
  shortName: string
  /** Per read: a check of one record's transcript (the setup, such as resolving folders, runs once). */
  transcriptChecker: (env: Env) => (rec: SessionRecord, now: number) => TranscriptVerdict | null
  /**
   * Per read: the file transcriptChecker reads for a record, when it is known without a search,
   * so its verdict can be remembered by the file's stamp (lib/queue/transcript-memo.ts). Null:
   * the check reads none, or must search for it, and runs every time.
   */
  transcriptFile: (env: Env) => (rec: SessionRecord) => string | null
  /**
   * Per read: the agent's own word that a session waits (the setup, such as reading a folder,
   * runs at the first record that needs it). Absent for agents that publish none.
   */
  liveWaitChecker?: (env: Env) => (rec: SessionRecord) => LiveWait | null
  /** The file `watch` follows for a live session (its transcript), or null. */
  watchedFile: (rec: SessionRecord, env: Env) => string | null
  /** The last `count` lines of the conversation, for `show`; null when it cannot be read. */
  readConversation: (rec: SessionRecord, env: Env, count: number) => ConversationLine[] | null
  /** The version of the agent whose screens `classifyScreen` was written from. */
  screenRulesVersion: string
  classifyScreen: (text: string) => ScreenVerdict
  /** A session that will wake itself (background tasks): its screen says nothing. */
  sleepsOnItsOwn: (rec: SessionRecord) => boolean
  /**
   * The permission dialog the screen shows, with the keys that allow or deny it; null when it
   * shows none (a question, the prompt, another screen). Absent: `ok`/`no` cannot answer this agent.
   */
  readPermissionDialog?: (screen: string) => PermissionDialog | null
  /**
   * The screen `readPermissionDialog` (and `classifyScreen` with it) gets for `ok`/`no` keeps its
   * colours (`tmux capture-pane -e`): the agent shows which choice Enter presses only by colour.
   */
  dialogInColour?: boolean
  /** Whether a tool is the agent's way of asking the person a question. */
  isQuestionTool: (toolName: string | undefined) => boolean
  /** The command that resumes a session in its folder. */
  resumeCommand: (sessionId: string) => string[]
  /** Finding its sessions that have no record. */
  discovery?: AgentDiscovery
}

/**
 * What `install`, `uninstall` and `doctor` need of an agent. Apart from AgentAdapter because it
 * edits settings files under a lock: `ls` and `status` load every adapter and must not load that
 * (lib/agents/setup-registry.ts is imported by those commands only).
 */
export interface AgentSetup {
  id: string
  /** The agent's program on PATH (`doctor` looks for it). */
  command: string
  install: InstallTarget
  /**
   * `doctor`'s checks of the agent's own setup (its hooks, its build, Codex's trust entries, its
   * spooled events), in the order they are reported; Codex and Gemini CLI report nothing when
   * they are not set up at all.
   */
  doctor?: (ctx: DoctorContext) => AgentCheck[] | Promise<AgentCheck[]>
}

/** What `doctor` hands each agent's checks. */
export interface DoctorContext {
  env: Env
  /** The folder doctor runs in (a project's settings live there). */
  cwd: string
  /** Our emitter files (this package's), to recognise hook entries of ours. */
  known: readonly string[]
  now: number
}
