// A lab for queue tests: a private tmux server whose panes stand for agents, a Claude config
// folder with transcripts, and sessions recorded by the real emitter.
import * as fs from 'node:fs'
import { join } from 'node:path'
import { runEmitter, type ChildEnv } from './emitter.js'
import { cleanEnv, startTmuxServer } from './tmux-server.js'

export interface Lab {
  root: string
  env: ChildEnv
  socket: string
  serverPid: number
  tmux: (...args: string[]) => string
  /** Opens a new pane running `sleep` (an agent stand-in) and returns its id. */
  newPane: () => string
  transcript: (sessionId: string) => string
  appendTranscript: (sessionId: string, ...entries: object[]) => void
  emit: (
    sessionId: string,
    name: string,
    extra?: Record<string, unknown>,
    opts?: { pane?: string | null; headless?: boolean },
  ) => Promise<void>
  close: () => void
}

export const startLab = (root: string): Lab => {
  const home = join(root, 'home')
  fs.mkdirSync(home, { recursive: true })
  // Closed by the caller (lab.close); its short private folder also holds the sessions' cwds.
  const server = startTmuxServer(null, { session: 'lab', size: [160, 45], env: cleanEnv({ HOME: home }) })
  const { tmux, dir: outside, socket: socketPath } = server
  const pid = String(server.pid)
  const claudeDir = join(root, 'claude')
  const env: ChildEnv = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(root, 'tb'),
    CLAUDE_CONFIG_DIR: claudeDir,
    NO_COLOR: '1',
  }
  const transcript = (id: string): string => join(claudeDir, 'projects', '-tmp-lab', `${id}.jsonl`)
  let first = true
  return {
    root,
    env,
    socket: socketPath,
    serverPid: Number(pid),
    tmux,
    newPane: () => {
      if (first) {
        first = false
        return server.firstPane
      }
      return server.newPane(['new-window', '-d', '-t', 'lab'])
    },
    transcript,
    appendTranscript: (id, ...entries) => {
      fs.mkdirSync(join(claudeDir, 'projects', '-tmp-lab'), { recursive: true })
      fs.appendFileSync(transcript(id), entries.map((e) => `${JSON.stringify(e)}\n`).join(''))
    },
    emit: async (id, name, extra = {}, opts = {}) => {
      const payload = {
        session_id: id,
        transcript_path: transcript(id),
        cwd: join(outside, 'work', id.slice(0, 4)),
        hook_event_name: name,
        ...extra,
      }
      const hookEnv: ChildEnv = { ...env, CLAUDE_CODE_ENTRYPOINT: opts.headless ? 'sdk-cli' : 'cli' }
      if (opts.pane) Object.assign(hookEnv, { TMUX: `${socketPath},${pid},0`, TMUX_PANE: opts.pane })
      const r = await runEmitter(JSON.stringify(payload), hookEnv)
      if (r.code !== 0) throw new Error(`emitter exited ${r.code}`)
    },
    close: server.close,
  }
}

let counter = 0
const stamp = (): string => new Date(Date.now() + counter++).toISOString()

/** Transcript lines shaped as Claude Code 2.1.197 writes them (test/fixtures/transcripts). */
export const line = {
  prompt: (promptId: string, text: string) => ({ type: 'user', promptId, timestamp: stamp(), message: { role: 'user', content: text } }),
  assistant: (text: string) => ({
    type: 'assistant',
    timestamp: stamp(),
    message: { role: 'assistant', content: [{ type: 'text', text }] },
  }),
  toolUse: (id: string, name: string, input: object) => ({
    type: 'assistant',
    timestamp: stamp(),
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
  }),
  toolResult: (promptId: string, id: string, isError: boolean, text = isError ? "The user doesn't want to proceed" : 'ok') => ({
    type: 'user',
    promptId,
    timestamp: stamp(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text, is_error: isError }] },
  }),
  interrupt: (promptId: string, forToolUse = true) => ({
    type: 'user',
    promptId,
    timestamp: stamp(),
    message: {
      role: 'user',
      content: [{ type: 'text', text: forToolUse ? '[Request interrupted by user for tool use]' : '[Request interrupted by user]' }],
    },
  }),
  meta: (promptId: string) => ({
    type: 'user',
    isMeta: true,
    promptId,
    timestamp: stamp(),
    message: { role: 'user', content: '<local-command-caveat>…' },
  }),
  system: () => ({ type: 'system', subtype: 'turn_duration', durationMs: 5, timestamp: stamp() }),
}
