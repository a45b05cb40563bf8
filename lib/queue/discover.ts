// Sessions without a record of ours (issue #16): agents whose hooks never ran (started before
// `install`, hooks turned off, `--settings` of their own, hooks removed). Found on read, with no
// daemon: from what the agents list themselves (Claude Code's registry), from tmux panes whose
// process tree runs an agent, and from their transcripts. Their state (from the registry or the
// screen) is always inferred, and they carry a hint to install the hooks. When hooks later fire
// in one, its record has the same session id and takes its place: one session, one key.
import { isFresh } from '../clock.js'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { AGENTS, agentFor } from '../agents/index.js'
import { deriveFileStamp, isSettled } from '../fs/file-stamp.js'
import type { AgentAdapter, AgentDiscovery, FoundSession, ScreenVerdict } from '../agents/types.js'
import type { Env } from '../paths.js'
import { projectLabelIn } from '../record/hook-context.js'
import type { LiveState, SessionRecord, WaitKind } from '../record/types.js'
import { callerSocket } from '../tmux/env.js'
import type { TmuxExec } from '../tmux/exec.js'
import { capturePanes, type Pane } from '../tmux/panes.js'
import { deriveDescendants, processStartMs, readArgv, readCwd, readProcessTable } from '../proc/process-table.js'
import type { ProcStat } from '../proc/agent-process.js'
import { SHELL_COMMANDS, type ServerPanes } from './derive.js'
import type { DiscoveryCache, PaneMemo, ScreenMemo } from './discovery-cache.js'

/** The hint every hook-less session carries. */
export const NO_HOOKS_HINT = 'no hooks: trailboss install'
/**
 * A found process's session is looked up again (a new one after /new, /clear) when the folders
 * its agent makes transcripts in changed, and after this long in any case.
 */
export const SESSION_RECHECK_AFTER_MS = 10 * 60_000
/** Where the agent names no such folders: a named session is looked up again after this long, */
export const SESSION_LOOKUP_AFTER_MS = 30_000
/** and a process whose session has no transcript yet (never prompted) after this long. */
export const UNNAMED_LOOKUP_AFTER_MS = 2_000
/**
 * A hook-less pane's screen is its only state: looked at again when its transcript grew, after
 * this long while it shows work (a dialog or the end of the turn comes next, and must reach
 * `ls` within a second, as Claude Code's registry does), else after HOOKLESS_SCREEN_AFTER_MS.
 * One capture costs one tmux run per server (~2 ms, docs/queue.md §5).
 */
export const HOOKLESS_WORKING_SCREEN_AFTER_MS = 1_000
export const HOOKLESS_SCREEN_AFTER_MS = 10_000
/** At most this many processes of one pane are looked at. */
const MAX_PANE_PROCESSES = 32

/** A session found without a record, with its agent. */
export interface Hookless extends FoundSession {
  agent: string
  startTicks: number | null
  /** Where it was found, for doctor: 'registry' or 'pane'. */
  via: 'registry' | 'pane'
  /** Its project label when discovery remembered it; absent: worked out from `cwd`. */
  project?: string | null
}

/** The sessions the agents list themselves (before tmux is asked: they name more sockets). */
export const listPublishedSessions = (env: Env, cache: DiscoveryCache): Hookless[] =>
  AGENTS.flatMap((agent) => {
    const list = agent.discovery?.listSessions
    if (!list) return []
    const memo = (cache.registry[agent.id] ??= {})
    return list(env, memo).map((s) => ({ ...s, agent: agent.id, startTicks: null, via: 'registry' as const }))
  })

/** The tmux servers worth asking besides the records' own: the caller's, the default one, the agents'. */
export const discoverySockets = (env: Env, published: readonly Hookless[]): string[] => {
  const out = new Set<string>()
  const caller = callerSocket(env.TMUX)
  if (caller) out.add(caller)
  const uid = process.getuid?.()
  if (uid !== undefined) out.add(join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, 'default'))
  for (const s of published) if (s.tmux) out.add(s.tmux.socket)
  return [...out].filter((s) => existsSync(s))
}

const paneKey = (socket: string, pane: string): string => `${socket}\n${pane}`

/** Which agent process a pane runs, from the process table (read once per run, only when needed). */
const findAgentInPane = (pane: Pane, table: () => ReadonlyMap<number, ProcStat>): { agent: AgentAdapter; proc: ProcStat } | null => {
  for (const proc of deriveDescendants(table(), pane.panePid, MAX_PANE_PROCESSES)) {
    if (SHELL_COMMANDS.has(proc.comm)) continue
    const argv = readArgv(proc.pid)
    const agent = AGENTS.find((a) => a.discovery?.isAgentProcess(proc.comm, argv))
    if (agent) return { agent, proc }
  }
  return null
}

/**
 * The folders' stamps as one string ('-' for a missing one), or null when one changed too
 * recently to vouch that a later change would show (records.json's settled rule). A folder is
 * followed through a link: a project folder kept elsewhere changes there.
 */
const folderStamp = (folders: readonly string[], now: number): string | null => {
  const parts: string[] = []
  for (const folder of folders) {
    let st
    try {
      st = statSync(folder, { bigint: true, throwIfNoEntry: false })
    } catch {
      // Unreadable on the way (a permission): as missing.
    }
    if (!st) parts.push('-')
    else if (!isSettled(st.ctimeNs, now)) return null
    else parts.push(deriveFileStamp(st))
  }
  return parts.join('|')
}

/** Pure: whether a pane's session is looked up this run; `stamp`: its agent's folders now (undefined: it names none). */
export const deriveLookupDue = (
  memo: Pick<PaneMemo, 'sessionId' | 'lookedAt' | 'folders'>,
  stamp: string | null | undefined,
  now: number,
): boolean => {
  if (stamp === undefined) return !isFresh(memo.lookedAt, now, memo.sessionId === null ? UNNAMED_LOOKUP_AFTER_MS : SESSION_LOOKUP_AFTER_MS)
  return stamp === null || stamp !== memo.folders || !isFresh(memo.lookedAt, now, SESSION_RECHECK_AFTER_MS)
}

interface PaneInput {
  socket: string
  pane: Pane
}

/**
 * The agent sessions running in panes no live record owns. A pane whose pid and command are
 * unchanged since the last run is not looked at again; a found process's session is looked up
 * again only when its agent's transcript folders changed (deriveLookupDue).
 */
export const discoverInPanes = async (panes: readonly PaneInput[], env: Env, cache: DiscoveryCache, now: number): Promise<Hookless[]> => {
  let table: Map<number, ProcStat> | undefined
  const getTable = (): Map<number, ProcStat> => (table ??= readProcessTable())
  const seen = new Set<string>()
  const out: Hookless[] = []
  const foldersOf = new Map<string, ReturnType<AgentDiscovery['sessionFolders']>>()
  for (const { socket, pane } of panes) {
    const key = paneKey(socket, pane.paneId)
    seen.add(key)
    let memo: PaneMemo | undefined = cache.panes[key]
    if (!memo || memo.panePid !== pane.panePid || memo.command !== pane.currentCommand) {
      const found = findAgentInPane(pane, getTable)
      memo = {
        panePid: pane.panePid,
        command: pane.currentCommand,
        agent: found?.agent.id ?? null,
        pid: found?.proc.pid ?? null,
        startTicks: found?.proc.startTicks ?? null,
        cwd: found ? readCwd(found.proc.pid) : null,
        sessionId: null,
        transcriptPath: null,
        hadTurn: false,
        lookedAt: 0,
      }
    }
    cache.panes[key] = memo
    const agent = memo.agent ? agentFor(memo.agent) : undefined
    if (!agent?.discovery || memo.pid === null) continue
    // Worked out once per process found (its cwd is the process's, and stays with the memo).
    if (memo.project === undefined) memo.project = projectLabelIn(env)(undefined, memo.cwd)
    // Stamped before the lookup: a transcript made while it runs changes the folder after the stamp.
    let folderList = foldersOf.get(agent.id)
    if (!folderList) foldersOf.set(agent.id, (folderList = agent.discovery.sessionFolders(env, now)))
    const folders = folderList(memo.cwd, memo.transcriptPath)
    const stamp = folders === null ? undefined : folderStamp(folders, now)
    if (deriveLookupDue(memo, stamp, now)) {
      const startedAt = memo.startTicks === null ? null : processStartMs(memo.startTicks)
      const found = await agent.discovery.findSession(env, { pid: memo.pid, startedAt, cwd: memo.cwd })
      memo.lookedAt = now
      memo.folders = stamp ?? null
      if (found) Object.assign(memo, { sessionId: found.sessionId, transcriptPath: found.transcriptPath, hadTurn: found.hadTurn })
    }
    out.push({
      agent: agent.id,
      // Not prompted yet (no transcript): named by its process until it writes one.
      sessionId: memo.sessionId ?? `${agent.id}-pid-${memo.pid}`,
      pid: memo.pid,
      startTicks: memo.startTicks,
      cwd: memo.cwd,
      transcriptPath: memo.transcriptPath,
      tmux: { socket, pane: pane.paneId, serverPid: pane.serverPid || null },
      state: null,
      hadTurn: memo.hadTurn,
      via: 'pane',
      project: memo.project,
    })
  }
  for (const k of Object.keys(cache.panes)) if (!seen.has(k)) delete cache.panes[k]
  return out
}

/** A file's size, -1 when there is none (no path, or it cannot be stat'ed). */
export const readFileSize = (path: string | null): number => {
  if (!path) return -1
  try {
    return statSync(path).size
  } catch {
    return -1
  }
}

/** Pure: the state a screen shows a hook-less session in. */
export const deriveScreenState = (verdict: ScreenVerdict, hadTurn: boolean): { state: LiveState; kind: WaitKind | null } => {
  switch (verdict) {
    case 'working':
      return { state: 'working', kind: null }
    case 'permission':
      return { state: 'permission', kind: 'permission' }
    case 'interrupted':
      return { state: 'waiting', kind: 'interrupted' }
    case 'idle':
      return hadTurn ? { state: 'waiting', kind: 'done' } : { state: 'idle', kind: null }
    default:
      return { state: 'idle', kind: null }
  }
}

/** The screens of hook-less sessions that have no published state: one tmux run per server. */
export const readHooklessScreens = async (found: Hookless[], cache: DiscoveryCache, now: number, exec: TmuxExec): Promise<void> => {
  const due = new Map<string, Hookless[]>()
  const sizes = new Map<Hookless, number>()
  const keep = new Set<string>()
  for (const s of found) {
    if (s.state || !s.tmux) continue
    const key = paneKey(s.tmux.socket, s.tmux.pane)
    keep.add(key)
    const size = readFileSize(s.transcriptPath)
    sizes.set(s, size)
    const memo = cache.screens[key]
    const after = memo?.verdict === 'working' ? HOOKLESS_WORKING_SCREEN_AFTER_MS : HOOKLESS_SCREEN_AFTER_MS
    if (memo && memo.pid === s.pid && memo.size === size && isFresh(memo.at, now, after)) continue
    due.set(s.tmux.socket, [...(due.get(s.tmux.socket) ?? []), s])
  }
  await Promise.all(
    [...due].map(async ([socket, list]) => {
      const texts = await capturePanes(
        socket,
        list.map((s) => s.tmux?.pane ?? ''),
        exec,
      ).catch(() => list.map(() => null))
      list.forEach((s, i) => {
        const text = texts[i]
        if (text === null || text === undefined || !s.tmux) return
        const key = paneKey(socket, s.tmux.pane)
        const verdict = agentFor(s.agent)?.classifyScreen(text) ?? 'unknown'
        const old = cache.screens[key]
        const since = old && old.pid === s.pid && old.verdict === verdict ? old.since : now
        cache.screens[key] = { pid: s.pid, at: now, size: sizes.get(s) ?? -1, verdict, since }
      })
    }),
  )
  for (const k of Object.keys(cache.screens)) if (!keep.has(k)) delete cache.screens[k]
  for (const s of found) {
    if (s.state || !s.tmux) continue
    const memo: ScreenMemo | undefined = cache.screens[paneKey(s.tmux.socket, s.tmux.pane)]
    if (!memo) continue
    s.state = { ...deriveScreenState(memo.verdict, s.hadTurn), since: memo.since, why: `screen: ${memo.verdict}` }
  }
}

/** Pure: a found session as a record, for the queue's derivation (it has no file); `host`: this machine. */
export const toHooklessRecord = (s: Hookless, env: Env, now: number, host: string): SessionRecord => {
  const st = s.state ?? { state: 'idle' as const, kind: null, since: now, why: 'found' }
  return {
    v: 1,
    agent: s.agent,
    sessionId: s.sessionId,
    host,
    headless: false,
    cwd: s.cwd,
    project: s.project !== undefined ? s.project : projectLabelIn(env)(undefined, s.cwd),
    transcriptPath: s.transcriptPath,
    tmux: s.tmux,
    state: st.state,
    kind: st.kind,
    since: st.since,
    event: 'discovered',
    promptId: null,
    tool: null,
    // The agent's own words only (lib/queue/load.ts reads them): the install hint is the item's `hint`.
    message: null,
    offset: null,
    lastTool: null,
    turnEndedPromptId: null,
    backgroundTasks: 0,
    firstEventAt: st.since,
    // Now: it was seen running now, so it owns its pane over an older record there.
    lastEventAt: now,
    lastEvent: 'discovered',
    stateStamp: st.since,
    events: 0,
    foldedPending: [],
    denied: null,
    agentProcess: { pid: s.pid, startTicks: s.startTicks },
  }
}

/** Pure: the reason shown for a found session's state. */
export const hooklessReason = (s: Hookless): string => `${s.state?.why ?? 'found'}; ${NO_HOOKS_HINT}`

/**
 * Pure: the panes to look at for agents: live, not at a shell, owned by no live record and
 * not already named by an agent's own list.
 */
export const derivePanesToSearch = (
  servers: ReadonlyMap<string, ServerPanes>,
  records: readonly SessionRecord[],
  published: readonly Hookless[],
): PaneInput[] => {
  const owned = new Set<string>()
  for (const r of records) if (r.tmux && !r.headless && r.state !== 'ended') owned.add(paneKey(r.tmux.socket, r.tmux.pane))
  for (const s of published) if (s.tmux) owned.add(paneKey(s.tmux.socket, s.tmux.pane))
  const out: PaneInput[] = []
  for (const [socket, server] of servers) {
    if (server.status !== 'ok') continue
    for (const pane of server.panes.values()) {
      if (pane.dead || SHELL_COMMANDS.has(pane.currentCommand.replace(/^-/, '')) || owned.has(paneKey(socket, pane.paneId))) continue
      out.push({ socket, pane })
    }
  }
  return out
}

/** Pure: the found sessions no record stands for (a record, loaded or ended, wins by session id). */
export const deriveHookless = (found: readonly Hookless[], recordIds: ReadonlySet<string>): Hookless[] => {
  const seen = new Set<string>()
  return found.filter((s) => {
    if (recordIds.has(s.sessionId) || seen.has(s.sessionId)) return false
    seen.add(s.sessionId)
    return true
  })
}
