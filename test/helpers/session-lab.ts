// A lab for queue tests: a private tmux server whose panes stand for agents, a Claude config
// folder with transcripts, and sessions recorded by the real emitter.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runEmitter, type ChildEnv } from './emitter.js'

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
  emit: (sessionId: string, name: string, extra?: Record<string, unknown>, opts?: { pane?: string | null; headless?: boolean }) => Promise<void>
  close: () => void
}

export const startLab = (root: string): Lab => {
  // A unix socket path must stay under ~104 bytes: tap's test dirs are longer.
  const outside = fs.mkdtempSync(join(tmpdir(), 'tb-lab-'))
  const socket = join(outside, 's')
  const home = join(root, 'home')
  fs.mkdirSync(home, { recursive: true })
  const { TMUX: _t, TMUX_PANE: _p, ...outer } = process.env
  const tmuxEnv = { ...outer, HOME: home } as NodeJS.ProcessEnv
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', socket, ...args], { env: tmuxEnv, encoding: 'utf8' })
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'lab', '-x', '160', '-y', '45', 'sleep', '1000')
  tmux('set-option', '-g', 'exit-empty', 'off')
  const [socketPath = socket, pid = '0'] = tmux('display-message', '-p', '#{socket_path},#{pid}').trim().split(',')
  const claudeDir = join(root, 'claude')
  const env: ChildEnv = {
    PATH: process.env.PATH,
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
        return tmux('display-message', '-p', '-t', 'lab', '#{pane_id}').trim()
      }
      return tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'lab', 'sleep', '1000').trim()
    },
    transcript,
    appendTranscript: (id, ...entries) => {
      fs.mkdirSync(join(claudeDir, 'projects', '-tmp-lab'), { recursive: true })
      fs.appendFileSync(transcript(id), entries.map((e) => `${JSON.stringify(e)}\n`).join(''))
    },
    emit: async (id, name, extra = {}, opts = {}) => {
      const payload = { session_id: id, transcript_path: transcript(id), cwd: join(outside, 'work', id.slice(0, 4)), hook_event_name: name, ...extra }
      const hookEnv: ChildEnv = { ...env, CLAUDE_CODE_ENTRYPOINT: opts.headless ? 'sdk-cli' : 'cli' }
      if (opts.pane) Object.assign(hookEnv, { TMUX: `${socketPath},${pid},0`, TMUX_PANE: opts.pane })
      const r = await runEmitter(JSON.stringify(payload), hookEnv)
      if (r.code !== 0) throw new Error(`emitter exited ${r.code}`)
    },
    close: () => {
      try {
        tmux('kill-server')
      } catch {
        // Already gone.
      }
      fs.rmSync(outside, { recursive: true, force: true })
    },
  }
}

let counter = 0
const stamp = (): string => new Date(Date.now() + counter++).toISOString()

/** Transcript lines shaped as Claude Code 2.1.197 writes them (test/fixtures/transcripts). */
export const line = {
  prompt: (promptId: string, text: string) => ({ type: 'user', promptId, timestamp: stamp(), message: { role: 'user', content: text } }),
  assistant: (text: string) => ({ type: 'assistant', timestamp: stamp(), message: { role: 'assistant', content: [{ type: 'text', text }] } }),
  toolUse: (id: string, name: string, input: object) => ({ type: 'assistant', timestamp: stamp(), message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } }),
  toolResult: (promptId: string, id: string, isError: boolean, text = isError ? 'The user doesn\'t want to proceed' : 'ok') => ({
    type: 'user',
    promptId,
    timestamp: stamp(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text, is_error: isError }] },
  }),
  interrupt: (promptId: string, forToolUse = true) => ({
    type: 'user',
    promptId,
    timestamp: stamp(),
    message: { role: 'user', content: [{ type: 'text', text: forToolUse ? '[Request interrupted by user for tool use]' : '[Request interrupted by user]' }] },
  }),
  meta: (promptId: string) => ({ type: 'user', isMeta: true, promptId, timestamp: stamp(), message: { role: 'user', content: '<local-command-caveat>…' } }),
  system: () => ({ type: 'system', subtype: 'turn_duration', durationMs: 5, timestamp: stamp() }),
}
