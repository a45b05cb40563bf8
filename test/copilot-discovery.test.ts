// GitHub Copilot CLI sessions without hooks: its process, and its session by the folder it makes
// at launch (workspace.yaml as captured: test/fixtures/copilot/session-state-workspace.yaml).
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { copilotDiscovery, isCopilotProcess, parseWorkspace } from '../lib/agents/copilot/discovery.js'
import { tempDir } from './helpers/emitter.js'

const WORKSPACE = fs.readFileSync(new URL('./fixtures/copilot/session-state-workspace.yaml', import.meta.url), 'utf8')
const ID = '50484cbd-bd73-442b-a0d9-1b949c0d6b89'

t.test('its process', async (t) => {
  t.ok(isCopilotProcess('MainThread', ['/p/copilot/node_modules/@github/copilot-linux-x64/copilot']), 'the platform binary')
  t.ok(isCopilotProcess('node', ['node', '/p/node_modules/@github/copilot/npm-loader.js']), "Node running the package's launcher")
  t.ok(isCopilotProcess('node', ['node', '/usr/local/bin/copilot']))
  t.notOk(isCopilotProcess('node', ['node', '/p/node_modules/@github/copilot-other/x']))
  t.notOk(isCopilotProcess('bash', ['bash']))
})

t.test('workspace.yaml', async (t) => {
  t.same(parseWorkspace(WORKSPACE), { id: ID, cwd: '$P/proj-copilot' })
  t.same(parseWorkspace(`id: ${ID}\ncwd: "/w/a \\"b\\""\n`), { id: ID, cwd: '/w/a "b"' })
  t.equal(parseWorkspace(`id: ${ID}\ncwd: '/w/x'\n`), null, 'a form Copilot was not seen to write')
  t.equal(parseWorkspace('id: ../x\ncwd: /w\n'), null, 'the id names a folder: a UUID only')
  t.equal(parseWorkspace('cwd: /w\n'), null)
})

t.test('the session a process runs: the newest folder of its cwd since it started', async (t) => {
  const home = tempDir(t)
  const env = { HOME: home, COPILOT_HOME: join(home, 'c') }
  const states = join(home, 'c', 'session-state')
  const make = (id: string, cwd: string, prompt: boolean): void => {
    fs.mkdirSync(join(states, id), { recursive: true })
    fs.writeFileSync(join(states, id, 'workspace.yaml'), `id: ${id}\ncwd: ${cwd}\nname: x\n`)
    const start = '{"type":"session.start","data":{},"id":"a","timestamp":"2026-12-02T07:19:31.155Z","parentId":null}\n'
    const user = '{"type":"user.message","data":{"content":"hi"},"id":"b","timestamp":"2026-12-02T07:19:56.156Z","parentId":"a"}\n'
    fs.writeFileSync(join(states, id, 'events.jsonl'), prompt ? start + user : start)
  }
  const other = '11111111-2222-4333-8444-555555555555'
  make(ID, '/w/proj', true)
  make(other, '/w/elsewhere', false)
  const startedAt = Date.now() - 60_000
  t.same(await copilotDiscovery.findSession(env, { pid: 1, startedAt, cwd: '/w/proj' }), {
    sessionId: ID,
    transcriptPath: join(states, ID, 'events.jsonl'),
    hadTurn: true,
  })
  t.match(await copilotDiscovery.findSession(env, { pid: 2, startedAt, cwd: '/w/elsewhere' }), { sessionId: other, hadTurn: false })
  t.equal(await copilotDiscovery.findSession(env, { pid: 3, startedAt, cwd: '/w/none' }), null)
  t.equal(
    await copilotDiscovery.findSession(env, { pid: 4, startedAt: Date.now() + 60_000, cwd: '/w/proj' }),
    null,
    'older than the process',
  )
  t.same(copilotDiscovery.sessionFolders(env, Date.now())('/w/proj', null), [states])
})
