// GitHub Copilot CLI sessions that have no record of ours (no hook file of ours): a `copilot`
// process in a pane, its session found by its folder (`session-state/<id>/`, made at launch,
// whose workspace.yaml names the cwd). Copilot's open-sessions-state.json names no process, so
// the folder newest since the process started, in the process's folder, is taken.
import { basename, dirname, join } from 'node:path'
import { isRefusal, readRegularHead } from '../../fs/safe-file.js'
import type { Env } from '../../paths.js'
import { findNewestFile, isProcessNamed } from '../discovery.js'
import type { AgentDiscovery, AgentProcessInfo, FoundSession } from '../types.js'
import { copilotSessionStateDir } from './paths.js'

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** workspace.yaml is a few lines; events.jsonl's first prompt comes in its first few lines. */
const WORKSPACE_BYTES = 4096
const EVENTS_HEAD_BYTES = 64 * 1024

/**
 * Pure: the `id` and `cwd` a workspace.yaml names (plain or double-quoted scalars, as Copilot
 * writes them), or null.
 */
export const parseWorkspace = (text: string): { id: string; cwd: string } | null => {
  const field = (name: string): string | null => {
    const m = new RegExp(`^${name}: (.+)$`, 'm').exec(text)
    const raw = m?.[1]?.trimEnd()
    if (!raw) return null
    if (!raw.startsWith('"')) return /^['&*!|>%@`{[]/.test(raw) ? null : raw
    try {
      const v: unknown = JSON.parse(raw)
      return typeof v === 'string' ? v : null
    } catch {
      return null
    }
  }
  const id = field('id')
  const cwd = field('cwd')
  return id && cwd && SESSION_ID.test(id) ? { id, cwd } : null
}

const findSessionFolder = async (
  env: Env,
  proc: AgentProcessInfo,
): Promise<Pick<FoundSession, 'sessionId' | 'transcriptPath' | 'hadTurn'> | null> => {
  if (!proc.cwd) return null
  const from = proc.startedAt ?? Date.now() - 86_400_000
  return findNewestFile(copilotSessionStateDir(env), ['*/workspace.yaml'], from - 2000, 2, (f) => {
    const folder = dirname(f.path)
    const text = readRegularHead(f.path, WORKSPACE_BYTES)
    const ws = isRefusal(text) ? null : parseWorkspace(text)
    if (!ws || ws.id !== basename(folder) || ws.cwd !== proc.cwd) return null
    const events = join(folder, 'events.jsonl')
    const head = readRegularHead(events, EVENTS_HEAD_BYTES)
    return { sessionId: ws.id, transcriptPath: events, hadTurn: !isRefusal(head) && head.includes('"type":"user.message"') }
  })
}

/**
 * Pure: the platform binary (`…/@github/copilot-linux-x64/copilot`, whose command name is
 * `MainThread`), or Node running the npm package's `copilot` launcher.
 */
export const isCopilotProcess = isProcessNamed('copilot', /@github\/copilot\/[^/]+\.js$/)

export const copilotDiscovery: AgentDiscovery = {
  isAgentProcess: isCopilotProcess,
  findSession: findSessionFolder,
  // A new session makes its folder there at launch.
  sessionFolders: (env) => {
    const dir = copilotSessionStateDir(env)
    return (cwd) => (cwd ? [dir] : null)
  },
}
