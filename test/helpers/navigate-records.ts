// Session records made by the real emitter (dist/hooks/emit.cjs), as an agent's hook would.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runEmitter } from './emitter.js'
import { cleanEnv, type TmuxServer } from './tmux-server.js'

const DIST = fileURLToPath(new URL('../../dist', import.meta.url))

export interface Built {
  emitter: string
  cli: string
}

/**
 * A private copy of the built dist/ (bundled, so it runs from anywhere): a rebuild while the
 * tests run (it starts by deleting dist/) must not pull the files from under them.
 */
export const copyBuilt = async (t: { teardown: (fn: () => void) => void }): Promise<Built> => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-dist-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const built = { emitter: join(dir, 'hooks', 'emit.cjs'), cli: join(dir, 'bin', 'trailboss.cjs') }
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      cpSync(DIST, dir, { recursive: true })
      if (existsSync(built.emitter) && spawnSync(process.execPath, [built.cli, '--version'], { timeout: 10_000 }).status === 0) return built
    } catch {
      // mid-rebuild; try again
    }
    if (Date.now() > deadline) throw new Error(`${DIST} is missing or incomplete: run \`npm run build\` first`)
    rmSync(dir, { recursive: true, force: true })
    await new Promise((r) => setTimeout(r, 200))
  }
}

export interface EmitOptions {
  home: string
  sessionId: string
  cwd: string
  event?: Record<string, unknown>
  /** The pane the agent runs in; absent: a session outside tmux. */
  server?: TmuxServer
  pane?: string
}

/** One hook event through the emitter; `Stop` with a question by default (a wait). */
export const emit = async (o: EmitOptions): Promise<void> => {
  const payload = {
    session_id: o.sessionId,
    transcript_path: `${o.cwd}/no-transcript.jsonl`,
    cwd: o.cwd,
    hook_event_name: 'Stop',
    last_assistant_message: 'Done. Shall I go on?',
    prompt_id: 'p1',
    ...o.event,
  }
  // Claude Code names the project folder; without it the emitter looks for a .git upwards.
  const env = cleanEnv({ TRAILBOSS_HOME: o.home, CLAUDE_PROJECT_DIR: o.cwd })
  if (o.server && o.pane) {
    env.TMUX = `${o.server.socket},${o.server.pid},0`
    env.TMUX_PANE = o.pane
  }
  const r = await runEmitter(JSON.stringify(payload), env)
  if (r.code !== 0) throw new Error(`emitter failed (${r.code}): ${r.stderr}`)
}
