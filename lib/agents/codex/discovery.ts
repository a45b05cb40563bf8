// Codex sessions that have no record of ours (no hooks.json, hooks not trusted): a `codex`
// process in a pane, its session found by its rollout (the newest one written since the
// process started, in the process's folder). Codex lists no sessions itself.
import { basename, join } from 'node:path'
import { readRegularHead } from '../../fs/safe-file.js'
import type { Env } from '../../paths.js'
import { findNewestFile, isProcessNamed } from '../discovery.js'
import type { AgentDiscovery, AgentProcessInfo, FoundSession } from '../types.js'
import { codexSessionsDir } from './paths.js'

/** The session_meta line holds the cwd in its first few hundred bytes (base instructions come later). */
const HEAD_BYTES = 8192
const ROLLOUT_ID = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/

/** Pure: the cwd a rollout's first bytes (its session_meta) name, or null. */
export const parseRolloutCwd = (head: string): string | null => {
  if (!head.startsWith('{') || !head.includes('"session_meta"')) return null
  const m = /"cwd":("(?:[^"\\]|\\.)*")/.exec(head)
  if (!m?.[1]) return null
  try {
    const cwd: unknown = JSON.parse(m[1])
    return typeof cwd === 'string' ? cwd : null
  } catch {
    return null
  }
}

const pad = (n: number): string => String(n).padStart(2, '0')

/** Pure: the day folders (YYYY/MM/DD, local and UTC) a rollout of a process started at `from` may sit in, up to `to`. */
export const rolloutDayFolders = (from: number, to: number): string[] => {
  const out = new Set<string>()
  for (let t = from; t <= to + 86_400_000; t += 86_400_000) {
    const at = new Date(Math.min(t, to))
    out.add(`${at.getFullYear()}/${pad(at.getMonth() + 1)}/${pad(at.getDate())}`)
    out.add(`${at.getUTCFullYear()}/${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())}`)
    if (out.size > 8) break
  }
  return [...out]
}

const findRollout = async (
  env: Env,
  proc: AgentProcessInfo,
): Promise<Pick<FoundSession, 'sessionId' | 'transcriptPath' | 'hadTurn'> | null> => {
  if (!proc.cwd) return null
  const now = Date.now()
  const from = proc.startedAt ?? now - 86_400_000
  // Recent day folders only: a person's years of rollouts are never listed.
  const patterns = rolloutDayFolders(from, now).map((day) => `${day}/rollout-*.jsonl`)
  return findNewestFile(codexSessionsDir(env), patterns, from - 2000, undefined, (f) => {
    const id = ROLLOUT_ID.exec(basename(f.path))?.[1]
    if (!id) return null
    const head = readRegularHead(f.path, HEAD_BYTES)
    if (typeof head !== 'string' || parseRolloutCwd(head) !== proc.cwd) return null
    const firstLine = head.indexOf('\n')
    return { sessionId: id, transcriptPath: f.path, hadTurn: firstLine < 0 || f.size > firstLine + 1 }
  })
}

/** A new session's rollout goes into the day folder of its start: today's, local or UTC. */
const todaysFolders = (env: Env, now: number): ((cwd: string | null) => string[] | null) => {
  const days = rolloutDayFolders(now, now).map((day) => join(codexSessionsDir(env), day))
  return (cwd) => (cwd ? days : null)
}

/** Pure: the native `codex` binary, or Node running the npm package's launcher. */
export const isCodexProcess = isProcessNamed('codex', /@openai\/codex\/bin\/codex\.js$/)

export const codexDiscovery: AgentDiscovery = {
  isAgentProcess: isCodexProcess,
  findSession: findRollout,
  sessionFolders: todaysFolders,
}
