// A throwaway home for the pinned OpenCode: its config pointing a custom provider at the mock API
// on 127.0.0.1, bash set to ask, and a private tmux server. OpenCode starts an npm install of its
// plugin package in each config folder it reads, which offline stalls the first answer for about
// 70 s; a folder whose lock file already names the package is skipped, so both get one.
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type Lab, type LabDirs, openLab, REPO, run, waitForScreen } from './harness.js'
import { type OpencodeMockApi, startOpencodeMock } from './mock-opencode-api.js'

export const OPENCODE_VERSION = '1.18.33'
export const OPENCODE_BIN = join(REPO, 'test', 'e2e', 'clis', 'opencode', 'node_modules', 'opencode-linux-x64', 'bin', 'opencode')

export interface OpencodeLab extends Lab {
  api: OpencodeMockApi
  /** OpenCode's database, as the lab's HOME puts it. */
  db: string
}

const config = (apiUrl: string): string =>
  JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: 'mock/mock-model',
    small_model: 'mock/mock-model',
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL: apiUrl, apiKey: 'sk-mock-trailboss-e2e' },
        models: { 'mock-model': { name: 'Mock Model', tool_call: true } },
      },
    },
    // Without it bash runs without asking: no dialog.
    permission: { bash: 'ask' },
  })

/** Marks a config folder's plugin package as installed, so that OpenCode does not fetch it. */
const seedPluginPackage = async (dir: string): Promise<void> => {
  await mkdir(join(dir, 'node_modules'), { recursive: true })
  await writeFile(join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }))
}

export const checkOpencode = async (): Promise<string> => {
  if (!existsSync(OPENCODE_BIN)) throw new Error(`OpenCode is not installed at ${OPENCODE_BIN}: run \`node scripts/install-e2e-clis.mjs\``)
  const v = await run(OPENCODE_BIN, ['--version'], { PATH: process.env.PATH, HOME: REPO }, 20_000)
  if (v.code !== 0 || !v.stdout.includes(OPENCODE_VERSION))
    throw new Error(`\`opencode --version\` gave ${JSON.stringify(v.stdout.trim())}; expected ${OPENCODE_VERSION}`)
  return `opencode ${v.stdout.trim()}`
}

/**
 * Starts the mock (its TOOL calls run `commandOf(n)`) and writes OpenCode's configuration into a
 * HOME whose `.config/opencode` folder exists, and the project; returns the mock and what OpenCode's
 * panes need in their environment.
 */
export const setupOpencode =
  (commandOf: (n: number) => string) =>
  async ({ home, project }: Pick<LabDirs, 'home' | 'project'>): Promise<{ api: OpencodeMockApi; env: NodeJS.ProcessEnv }> => {
    const api = await startOpencodeMock(commandOf)
    const configDir = join(home, '.config', 'opencode')
    await writeFile(join(configDir, 'opencode.json'), config(api.url), { mode: 0o600 })
    await seedPluginPackage(configDir)
    await seedPluginPackage(join(project, '.opencode'))
    return {
      api,
      env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
    }
  }

export const startOpencodeLab = async (commandOf: (n: number) => string): Promise<OpencodeLab> => {
  const lab = await openLab({
    prefix: 'tb-oc-',
    homeDirs: ['.config/opencode', '.local/share'],
    runnerEnv: 'forget',
    setup: setupOpencode(commandOf),
  })
  return { ...lab, db: join(lab.home, '.local', 'share', 'opencode', 'opencode.db') }
}

/** The prompt's footer of OpenCode 1.18.33 at rest. */
export const OPENCODE_READY = /ctrl\+p commands/

/** Starts OpenCode in a new tmux window of the lab's project; returns the pane once its prompt is up. */
export const startOpencode = async (lab: OpencodeLab, name: string): Promise<string> => {
  const r = await lab.tmux('new-window', '-d', '-t', 'home:', '-n', name, '-c', lab.project, '-P', '-F', '#{pane_id}', OPENCODE_BIN)
  if (r.code !== 0) throw new Error(`tmux new-window failed: ${r.stderr}`)
  const pane = r.stdout.trim()
  await waitForScreen(lab, pane, OPENCODE_READY, 60_000, `OpenCode's prompt in ${name}`)
  return pane
}
