// The mod under `claude plugin test`: the engine's own host loads plugin/ as Claude Code does,
// and the test answers what lies beneath it — the clock, the environment, the sessions folder's
// stat and listing, and `trailboss ls --json` / `trailboss go` — from memory.
import type { On } from 'claude-code'
import { expect, mock, test, type Engine } from 'claude-code/testing'
import { POLL_MS } from '../hooks/queue'

const T0 = Date.parse('2026-12-01T10:00:00Z')
const OWN = 'own-session'

interface Wait {
  key: string
  sessionId: string
  kind: string
  since: string
  project: string
  ask: unknown
}

const item = (w: Wait, n: number) => ({
  n,
  key: w.key,
  sessionId: w.sessionId,
  agent: 'claude-code',
  state: w.kind === 'permission' ? 'permission' : 'waiting',
  kind: w.kind,
  since: w.since,
  cwd: `/work/${w.project}`,
  project: w.project,
  host: 'h',
  headless: false,
  tmux: { pane: `%${n}`, socket: '/tmp/tmux-1/default', alive: true },
  inferred: false,
  reason: null,
  ask: w.ask,
  lastEventAt: w.since,
})

const API: Wait = { key: 'aaaa1111', sessionId: 'aaaa1111-0000', kind: 'permission', since: '2026-12-01T09:56:00Z', project: 'api', ask: { tool: 'Bash', input: { command: 'npm run migrate' }, message: null } }
const WEB: Wait = { key: 'bbbb2222', sessionId: 'bbbb2222-0000', kind: 'question', since: '2026-12-01T09:58:30Z', project: 'web', ask: { tool: null, input: null, message: 'Done.\nShould I also update the docs?' } }
const SELF: Wait = { key: 'own-sess', sessionId: OWN, kind: 'done', since: '2026-12-01T09:50:00Z', project: 'here', ask: { tool: null, input: null, message: 'All done.' } }

/** The world beneath the mod: a sessions folder whose files the test sets, and a `trailboss` that reads them. */
const world = (on: On, opts: { ls?: (argv: readonly string[]) => { exitCode: number; stdout: string; stderr: string } } = {}) => {
  const clock = mock.clock(on, { now: T0 })
  mock.env(on, { HOME: '/home/p', TRAILBOSS_HOME: '/tb' })
  const w = {
    clock,
    waits: [] as Wait[],
    /** File name → mtime; the folder's mtime moves with every change, as a rename makes it. */
    files: new Map<string, number>(),
    dirMtime: 1,
    statuses: [] as (string | undefined)[],
    toasts: [] as string[],
    runs: [] as string[][],
    opened: [] as string[],
    statted: [] as string[],
    write(name: string) {
      w.dirMtime++
      w.files.set(name, w.dirMtime)
    },
    /** The sessions that start or stop waiting rewrite their records. */
    setWaits(waits: Wait[]) {
      for (const x of [...w.waits, ...waits]) w.write(`${x.sessionId}.json`)
      w.waits = waits
    },
    lsCount: () => w.runs.filter((r) => r[1] === 'ls').length,
    status: () => w.statuses[w.statuses.length - 1],
  }
  on('session.start', (_$, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: OWN }))
  on('command.register', (_$, e) => ({ value: { name: e.name } as never }))
  on('ui.status', (_$, e) => {
    w.statuses.push(e.text)
    return { value: undefined }
  })
  on('ui.toast', (_$, e) => {
    w.toasts.push(e.text)
    return { value: undefined }
  })
  on('ui.open', (_$, e) => {
    w.opened.push(e.id)
    return { value: { isPlaced: true } as const }
  })
  on('fs.stat', (_$, e) => {
    w.statted.push(e.path)
    return { value: { kind: 'dir' as const, size: 0, mtimeMs: w.dirMtime, isLink: false } }
  })
  on('fs.list', () => ({ value: [...w.files].map(([name, mtimeMs]) => ({ name, kind: 'file' as const, size: 100, mtimeMs, isLink: false })) }))
  on('process.run', (_$, e) => {
    w.runs.push([...e.argv])
    const out = opts.ls?.(e.argv) ?? { exitCode: 0, stdout: e.argv[1] === 'ls' ? JSON.stringify({ version: 1, queue: w.waits.map(item), tmux: 'ok', skipped: [] }) : '', stderr: '' }
    return { value: { ...out, isStdoutTruncated: false, isStderrTruncated: false } }
  })
  return w
}

const startSession = async ($: Engine) => {
  await $.session.start({ cwd: '/work/here', surface: 'terminal', isInteractive: true })
}

test('the status entry counts the other sessions that wait, never this one, with the oldest age', async ($, on) => {
  const w = world(on)
  w.setWaits([SELF, API, WEB])
  await startSession($)
  expect(w.status()).toBe('2 others wait · oldest 4m')
  expect(w.statted).toContain('/tb/sessions')
  expect(w.runs[0]).toEqual(['trailboss', 'ls', '--json'])
})

test('the entry is empty when only this session waits, and one other reads in the singular', async ($, on) => {
  const w = world(on)
  w.setWaits([SELF])
  await startSession($)
  expect(w.statuses).toEqual([])
  w.setWaits([SELF, WEB])
  await w.clock.advance(POLL_MS)
  expect(w.status()).toBe('1 other waits · oldest 1m')
  w.setWaits([SELF])
  await w.clock.advance(POLL_MS)
  expect(w.status()).toBeUndefined()
})

test('a wait that begins later is toasted once; the waits there at start are not', async ($, on) => {
  const w = world(on)
  w.setWaits([WEB])
  await startSession($)
  expect(w.toasts).toEqual([])
  w.setWaits([WEB, API])
  await w.clock.advance(POLL_MS)
  expect(w.toasts).toEqual(['api waits: Bash: npm run migrate'])
  // The folder moves again (the session's record is rewritten) with the same wait: no second toast.
  w.write(`${API.sessionId}.json`)
  await w.clock.advance(POLL_MS)
  await w.clock.advance(POLL_MS)
  expect(w.lsCount()).toBe(3)
  expect(w.toasts).toEqual(['api waits: Bash: npm run migrate'])
  // The same session waiting again later is a new wait.
  w.setWaits([WEB, { ...API, since: '2026-12-01T10:00:03Z', kind: 'question', ask: { tool: null, input: null, message: 'Which schema?' } }])
  await w.clock.advance(POLL_MS)
  expect(w.toasts).toEqual(['api waits: Bash: npm run migrate', 'api waits: Which schema?'])
})

test('nothing changed, nothing run: `ls` only when another session\'s file moved', async ($, on) => {
  const w = world(on)
  w.setWaits([API])
  await startSession($)
  expect(w.lsCount()).toBe(1)
  for (let i = 0; i < 10; i++) await w.clock.advance(POLL_MS)
  expect(w.lsCount()).toBe(1)
  // This session's own record moves on every one of its events: no `ls` for that either.
  w.write(`${OWN}.json`)
  await w.clock.advance(POLL_MS)
  expect(w.lsCount()).toBe(1)
  w.write(`${API.sessionId}.json`)
  await w.clock.advance(POLL_MS)
  expect(w.lsCount()).toBe(2)
  // The age moves on without an `ls`.
  await w.clock.advance(60_000)
  expect(w.status()).toBe('1 other waits · oldest 5m')
  expect(w.lsCount()).toBe(2)
})

test('this session\'s turn ends refresh the queue (what only a check on read sees)', async ($, on) => {
  const w = world(on)
  on('turn.complete', (_$, e) => ({ text: e.answer }))
  await startSession($)
  expect(w.lsCount()).toBe(1)
  w.waits = [API] // the folder did not move: a transcript told the CLI
  await $.turn.complete({ reason: 'answer', answer: 'ok', durationMs: 10, isAborted: false, turnId: 't1' })
  await w.clock.settle()
  expect(w.lsCount()).toBe(2)
  expect(w.status()).toBe('1 other waits · oldest 4m')
})

test('when trailboss cannot run, the entry says so instead of showing nothing', async ($, on) => {
  const w = world(on, { ls: () => ({ exitCode: 127, stdout: '', stderr: 'sh: trailboss: not found' }) })
  await startSession($)
  expect(w.status()).toMatch(/^trailboss: `trailboss` is not on PATH/)
})

test('output that is not the contract is refused, not guessed at', async ($, on) => {
  const w = world(on, { ls: () => ({ exitCode: 0, stdout: JSON.stringify({ version: 2, items: [] }), stderr: '' }) })
  await startSession($)
  expect(w.status()).toBe("trailboss: `trailboss ls --json` is not version 1 of the queue's contract")
})

test('/trailboss opens a pane with a row per wait; its button runs `trailboss go <key>`', async ($, on) => {
  const w = world(on)
  w.setWaits([SELF, API, WEB])
  await startSession($)
  await $.command.run({ command: 'trailboss', args: '', origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 160 } })
  expect(w.opened).toEqual(['trailboss-queue'])
  const ui = await $.ui.mount({
    plugin: 'trailboss',
    surface: 'terminal',
    component: 'Pane',
    requestId: 'trailboss-queue',
    props: { title: 'Waits', isFocused: true, bodyColumns: 80, placement: 'dock', scroll: { offset: 0, bodyRows: 20 }, view: {} },
  })
  const rows = await ui.findAll({ type: 'Button' })
  expect(rows.map((r) => r.key)).toEqual(['go-aaaa1111', 'go-bbbb2222'])
  expect((await ui.find({ type: 'Text', text: 'Bash: npm run migrate' }))?.text).toBe('Bash: npm run migrate')
  expect(await ui.find({ type: 'Text', text: '4m' })).toBeDefined()
  expect(await ui.find({ type: 'Text', text: 'Should I also update the docs?' })).toBeDefined()
  expect(await ui.find({ text: /All done/ })).toBeUndefined()
  await ui.press({ key: 'go-bbbb2222' })
  expect(w.runs).toContainEqual(['trailboss', 'go', 'bbbb2222'])
  await ui.unmount()
})

test('a refused `go` says why in a toast', async ($, on) => {
  const w = world(on, {
    ls: (argv) => (argv[1] === 'go' ? { exitCode: 1, stdout: '', stderr: 'trailboss: pane %3 is gone — the next wait is 2' } : undefined) as never,
  })
  w.setWaits([API])
  await startSession($)
  await $.command.run({ command: 'trailboss', args: '', origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 160 } })
  const ui = await $.ui.mount({
    plugin: 'trailboss',
    surface: 'terminal',
    component: 'Pane',
    requestId: 'trailboss-queue',
    props: { title: 'Waits', isFocused: true, bodyColumns: 80, placement: 'dock', scroll: { offset: 0, bodyRows: 20 }, view: {} },
  })
  await ui.press({ key: 'go-aaaa1111' })
  expect(w.toasts).toContain('trailboss go: trailboss: pane %3 is gone — the next wait is 2')
  await ui.unmount()
})

test('an empty queue draws one line in the pane', async ($, on) => {
  world(on)
  await startSession($)
  await $.command.run({ command: 'trailboss', args: '', origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 160 } })
  const ui = await $.ui.mount({
    plugin: 'trailboss',
    surface: 'terminal',
    component: 'Pane',
    requestId: 'trailboss-queue',
    props: { title: 'Waits', isFocused: true, bodyColumns: 80, placement: 'dock', scroll: { offset: 0, bodyRows: 20 }, view: {} },
  })
  expect((await ui.find({ type: 'Text' }))?.text).toBe('Nobody else waits.')
  await ui.unmount()
})
