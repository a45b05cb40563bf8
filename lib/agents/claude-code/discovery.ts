// Claude Code sessions that have no record of ours (no hooks ran: started before `install`,
// hooks turned off, `--settings` of its own): from its own session registry (2.1.332) and, for
// builds without one, its transcripts. State comes from the registry's status, marked inferred.
import { existsSync, lstatSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Env } from '../../paths.js'
import { READ_CAP, readRegularFile } from '../../fs/safe-file.js'
import { readTmuxOf } from '../../tmux/process-env.js'
import type { TmuxLocation } from '../../record/types.js'
import { findNewestFile } from '../discovery.js'
import type { AgentDiscovery, AgentProcessInfo, FoundSession } from '../types.js'
import { claudeConfigDir, claudeProjectsDir } from './paths.js'
import {
  isClaudeProcess,
  isRegistryProcess,
  parseRegistryEntry,
  pidOfRegistryName,
  REGISTRY_FILE_CAP,
  REGISTRY_NAME,
  type RegistryEntry,
} from './session-registry.js'

/** What a registry file says beyond RegistryEntry: where the session runs. */
export interface RegistrySession extends RegistryEntry {
  cwd: string | null
  kind: string | null
}

/** Pure: a registry file's text, with the fields discovery needs, or null. */
export const parseRegistrySession = (text: string): RegistrySession | null => {
  const entry = parseRegistryEntry(text)
  if (!entry) return null
  const o = JSON.parse(text) as Record<string, unknown>
  return {
    ...entry,
    cwd: typeof o.cwd === 'string' && o.cwd.startsWith('/') ? o.cwd : null,
    kind: typeof o.kind === 'string' ? o.kind : null,
  }
}

/** Pure: Claude Code's folder name for a project (every character but [A-Za-z0-9] becomes `-`). */
export const projectFolderName = (cwd: string): string => cwd.replace(/[^A-Za-z0-9]/g, '-')

/** Pure: the state a registry status stands for; `hadTurn`: the session's transcript exists. */
export const deriveRegistryState = (entry: RegistryEntry, hadTurn: boolean): FoundSession['state'] => {
  const since = entry.statusUpdatedAt
  const why = `claude code: ${entry.waitingFor ?? entry.status}`
  switch (entry.status) {
    case 'busy':
      return { state: 'working', kind: null, since, why }
    case 'waiting':
      return { state: 'permission', kind: entry.waitingFor === 'input needed' ? 'question' : 'permission', since, why }
    case 'idle':
      return hadTurn ? { state: 'waiting', kind: 'done', since, why } : { state: 'idle', kind: null, since, why }
    default:
      return null
  }
}

interface Memo {
  mtimeMs: number
  size: number
  session: RegistrySession | null
  tmux: TmuxLocation | null
}

const isMemo = (v: unknown): v is Memo =>
  typeof v === 'object' && v !== null && typeof (v as Memo).mtimeMs === 'number' && typeof (v as Memo).size === 'number'

/**
 * The live interactive sessions of the registry. A file is parsed again only when its mtime or
 * size changed (Claude Code rewrites it whole at every change of status); its process's tmux
 * pane is read once, from the process's environment.
 */
const listRegistrySessions = (env: Env, memo: Record<string, unknown>): FoundSession[] => {
  const dir = join(claudeConfigDir(env), 'sessions')
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    for (const k of Object.keys(memo)) delete memo[k]
    return []
  }
  const seen = new Set<string>()
  const newest = new Map<string, { s: RegistrySession; tmux: TmuxLocation | null }>()
  for (const name of names) {
    if (!REGISTRY_NAME.test(name)) continue
    const path = join(dir, name)
    let st
    try {
      st = lstatSync(path)
    } catch {
      continue
    }
    seen.add(name)
    const old = memo[name]
    let m: Memo
    if (isMemo(old) && old.mtimeMs === st.mtimeMs && old.size === st.size) m = old
    else {
      // Only files of our own user, as Claude Code writes them: never one another user planted.
      const got = readRegularFile(path, { cap: REGISTRY_FILE_CAP, ownOnly: true })
      const parsed = got.ok ? parseRegistrySession(got.text) : null
      const session = parsed && { ...parsed, pid: parsed.pid ?? pidOfRegistryName(name) }
      const keepTmux = isMemo(old) && old.session?.pid === session?.pid ? old.tmux : undefined
      m = {
        mtimeMs: st.mtimeMs,
        size: st.size,
        session,
        tmux: keepTmux !== undefined ? keepTmux : session?.pid ? readTmuxOf(session.pid) : null,
      }
      memo[name] = m
    }
    const s = m.session
    // Headless runs (`claude -p`) wait on no one; a crashed process leaves its file behind.
    if (!s || s.pid === null || (s.kind !== null && s.kind !== 'interactive') || !isRegistryProcess(s)) continue
    if ((newest.get(s.sessionId)?.s.statusUpdatedAt ?? -1) < s.statusUpdatedAt) newest.set(s.sessionId, { s, tmux: m.tmux })
  }
  for (const k of Object.keys(memo)) if (!seen.has(k)) delete memo[k]
  const projects = claudeProjectsDir(env)
  return [...newest.values()].map(({ s, tmux }) => {
    const transcriptPath = s.cwd ? join(projects, projectFolderName(s.cwd), `${s.sessionId}.jsonl`) : null
    const hadTurn = transcriptPath !== null && existsSync(transcriptPath)
    return { sessionId: s.sessionId, pid: s.pid ?? 0, cwd: s.cwd, transcriptPath, tmux, state: deriveRegistryState(s, hadTurn), hadTurn }
  })
}

/** Builds without a registry: the newest transcript in the process's project folder since it started. */
const findByTranscript = async (
  env: Env,
  proc: AgentProcessInfo,
): Promise<Pick<FoundSession, 'sessionId' | 'transcriptPath' | 'hadTurn'> | null> => {
  if (!proc.cwd) return null
  const dir = join(claudeProjectsDir(env), projectFolderName(proc.cwd))
  return findNewestFile(dir, ['*.jsonl'], (proc.startedAt ?? 0) - 2000, 1, (f) => ({
    sessionId: basename(f.path, '.jsonl'),
    transcriptPath: f.path,
    hadTurn: true,
  }))
}

/** A new session (/clear, /new) starts a transcript in the process's project folder. */
const projectFolders = (env: Env): ((cwd: string | null) => string[] | null) => {
  const projects = claudeProjectsDir(env)
  return (cwd) => (cwd ? [join(projects, projectFolderName(cwd))] : null)
}

export { isClaudeProcess }

/** Pure: whether a settings file's text turns every hook off (Claude Code's `disableAllHooks`). */
export const turnsHooksOff = (text: string): boolean => {
  try {
    const v = JSON.parse(text) as { disableAllHooks?: unknown }
    return typeof v === 'object' && v !== null && v.disableAllHooks === true
  } catch {
    return false
  }
}

/** The settings files (user, project, local) that turn hooks off for a session in `cwd`. */
const hooksOffIn = (env: Env, cwd: string | null): string | null => {
  const files = [
    join(claudeConfigDir(env), 'settings.json'),
    ...(cwd ? [join(cwd, '.claude', 'settings.json'), join(cwd, '.claude', 'settings.local.json')] : []),
  ]
  for (const file of files) {
    const got = readRegularFile(file, { cap: READ_CAP.settings, ownOnly: false })
    if (got.ok && turnsHooksOff(got.text)) return `disableAllHooks in ${file}`
  }
  return null
}

export const claudeCodeDiscovery: AgentDiscovery = {
  isAgentProcess: isClaudeProcess,
  listSessions: listRegistrySessions,
  findSession: findByTranscript,
  sessionFolders: projectFolders,
  hooksOffIn,
}
