// A throwaway home for the pinned GitHub Copilot CLI: offline against the Chat Completions mock
// on 127.0.0.1 (no GitHub sign-in), the project trusted, a private tmux server. Used by the
// Copilot end-to-end suite.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Lab, type LabDirs, openLab, REPO, run, waitForScreen } from './harness.js'
import { type ChatMockApi, startChatMock } from './mock-chat.js'

export const COPILOT_VERSION = '1.0.102'
export const COPILOT_BIN = join(REPO, 'test', 'e2e', 'clis', 'copilot', 'node_modules', '.bin', 'copilot')

/** Copilot's cache, shared by every run: the package it unpacks on its first start. */
export const COPILOT_CACHE = join(tmpdir(), 'tb-copilot-cache')

export interface CopilotLab extends Lab {
  copilotHome: string
  api: ChatMockApi
}

export const checkCopilot = async (): Promise<string> => {
  if (!existsSync(COPILOT_BIN)) throw new Error(`Copilot is not installed at ${COPILOT_BIN}: run \`node scripts/install-e2e-clis.mjs\``)
  // Its first start unpacks its package (~235 MB) under $XDG_CACHE_HOME: a folder of the temp dir, not the person's.
  const v = await run(COPILOT_BIN, ['--version'], { PATH: process.env.PATH, HOME: tmpdir(), XDG_CACHE_HOME: COPILOT_CACHE }, 60_000)
  if (v.code !== 0 || !v.stdout.includes(COPILOT_VERSION))
    throw new Error(`\`copilot --version\` gave ${JSON.stringify(v.stdout.trim())}; expected ${COPILOT_VERSION}`)
  return v.stdout.trim().split('\n')[0]!
}

/**
 * Starts the mock and writes Copilot's configuration into a HOME whose `.copilot` folder exists,
 * the project trusted; returns the mock and what Copilot's panes need in their environment.
 */
export const setupCopilot = async ({
  home,
  project,
}: Pick<LabDirs, 'home' | 'project'>): Promise<{ api: ChatMockApi; env: NodeJS.ProcessEnv }> => {
  const api = await startChatMock()
  // A trusted folder opens without the "Confirm folder trust" dialog.
  await writeFile(join(home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [project] }), { mode: 0o600 })
  return {
    api,
    env: {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: api.url,
      COPILOT_PROVIDER_API_KEY: 'sk-mock-trailboss-e2e',
      COPILOT_MODEL: 'mock-model',
      XDG_CACHE_HOME: COPILOT_CACHE,
    },
  }
}

export const startCopilotLab = async (): Promise<CopilotLab> => {
  const lab = await openLab({ prefix: 'tb-cp-', homeDirs: ['.copilot'], runnerEnv: 'forget', setup: setupCopilot })
  return { ...lab, copilotHome: join(lab.home, '.copilot') }
}

/** Copilot 1.0.102's prompt at rest: its footer. */
export const COPILOT_READY = /· \/ commands · \? help/

/**
 * Starts copilot (npm's launcher, as a person runs it) in a new tmux window, `env` added to that
 * window's environment alone; returns the pane id once its prompt is up.
 */
export const startCopilot = async (lab: Lab, name: string, env: NodeJS.ProcessEnv = {}): Promise<string> => {
  const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v ?? ''}`])
  const r = await lab.tmux('new-window', '-d', '-t', 'home:', '-n', name, '-c', lab.project, ...vars, '-P', '-F', '#{pane_id}', COPILOT_BIN)
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(lab, pane, COPILOT_READY, 60_000, `copilot's prompt in ${name}`)
  return pane
}
