// An OpenCode pane without our plugin: found by its process, its state read from its screen.
// A real tmux server on a private socket, a stand-in process shaped as the npm launcher, showing
// captured OpenCode 1.18.33 screens.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { isOpencodeProcess } from '../lib/agents/opencode/discovery.js'
import { NO_HOOKS_HINT } from '../lib/queue/discover.js'
import { loadQueue } from '../lib/queue/load.js'
import { baseEnv, tempDir } from './helpers/emitter.js'
import { startTmuxServer } from './helpers/tmux-server.js'

const screen = (name: string): string => readFileSync(new URL(`./fixtures/opencode/screens/${name}.txt`, import.meta.url), 'utf8')

t.test('what an OpenCode process looks like', async (t) => {
  t.ok(isOpencodeProcess('node', ['node', '/usr/lib/node_modules/opencode-ai/bin/opencode']), 'the npm launcher')
  t.ok(isOpencodeProcess('node', ['node', '/usr/local/bin/opencode']), 'the launcher through its link')
  t.ok(isOpencodeProcess('opencode', ['/x/node_modules/opencode-linux-x64/bin/opencode']), 'the binary it starts')
  t.notOk(isOpencodeProcess('vim', ['vim', 'opencode.json']))
  t.notOk(isOpencodeProcess('node', ['node', 'server.js']))
})

t.test('a pane running OpenCode without our plugin: its dialog and its work, from the screen', async (t) => {
  const root = tempDir(t)
  const project = join(root, 'proj')
  const bin = join(root, 'bin')
  const env0 = baseEnv(root)
  for (const d of [project, bin, env0.TRAILBOSS_HOME!]) mkdirSync(d, { recursive: true })
  const server = startTmuxServer(t, { size: [160, 40] })
  const env = { ...env0, TMUX: server.tmuxVar() }
  const shown = join(root, 'screen.txt')
  writeFileSync(shown, screen('07-working'))
  // Node running `…/bin/opencode`: what a process table shows for the npm launcher.
  const launcher = join(bin, 'opencode')
  writeFileSync(
    launcher,
    `const fs = require('node:fs'); let last = ''; setInterval(() => { const s = fs.readFileSync(${JSON.stringify(shown)}, 'utf8'); if (s !== last) { last = s; process.stdout.write('\\x1b[2J\\x1b[H' + s) } }, 20)\n`,
  )
  const pane = server.newPane(['new-window', '-d', '-c', project], [process.execPath, launcher])
  const waitScreen = async (re: RegExp): Promise<void> => {
    for (let i = 0; i < 100 && !re.test(server.capture(pane)); i++) await new Promise((r) => setTimeout(r, 20))
  }
  const byPane = async (now: number) => (await loadQueue({ env, now: () => now })).items.find((i) => i.tmux?.pane === pane)
  await waitScreen(/esc interrupt/)
  const t0 = Date.now()
  t.match(await byPane(t0), { agent: 'opencode', state: 'working', inferred: true })
  writeFileSync(shown, screen('03-permission'))
  await waitScreen(/Permission required/)
  t.match(await byPane(t0 + 1_000), { agent: 'opencode', state: 'permission', kind: 'permission', hint: NO_HOOKS_HINT })
})
