// Captures what a pinned Claude Code build does, state by state, for test/fixtures/: every hook
// payload (a logging hook on every event the build knows), the status-line command's stdin, the
// session registry files (~/.claude/sessions/<pid>.json) as they change, the transcript lines as
// they are written, and the pane in each state. Not a test: run it by hand when a build is pinned.
//
//   npx esbuild test/e2e/capture-claude-code.ts --bundle --platform=node --format=esm \
//     --packages=external --outfile=test/e2e/capture.bundle.mjs && node test/e2e/capture.bundle.mjs 2.1.332 auto OUTDIR
// (the bundle must sit in test/e2e/: the harness finds the pinned builds from its own path)
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, appendFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { BUILDS, capture, press, sleep, startClaude, startE2e, submit, waitFor, type E2e, type PermissionMode } from './harness.js'

/** Every hook event 2.1.332 accepts (from its settings schema); older builds ignore the extra keys. */
const EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PreModelSwitch',
  'PostModelSwitch',
  'PermissionRequest',
  'PermissionDenied',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'CwdChanged',
  'DirectoryAdded',
  'PreSkillShellCommand',
]

const HOOK_LOGGER = `
const fs = require('fs')
let data = ''
process.stdin.on('data', (c) => (data += c))
process.stdin.on('end', () => {
  let payload = null
  try { payload = JSON.parse(data) } catch { payload = data }
  let size = 'missing'
  try { size = fs.statSync(payload.transcript_path).size } catch {}
  const env = {}
  for (const k of Object.keys(process.env)) if (/^(TMUX|TMUX_PANE|CLAUDE_[A-Z_]*)$/.test(k)) env[k] = process.env[k]
  fs.appendFileSync(process.argv[2], JSON.stringify({ t: Date.now(), event: process.argv[3], env, transcriptSizeAtHook: size, payload }) + '\\n')
})
`
const STATUSLINE_LOGGER = `
const fs = require('fs')
let data = ''
process.stdin.on('data', (c) => (data += c))
process.stdin.on('end', () => {
  let stdin = null
  try { stdin = JSON.parse(data) } catch { stdin = data }
  const env = {}
  for (const k of Object.keys(process.env)) if (/^(TMUX|TMUX_PANE|CLAUDE_[A-Z_]*|COLUMNS|LINES|TERM)$/.test(k)) env[k] = process.env[k]
  fs.appendFileSync(process.argv[2], JSON.stringify({ t: Date.now(), env, stdin }) + '\\n')
  process.stdout.write('SL-PROBE')
})
`

const [version = '2.1.332', modeArg = 'auto', outArg = '/tmp/cc-capture'] = process.argv.slice(2)
const build = BUILDS.find((b) => b.version === version)
if (!build) throw new Error(`no pinned build ${version}`)
const mode = modeArg as PermissionMode
const out = join(outArg, `${version}-${mode}`)
mkdirSync(join(out, 'screens'), { recursive: true })

const e2e: E2e = await startE2e({ build, mode, noHooks: true })
const T0 = Date.now()
const rel = (t: number): number => t - T0
const hooksLog = join(out, 'events.jsonl')
const slLog = join(out, 'statusline-stdin.jsonl')
const regLog = join(out, 'registry.jsonl')
const trLog = join(out, 'transcript-lines.jsonl')
const timeline = join(out, 'timeline.log')
for (const f of [hooksLog, slLog, regLog, trLog, timeline]) writeFileSync(f, '')
const note = (what: string): void => {
  appendFileSync(timeline, `${rel(Date.now())} ${what}\n`)
  console.log(`${rel(Date.now())} ${what}`)
}

writeFileSync(join(e2e.root, 'hooklog.cjs'), HOOK_LOGGER)
writeFileSync(join(e2e.root, 'statusline.cjs'), STATUSLINE_LOGGER)
const hooks: Record<string, unknown> = {}
for (const ev of EVENTS)
  hooks[ev] = [
    { hooks: [{ type: 'command', command: `${process.execPath} ${join(e2e.root, 'hooklog.cjs')} ${hooksLog} ${ev}`, timeout: 5 }] },
  ]
writeFileSync(
  join(e2e.home, '.claude', 'settings.json'),
  JSON.stringify(
    {
      hooks,
      statusLine: { type: 'command', command: `${process.execPath} ${join(e2e.root, 'statusline.cjs')} ${slLog}`, refreshInterval: 1 },
    },
    null,
    2,
  ),
)

// Pollers: the registry files and the transcript, every 100 ms, each change with its time.
const registryDir = join(e2e.home, '.claude', 'sessions')
const seen = new Map<string, string>()
const offsets = new Map<string, number>()
let polling = true
const poll = (async () => {
  while (polling) {
    try {
      for (const name of existsSync(registryDir) ? readdirSync(registryDir) : []) {
        const text = readFileSync(join(registryDir, name), 'utf8')
        if (seen.get(name) !== text) {
          seen.set(name, text)
          let parsed: unknown = text
          try {
            parsed = JSON.parse(text)
          } catch {
            /* caught mid-write: logged as text */
          }
          appendFileSync(regLog, JSON.stringify({ t: Date.now(), file: name, content: parsed }) + '\n')
        }
      }
    } catch {
      // The folder changes under the poll (a file gone between list and read): the next poll sees it.
    }
    try {
      const projects = join(e2e.home, '.claude', 'projects')
      for (const dir of existsSync(projects) ? readdirSync(projects) : []) {
        for (const name of readdirSync(join(projects, dir)).filter((n) => n.endsWith('.jsonl'))) {
          const file = join(projects, dir, name)
          const size = statSync(file).size
          const from = offsets.get(file) ?? 0
          if (size <= from) continue
          const text = readFileSync(file, 'utf8').slice(0, size)
          const chunk = Buffer.from(text).subarray(from).toString('utf8')
          const end = chunk.lastIndexOf('\n')
          if (end < 0) continue
          for (const line of chunk.slice(0, end).split('\n').filter(Boolean))
            appendFileSync(trLog, JSON.stringify({ t: Date.now(), file: name, line: JSON.parse(line) }) + '\n')
          offsets.set(file, from + Buffer.byteLength(chunk.slice(0, end + 1)))
        }
      }
    } catch {
      // Likewise, and a line still being written is read whole on the next poll.
    }
    await sleep(100)
  }
})()

const shot = async (pane: string, name: string): Promise<void> => {
  writeFileSync(
    join(out, 'screens', `${name}.txt`),
    (await capture(e2e, pane))
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n'),
  )
  note(`screen ${name}`)
}
const hookSeen =
  (event: string, extra: (p: Record<string, unknown>) => boolean = () => true, after = 0) =>
  async (): Promise<true | undefined> => {
    const lines = readFileSync(hooksLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: number; event: string; payload: Record<string, unknown> })
    return lines.some((l) => l.t >= after && l.event === event && extra(l.payload)) ? true : undefined
  }

try {
  const a = await startClaude(e2e, 'main')
  note(`started ${a.pane} ${a.sessionId}`)
  const DIALOG = /Do you want to proceed\?|can't check actions in this session\s*$|Enter to stay in auto mode|Enter to select/m
  /** Waits for the idle prompt (footer back, no dialog), so each step starts from the same place. */
  const ready = async (): Promise<void> => {
    await waitFor(
      'the idle prompt',
      async () => {
        const s = await capture(e2e, a.pane)
        return /\? for shortcuts|⏵⏵ auto mode on|⏸ manual mode on|accept edits on|plan mode on/.test(s) &&
          !DIALOG.test(s) &&
          !/esc to interrupt/.test(s)
          ? true
          : undefined
      },
      30_000,
    ).catch(() => note('not at the idle prompt after 30 s'))
    await sleep(500)
  }
  const dialogShows = async (from: number, what: string): Promise<void> => {
    await waitFor(what, async () => (DIALOG.test(await capture(e2e, a.pane)) ? true : undefined), 20_000).catch(() => note(`no ${what}`))
    note(`${what} visible ${Date.now() - from} ms after the key`)
  }
  await sleep(2500)
  await shot(a.pane, '01-startup')

  let t = await submit(e2e, a.pane, 'hello there')
  await waitFor(
    'Stop',
    hookSeen('Stop', () => true, t),
    20_000,
  )
  await sleep(1500)
  await shot(a.pane, '02-after-stop')

  await ready()
  t = await submit(e2e, a.pane, 'PERM please')
  note('submitted PERM')
  await dialogShows(t, 'first dialog')
  await shot(a.pane, '03-dialog')
  await waitFor(
    'Notification',
    hookSeen('Notification', (p) => p.notification_type !== 'idle_prompt', t),
    20_000,
  ).catch(() => note('no Notification within 20 s'))
  note('Notification seen (or not)')
  await shot(a.pane, '04-dialog-after-notification')
  if (/Enter to stay in auto mode/.test(await capture(e2e, a.pane))) {
    t = await press(e2e, a.pane, 'Enter')
    note('pressed Enter: stay in auto mode')
    await sleep(1500)
    await shot(a.pane, '05-approval-dialog')
    await waitFor(
      'Notification 2',
      hookSeen('Notification', (p) => p.notification_type !== 'idle_prompt', t),
      20_000,
    ).catch(() => note('no 2nd Notification within 20 s'))
    note('second Notification seen (or not)')
  }
  // Approve: the choices are "No" (selected) then "Yes" on 2.1.332's approval after auto mode;
  // "1. Yes" first on the classic dialog.
  const screen = await capture(e2e, a.pane)
  t = /❯ No/.test(screen) ? (await press(e2e, a.pane, 'Down'), await press(e2e, a.pane, 'Enter')) : await press(e2e, a.pane, 'Enter')
  note('approved')
  await waitFor(
    'Stop after tool',
    hookSeen('Stop', () => true, t),
    20_000,
  ).catch(() => note('no Stop after the tool'))
  await sleep(1000)
  await shot(a.pane, '06-after-approve')

  await ready()
  t = await submit(e2e, a.pane, 'PERM again please')
  await dialogShows(t, 'second PERM dialog')
  await shot(a.pane, '07-dialog-again')
  await press(e2e, a.pane, 'Escape')
  note('pressed Esc on the dialog')
  await sleep(2000)
  await shot(a.pane, '08-after-esc-on-dialog')

  await ready()
  t = await submit(e2e, a.pane, 'ASK me')
  await dialogShows(t, 'ask dialog')
  await shot(a.pane, '09-askuserquestion')
  await press(e2e, a.pane, 'Enter')
  await waitFor(
    'Stop after ask',
    hookSeen('Stop', () => true, t),
    20_000,
  ).catch(() => note('no Stop after ask'))
  await sleep(1000)
  await shot(a.pane, '10-after-answer')

  await ready()
  t = await submit(e2e, a.pane, 'FAIL now')
  await waitFor(
    'StopFailure',
    hookSeen('StopFailure', () => true, t),
    30_000,
  ).catch(() => note('no StopFailure'))
  await sleep(1000)
  await shot(a.pane, '11-api-error')

  await ready()
  t = await submit(e2e, a.pane, 'SLOW please')
  await sleep(1500)
  await shot(a.pane, '12-working')
  await press(e2e, a.pane, 'Escape')
  await sleep(2000)
  await shot(a.pane, '13-after-esc-working')

  await ready()
  await submit(e2e, a.pane, 'hello again')
  await sleep(6000) // the idle notification (messageIdleNotifThresholdMs 3 s)
  await shot(a.pane, '14-idle')

  for (let i = 1; i <= 4; i++) {
    await press(e2e, a.pane, 'BTab')
    await sleep(1000)
    await shot(a.pane, `15-shift-tab-${i}`)
  }

  await ready()
  await submit(e2e, a.pane, '/exit')
  await sleep(3000)
} finally {
  polling = false
  await poll
  writeFileSync(join(out, 'mock-requests.jsonl'), e2e.api.requests.map((r) => JSON.stringify(r)).join('\n') + '\n')
  writeFileSync(join(out, 'root.txt'), `${e2e.root}\nT0=${T0}\n`)
  await e2e.close()
}
