// A throwaway home for the pinned GitHub Copilot CLI: offline against the Chat Completions mock
// on 127.0.0.1 (no GitHub sign-in), the project trusted, a private tmux server. Used by the
// Copilot end-to-end suite.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Lab, openLab, REPO, run, waitForScreen } from './harness.js'
import { type ChatMockApi, startChatMock } from './mock-chat.js'

export const COPILOT_VERSION = '1.0.102'
export const COPILOT_BIN = join(REPO, 'test', 'e2e', 'clis', 'copilot', 'node_modules', '.bin', 'copilot')

export interface CopilotLab extends Lab {
  copilotHome: string
  api: ChatMockApi
}

export const checkCopilot = async (): Promise<string> => {
  if (!existsSync(COPILOT_BIN)) throw new Error(`Copilot is not installed at ${COPILOT_BIN}: run \`node scripts/install-e2e-clis.mjs\``)
  // Its first start unpacks its package (~235 MB) under $XDG_CACHE_HOME: a folder of the temp dir, not the person's.
  const v = await run(
    COPILOT_BIN,
    ['--version'],
    { PATH: process.env.PATH, HOME: tmpdir(), XDG_CACHE_HOME: join(tmpdir(), 'tb-copilot-cache') },
    60_000,
  )
  if (v.code !== 0 || !v.stdout.includes(COPILOT_VERSION))
    throw new Error(`\`copilot --version\` gave ${JSON.stringify(v.stdout.trim())}; expected ${COPILOT_VERSION}`)
  return v.stdout.trim().split('\n')[0]!
}

export const startCopilotLab = async (): Promise<CopilotLab> => {
  const lab = await openLab({
    prefix: 'tb-cp-',
    homeDirs: ['.copilot'],
    runnerEnv: 'forget',
    setup: async ({ home, project }) => {
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
          // Shared by every run: the package Copilot unpacks on its first start.
          XDG_CACHE_HOME: join(tmpdir(), 'tb-copilot-cache'),
        },
      }
    },
  })
  return { ...lab, copilotHome: join(lab.home, '.copilot') }
}

/** Copilot 1.0.102's prompt at rest: its footer. */
export const COPILOT_READY = /· \/ commands · \? help/

/** Starts copilot (npm's launcher, as a person runs it) in a new tmux window; returns the pane id once its prompt is up. */
export const startCopilot = async (lab: CopilotLab, name: string): Promise<string> => {
  const r = await lab.tmux('new-window', '-d', '-t', 'home:', '-n', name, '-c', lab.project, '-P', '-F', '#{pane_id}', COPILOT_BIN)
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(lab, pane, COPILOT_READY, 60_000, `copilot's prompt in ${name}`)
  return pane
}
