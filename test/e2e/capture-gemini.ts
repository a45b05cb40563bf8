// Captures what Gemini CLI (pinned in test/e2e/clis/gemini) signals, state by state, into
// test/fixtures/gemini/: every hook payload with the environment the hook sees, the chat files,
// projects.json and the screens. Not a test: run it by hand after a Gemini CLI upgrade, then read
// the diff. Usage (from the repo root):
//   node --import tsx test/e2e/capture-gemini.ts
import { execFile } from 'node:child_process'
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { GEMINI_JS, GEMINI_SETTINGS, geminiEnv, processTree } from './gemini-harness.js'
import { REPO } from './harness.js'
import { startMockGeminiApi } from './mock-gemini-api.js'

const OUT = join(REPO, 'test', 'fixtures', 'gemini')
/** Every path in the fixtures is rewritten to this example root. */
const EXAMPLE_ROOT = '/home/dev/gprobe'
const EVENTS = ['SessionStart', 'SessionEnd', 'BeforeAgent', 'AfterAgent', 'BeforeTool', 'AfterTool', 'Notification', 'PreCompress']
/** Fired per model call and per streamed chunk: hooked in session B only, so session A's screens show what our install gives. */
const MODEL_EVENTS = ['BeforeModel', 'AfterModel', 'BeforeToolSelection']

// The hook: logs the payload, the environment it sees (no keys) and the chat file as it is at that moment.
const HOOK_LOGGER = `const fs = require('fs')
let d = ''
process.stdin.on('data', (c) => (d += c)).on('end', () => {
  const env = {}
  for (const k of Object.keys(process.env).sort()) if (/^(TMUX|TMUX_PANE|TERM|HOME|PWD|GEMINI_|CLAUDE_)/.test(k) && !/KEY/.test(k)) env[k] = process.env[k]
  let payload
  try { payload = JSON.parse(d) } catch { payload = d }
  let chatSize = null, chatTail = null
  try {
    const t = fs.readFileSync(payload.transcript_path, 'utf8')
    chatSize = t.length
    const lines = t.trimEnd().split('\\n')
    // The last records as type and text head: whether the chat file already holds the turn's end when the hook runs.
    chatTail = lines.slice(-3).map((l) => {
      try {
        const j = JSON.parse(l)
        if (j.type) return j.type + ': ' + (typeof j.content === 'string' ? j.content : JSON.stringify(j.content)).slice(0, 60) + (j.toolCalls ? ' +toolCalls' : '')
        return Object.keys(j).join(',') + (j.$set ? ' ' + Object.keys(j.$set).join(',') : '')
      } catch { return '(unparsable)' }
    })
  } catch {}
  fs.appendFileSync(process.argv[2], JSON.stringify({ event: process.argv[3], ts: Date.now(), ppid: process.ppid, env, chatSize, chatTail, payload }) + '\\n')
})
`

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const root = mkdtempSync(join(tmpdir(), 'tb-gcap-'))
const home = join(root, 'home')
const project = join(root, 'work', 'proj')
const scratch = join(root, 'scratch')
const socket = join(root, 'sock')
const hookLog = join(root, 'hooks.jsonl')
for (const d of [join(home, '.gemini'), project, scratch]) mkdirSync(d, { recursive: true, mode: 0o700 })
mkdirSync(join(project, '.git'))
writeFileSync(join(root, 'hook-log.cjs'), HOOK_LOGGER)

const api = await startMockGeminiApi({ scratchDir: scratch })
const hookEntries = (events: string[]) =>
  Object.fromEntries(
    events.map((e) => [
      e,
      [
        {
          matcher: '*',
          hooks: [{ type: 'command', command: `${process.execPath} ${join(root, 'hook-log.cjs')} ${hookLog} ${e}`, timeout: 5000 }],
        },
      ],
    ]),
  )
const settings = { ...GEMINI_SETTINGS, hooks: hookEntries(EVENTS) }
writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2))

const env: NodeJS.ProcessEnv = {
  PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
  HOME: home,
  LANG: 'C.UTF-8',
  TERM: 'xterm-256color',
  ...geminiEnv(api.url),
}

const tmux = (...args: string[]): Promise<{ stdout: string; code: number }> =>
  new Promise((r) =>
    execFile('tmux', ['-S', socket, '-f', '/dev/null', ...args], { env }, (err, stdout) => r({ stdout, code: err ? 1 : 0 })),
  )

const rewrite = (text: string): string =>
  text
    .split(root)
    .join(EXAMPLE_ROOT)
    .replace(new RegExp(`127\\.0\\.0\\.1:${api.port}`, 'g'), '127.0.0.1:PORT')

const capture = async (pane: string): Promise<string> => (await tmux('capture-pane', '-p', '-t', pane)).stdout

let screenNo = 0
const saveScreen = async (pane: string, name: string, state: string): Promise<void> => {
  const text = (await capture(pane))
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd()
  const file = `${String(++screenNo).padStart(2, '0')}-${name}.txt`
  mkdirSync(join(OUT, 'screens'), { recursive: true })
  writeFileSync(join(OUT, 'screens', file), rewrite(text) + '\n')
  appendFileSync(join(root, 'screens.log'), `${file}\t${state}\n`)
  console.log(`screen ${file}: ${state}`)
}

const waitFor = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

const hooks = (): { event: string; payload: Record<string, unknown> }[] =>
  existsSync(hookLog)
    ? readFileSync(hookLog, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []
const count = (event: string) => hooks().filter((h) => h.event === event).length
const waitHook = (event: string, n: number) => waitFor(`${event} #${n}`, () => (count(event) >= n ? true : undefined))
const waitScreen = (pane: string, re: RegExp | ((s: string) => boolean), what = String(re)) =>
  waitFor(`screen ${what}`, async () => {
    const s = await capture(pane)
    return (typeof re === 'function' ? re(s) : re.test(s)) ? true : undefined
  })
/** Idle: the prompt's placeholder and no spinner. The input box stays on screen while the model works. */
const READY = (s: string): boolean =>
  /Type your message/.test(s) && !/esc to cancel|Executing Hooks|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(s) && !/Allow execution/.test(s)

const note = (text: string) => {
  appendFileSync(hookLog, JSON.stringify({ event: '#step', ts: Date.now(), payload: { step: text } }) + '\n')
  console.log(`step: ${text}`)
}

const submit = async (pane: string, text: string) => {
  note(`submit ${JSON.stringify(text)}`)
  // Keys typed while the UI is still loading a resumed session are lost: type again until echoed.
  for (let i = 0; ; i++) {
    await tmux('send-keys', '-t', pane, '-l', text)
    try {
      await waitFor(`"${text}" echoed`, async () => ((await capture(pane)).includes(`> ${text}`) ? true : undefined), 5000)
      break
    } catch (err) {
      if (i >= 3) throw err
    }
  }
  await tmux('send-keys', '-t', pane, 'Enter')
}
const press = async (pane: string, key: string, why: string) => {
  note(`press ${key}: ${why}`)
  await tmux('send-keys', '-t', pane, key)
}

/** Waits until the hook log has been still for `ms` (only for what has no end marker: a killed pane). */
const settle = async (ms: number) => {
  let last = -1
  let since = Date.now()
  for (;;) {
    const n = hooks().length
    if (n !== last) [last, since] = [n, Date.now()]
    if (Date.now() - since > ms) return
    await sleep(200)
  }
}

const geminiCmd = (...args: string[]) => [process.execPath, GEMINI_JS, ...args]
/** Gemini CLI outlives its pane (and ignores SIGTERM): its pids are killed with their trees at the end. */
const pids: number[] = []
const newWindow = async (name: string, ...args: string[]): Promise<string> => {
  const [pane = '', pid] = (
    await tmux('new-window', '-d', '-t', 'cap:', '-n', name, '-c', project, '-P', '-F', '#{pane_id} #{pane_pid}', ...geminiCmd(...args))
  ).stdout
    .trim()
    .split(' ')
  if (Number(pid) > 0) pids.push(Number(pid))
  return pane
}

try {
  const started = await tmux('new-session', '-d', '-s', 'cap', '-x', '160', '-y', '45', '-c', project, 'sh')
  if (started.code !== 0) throw new Error('tmux new-session failed')
  await tmux('set-option', '-g', 'remain-on-exit', 'on')

  // Session A: a new session walks through every state.
  const a = await newWindow('a')
  note('start gemini (session A)')
  await waitScreen(a, READY)
  await waitHook('SessionStart', 1)
  await saveScreen(a, 'startup', 'fresh session at its prompt')

  await submit(a, 'PLAIN hello')
  await waitHook('AfterAgent', 1)
  await waitScreen(a, READY)
  await saveScreen(a, 'done', 'turn finished (AfterAgent), idle prompt')

  await submit(a, 'SLOW please')
  await waitScreen(a, /esc to cancel/)
  await waitScreen(a, /Step 2/)
  await saveScreen(a, 'working', 'model streaming (SLOW)')
  await press(a, 'Escape', 'cancel while streaming')
  await waitHook('AfterAgent', 2)
  await waitScreen(a, READY)
  await saveScreen(a, 'cancelled', 'after Esc while streaming')

  await submit(a, 'FAIL now')
  await waitHook('AfterAgent', 3)
  await waitScreen(a, READY)
  await saveScreen(a, 'api-error', 'after an API error (HTTP 400)')

  await submit(a, 'TOOL please')
  await waitScreen(a, /Allow execution of/)
  writeFileSync(join(root, 'chat-at-permission.jsonl'), '')
  await waitHook('Notification', 1)
  await saveScreen(a, 'permission-shell', 'permission dialog for a shell command (after Notification)')
  {
    const chats = readdirSync(join(home, '.gemini', 'tmp'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.jsonl'))
    const chat = chats.map((f) => join(home, '.gemini', 'tmp', f)).find((f) => /chats/.test(f))
    if (chat) writeFileSync(join(root, 'chat-at-permission.jsonl'), readFileSync(chat))
  }
  await press(a, 'Enter', 'approve (1. Allow once)')
  await waitHook('AfterAgent', 4)
  await waitScreen(a, READY)
  await saveScreen(a, 'after-approve', 'approved, tool ran, turn finished')

  await submit(a, 'TOOL again')
  await waitScreen(a, /Allow execution of/)
  await waitHook('Notification', 2)
  const beforeDeny = hooks().length
  await press(a, 'Escape', 'deny with Esc (3. No, suggest changes)')
  await waitScreen(a, READY)
  await sleep(1500) // a denial fires no hook (or a late one): give it time to show in the log
  console.log(`hooks after the Esc denial: ${hooks().length - beforeDeny - 1}`)
  await saveScreen(a, 'after-deny-esc', 'after denying with Esc')

  await submit(a, 'EDIT please')
  await waitScreen(a, /Allow|Apply this change|Overwrite|Confirm/)
  await waitHook('Notification', 3)
  await saveScreen(a, 'permission-edit', 'permission dialog for write_file')
  await press(a, 'Enter', 'approve the edit')
  await waitHook('AfterAgent', 5)
  await waitScreen(a, READY)

  await submit(a, 'QUESTION please')
  await waitHook('AfterAgent', 6)
  await waitScreen(a, READY)
  await saveScreen(a, 'question-text', 'a turn ending in a question (plain text)')

  await submit(a, '/clear')
  await waitHook('SessionStart', 2)
  await waitScreen(a, READY)
  await saveScreen(a, 'after-clear', 'after /clear')

  await submit(a, 'PLAIN after clear')
  await waitHook('AfterAgent', 7)
  await waitScreen(a, READY)

  const endsBefore = count('SessionEnd')
  await submit(a, '/quit')
  await waitFor('pane A dead', async () =>
    (await tmux('display-message', '-p', '-t', a, '#{pane_dead}')).stdout.trim() === '1' ? true : undefined,
  )
  await settle(3000)
  console.log(`SessionEnd after /quit: ${count('SessionEnd') - endsBefore}`)
  await saveScreen(a, 'after-quit', 'after /quit (pane dead, remain-on-exit)')

  // Session B: resume the latest session, one turn, then the pane is killed. The model events are hooked too.
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({ ...settings, hooks: hookEntries([...EVENTS, ...MODEL_EVENTS]) }, null, 2),
  )
  const b = await newWindow('b', '--resume', 'latest')
  note('start gemini --resume latest (session B)')
  const starts = count('SessionStart')
  await waitScreen(b, READY)
  await waitHook('SessionStart', starts + 1)
  await waitScreen(b, (s) => READY(s) && s.includes('PLAIN after clear'), 'the resumed history')
  await saveScreen(b, 'resumed', 'after --resume latest')
  await submit(b, 'PLAIN after resume')
  await waitHook('AfterAgent', 8)
  await waitScreen(b, READY)
  await submit(b, 'TOOL before kill')
  await waitScreen(b, /Allow execution of/)
  await waitHook('Notification', 4)
  note('kill-pane B with its permission dialog open')
  await tmux('kill-pane', '-t', b)
  await settle(4000)
  note('end')
} catch (err) {
  for (const line of (await tmux('list-panes', '-a', '-F', '#{pane_id}')).stdout.trim().split('\n'))
    console.error(`--- ${line}\n${await capture(line)}`)
  throw err
} finally {
  const tree = await processTree(pids)
  await tmux('kill-server')
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  await api.close()
}

// Copy the results, paths rewritten.
rmSync(join(OUT, 'chats'), { recursive: true, force: true })
mkdirSync(join(OUT, 'chats'), { recursive: true })
writeFileSync(join(OUT, 'hooks.jsonl'), rewrite(readFileSync(hookLog, 'utf8')))
writeFileSync(join(OUT, 'settings.json'), rewrite(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')))
writeFileSync(join(OUT, 'projects.json'), rewrite(readFileSync(join(home, '.gemini', 'projects.json'), 'utf8')))
writeFileSync(join(OUT, 'chat-at-permission.jsonl'), rewrite(readFileSync(join(root, 'chat-at-permission.jsonl'), 'utf8')))
const tree = readdirSync(join(home, '.gemini'), { recursive: true }).map(String).sort()
writeFileSync(join(OUT, 'gemini-home-tree.txt'), tree.join('\n') + '\n')
for (const f of tree.filter((f) => /chats\/.*\.jsonl$/.test(f))) {
  writeFileSync(join(OUT, 'chats', f.split('/').pop()!), rewrite(readFileSync(join(home, '.gemini', f), 'utf8')))
}
writeFileSync(join(OUT, 'mock-requests.jsonl'), rewrite(api.requests.map((r) => JSON.stringify(r)).join('\n') + '\n'))
cpSync(join(root, 'screens.log'), join(OUT, 'screens', 'index.tsv'))
if (process.env.KEEP !== '1') rmSync(root, { recursive: true, force: true })
else console.log(`kept ${root}`)
console.log(`wrote ${OUT}`)
