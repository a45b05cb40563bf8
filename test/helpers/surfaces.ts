// Shared by the watch, status and notify suites: a private home, records written by the real
// emitter, and the built CLI run as a child process.
import * as fs from 'node:fs'
import { join } from 'node:path'
import { runEmitter, type ChildEnv } from './emitter.js'

export type { ChildEnv }

export interface Home {
  root: string
  tb: string
  claude: string
  /** The minimal environment our children get (never the test runner's own). */
  env: (extra?: ChildEnv) => ChildEnv
}

export const makeHome = (root: string): Home => {
  const tb = join(root, 'tb')
  const claude = join(root, 'claude')
  fs.mkdirSync(join(claude, 'projects', 'p'), { recursive: true })
  return {
    root,
    tb,
    claude,
    env: (extra = {}) => ({
      PATH: process.env.PATH,
      TMUX_TMPDIR: process.env.TMUX_TMPDIR,
      HOME: join(root, 'home'),
      TRAILBOSS_HOME: tb,
      CLAUDE_CONFIG_DIR: claude,
      ...extra,
    }),
  }
}

export interface Wait {
  session: string
  event?: 'Stop' | 'PermissionRequest' | 'UserPromptSubmit'
  cwd?: string
  message?: string
  tool?: { name: string; input: Record<string, unknown> }
  transcript?: string
  /** `<socket>,<pid>,0` and `%N`: a session running in that pane. */
  tmux?: { env: string; pane: string }
}

/** Writes one event through the built emitter, as Claude Code's hook would. */
export const emitWait = async (home: Home, w: Wait): Promise<void> => {
  const event = w.event ?? 'Stop'
  const payload: Record<string, unknown> = {
    session_id: w.session,
    transcript_path: w.transcript ?? `/nonexistent/${w.session}.jsonl`,
    cwd: w.cwd ?? `/tmp/${w.session}`,
    hook_event_name: event,
    prompt_id: 'p1',
    ...(event === 'Stop' ? { last_assistant_message: w.message ?? 'Done.' } : {}),
    ...(event === 'UserPromptSubmit' ? { prompt: w.message ?? 'go on' } : {}),
    ...(event === 'PermissionRequest' ? { tool_name: w.tool?.name ?? 'Bash', tool_input: w.tool?.input ?? { command: 'npm test' } } : {}),
  }
  const env = home.env(w.tmux ? { TMUX: w.tmux.env, TMUX_PANE: w.tmux.pane } : {})
  const r = await runEmitter(JSON.stringify(payload), env)
  if (r.code !== 0) throw new Error(`emitter failed: ${r.stderr}`)
}

export { CLI, runCli, runInProcess, type CliResult } from './cli.js'

/** A stand-in for a desktop notifier: logs each call's arguments (one JSON array a line). */
export const fakeNotifier = (
  dir: string,
  name: string,
  opts: { sleepMs?: number } = {},
): { bin: string; log: string; calls: () => string[][] } => {
  const bin = join(dir, 'bin')
  const log = join(dir, `${name}.log`)
  fs.mkdirSync(bin, { recursive: true })
  const sleep = opts.sleepMs ? `sleep ${(opts.sleepMs / 1000).toFixed(2)}\n` : ''
  const script = `#!/bin/sh\n${sleep}${process.execPath} -e 'require("fs").appendFileSync(process.argv[1], JSON.stringify(process.argv.slice(2)) + "\\n")' ${JSON.stringify(log)} "$@"\n`
  fs.writeFileSync(join(bin, name), script, { mode: 0o755 })
  return {
    bin,
    log,
    calls: () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as string[])
        : [],
  }
}
