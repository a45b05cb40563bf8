// Gemini CLI sessions that have no record of ours (hooks removed or turned off): a Gemini CLI
// process in a pane, its session found by its chat file (the newest in its project's chats
// folder written since the process started; the header line names the session).
import { dirname, join } from 'node:path'
import { readRegularHead } from '../../fs/safe-file.js'
import type { Env } from '../../paths.js'
import { findNewestFile, isProcessNamed } from '../discovery.js'
import type { AgentDiscovery, AgentProcessInfo, FoundSession } from '../types.js'
import { geminiTmpDir, readProjectShortName } from './paths.js'

const HEAD_BYTES = 4096

/** Pure: the session id a chat file's header line names, or null. */
export const parseChatHeaderId = (head: string): string | null => {
  const line = head.split('\n', 1)[0] ?? ''
  try {
    const v = JSON.parse(line) as { sessionId?: unknown }
    return typeof v.sessionId === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(v.sessionId) ? v.sessionId : null
  } catch {
    return null
  }
}

const findChat = async (
  env: Env,
  proc: AgentProcessInfo,
): Promise<Pick<FoundSession, 'sessionId' | 'transcriptPath' | 'hadTurn'> | null> => {
  if (!proc.cwd) return null
  const short = readProjectShortName(env, proc.cwd)
  if (!short) return null
  return findNewestFile(join(geminiTmpDir(env), short, 'chats'), ['session-*.jsonl'], (proc.startedAt ?? 0) - 2000, 1, (f) => {
    const head = readRegularHead(f.path, HEAD_BYTES)
    const id = typeof head === 'string' ? parseChatHeaderId(head) : null
    return id ? { sessionId: id, transcriptPath: f.path, hadTurn: true } : null
  })
}

/**
 * A new session's chat file goes into the chats folder of the one it writes now. Before its
 * first chat file, that folder is known only through projects.json: a timer then.
 */
const chatFolders = (): ((cwd: string | null, transcript: string | null) => string[] | null) => (_cwd, transcript) =>
  transcript ? [dirname(transcript)] : null

/** Pure: Node running the Gemini CLI package, or a `gemini` launcher. */
export const isGeminiProcess = isProcessNamed('gemini', /@google\/gemini-cli\/(dist\/index\.js|bundle\/gemini\.js)$/)

export const geminiDiscovery: AgentDiscovery = {
  isAgentProcess: isGeminiProcess,
  findSession: findChat,
  sessionFolders: chatFolders,
}
