// The mod under `claude plugin test`: the engine's own host loads plugin/ as Claude Code does,
// and the test answers what lies beneath it — the clock, the environment, and `trailboss ls
// --json` (at once, or pending until the queue differs from a digest) / `trailboss go` — from
// memory.
import type { On } from 'claude-code'
import { expect, mock, test, type Engine } from 'claude-code/testing'
import { AGE_MOVES_FOR_MS, ANSWER_SLACK_MS, MIN_WAIT_GAP_MS, QUIET_WAITS_BEFORE_READ, RETRY_MS } from '../hooks/queue'

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

const API: Wait = {
  key: 'aaaa1111',
  sessionId: 'aaaa1111-0000',
  kind: 'permission',
  since: '2026-12-01T09:56:00Z',
  project: 'api',
  ask: { tool: 'Bash', input: { command: 'npm run migrate' }, message: null },
}
const WEB: Wait = {
  key: 'bbbb2222',
  sessionId: 'bbbb2222-0000',
  kind: 'question',
  since: '2026-12-01T09:58:30Z',
  project: 'web',
  ask: { tool: null, input: null, message: 'Done.\nShould I also update the docs?' },
}
const SELF: Wait = {
  key: 'own-sess',
  sessionId: OWN,
  kind: 'done',
  since: '2026-12-01T09:50:00Z',
  project: 'here',
  ask: { tool: null, input: null, message: 'All done.' },
}

/** A short hash of a text (FNV-1a), as the CLI's digest is one of its document. */
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(16, '0')
}

type Out = { exitCode: number; stdout: string; stderr: string }

/** The world beneath the mod: the waits the CLI would list, and a `trailboss` that reads them. */
const world = (on: On, opts: { ls?: (argv: readonly string[]) => Out | undefined } = {}) => {
  const clock = mock.clock(on, { now: T0 })
  mock.env(on, { HOME: '/home/p', TRAILBOSS_HOME: '/tb' })
  /** The pending `ls --until-change` runs: their digest, and how to answer them. */
  const pending: { digest: string; answer: () => void; quiet: () => void }[] = []
  const w = {
    clock,
    waits: [] as Wait[],
    /** What the document holds beyond the waits the mod shows (a record's lastEventAt). */
    rev: 0,
    statuses: [] as (string | undefined)[],
    toasts: [] as string[],
    runs: [] as string[][],
    opened: [] as string[],
    /** The person was away: the one line of the return's digest the next `--return-digest` read takes. */
    away: null as string | null,
    /** The document `ls --json` prints now; with `--return-digest`, the return's digest once, outside the hash. */
    doc(argv: readonly string[] = []) {
      const content = { version: 2, queue: w.waits.map((x, i) => item(x, i + 1)), tmux: 'ok', skipped: [], rev: w.rev }
      const { rev: _rev, ...shown } = content
      const line = argv.includes('--return-digest') ? w.away : null
      if (line !== null) w.away = null
      const back = line === null ? {} : { returnDigest: { since: '2026-12-01T09:20:00.000Z', until: '2026-12-01T10:00:00.000Z', line } }
      return JSON.stringify({ ...shown, digest: hash(JSON.stringify(content)), ...back })
    },
    digest: () => (JSON.parse(w.doc()) as { digest: string }).digest,
    /** The sessions folder changed: each pending run whose digest is not the queue's answers. */
    changed() {
      for (const p of pending.splice(0)) {
        if (p.digest !== w.digest()) p.answer()
        else pending.push(p)
      }
    },
    /** The sessions that start or stop waiting rewrite their records. */
    setWaits(waits: Wait[]) {
      w.waits = waits
      w.changed()
    },
    /** The CLI's longest wait ran out: the pending runs answer with the queue unchanged, or nothing after `--read-at` (nothing was written). */
    timeUp() {
      for (const p of pending.splice(0)) p.quiet()
    },
    pendingCount: () => pending.length,
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
  on('process.run', (_$, e) => {
    w.runs.push([...e.argv])
    const reply = (out: Out) => ({ value: { ...out, isStdoutTruncated: false, isStderrTruncated: false } })
    const given = opts.ls?.(e.argv)
    if (given) return reply(given)
    const now = (): Out => ({ exitCode: 0, stdout: e.argv[1] === 'ls' ? w.doc(e.argv) : '', stderr: '' })
    const i = e.argv.indexOf('--until-change')
    const digest = e.argv[i + 1]
    if (i < 0 || digest === undefined || digest !== w.digest()) return reply(now())
    const quiet = e.argv.includes('--read-at') ? { exitCode: 0, stdout: '', stderr: '' } : undefined
    return new Promise((resolve) =>
      pending.push({ digest, answer: () => resolve(reply(now())), quiet: () => resolve(reply(quiet ?? now())) }),
    )
  })
  return w
}

const startSession = async ($: Engine) => {
  await $.session.start({ cwd: '/work/here', surface: 'terminal', isInteractive: true })
}

/** A prompt: the person's, typed in the composer, unless another origin is named. */
const typePrompt = async ($: Engine, text: string, kind: 'composer' | 'scheduled-trigger' | 'task-notification' = 'composer') => {
  await $.prompt.submit({ text, wait: false, origin: { kind } })
}

/** `/trailboss`, and its pane as the terminal draws it. */
const openQueuePane = async ($: Engine) => {
  await $.command.run({ command: 'trailboss', args: '', origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 160 } })
  return $.ui.mount({
    plugin: 'trailboss',
    surface: 'terminal',
    component: 'Pane',
    requestId: 'trailboss-queue',
    props: { title: 'Waits', isFocused: true, bodyColumns: 80, placement: 'dock', scroll: { offset: 0, bodyRows: 20 }, view: {} },
  })
}

/** A change reaches the entry: the pending run answers, and the next one is asked a gap later. */
const settleChange = async (w: ReturnType<typeof world>) => {
  await w.clock.settle()
  await w.clock.advance(MIN_WAIT_GAP_MS)
}

test('the status entry counts the other sessions that wait, never this one, with the oldest age', async ($, on) => {
  const w = world(on)
  w.setWaits([SELF, API, WEB])
  await startSession($)
  // Not used since it started: the age will not move on, so it is a floor.
  expect(w.status()).toBe('2 others wait · oldest 4m+')
  expect(w.runs[0]).toEqual(['trailboss', 'ls', '--json'])
  await w.clock.settle()
  // The wait is told when its queue was read: the moment the `ls` began.
  expect(w.runs[1]).toEqual(['trailboss', 'ls', '--json', '--until-change', w.digest(), '--read-at', String(T0)])
  expect(w.pendingCount()).toBe(1)
})

test('the entry is empty when only this session waits, and one other reads in the singular', async ($, on) => {
  const w = world(on)
  w.setWaits([SELF])
  await startSession($)
  expect(w.statuses).toEqual([])
  w.setWaits([SELF, WEB])
  await settleChange(w)
  expect(w.status()).toBe('1 other waits · oldest 1m+')
  w.setWaits([SELF])
  await settleChange(w)
  expect(w.status()).toBeUndefined()
  expect(w.pendingCount()).toBe(1)
})

test('a wait that begins later is toasted once; the waits there at start are not', async ($, on) => {
  const w = world(on)
  w.setWaits([WEB])
  await startSession($)
  expect(w.toasts).toEqual([])
  w.setWaits([WEB, API])
  await settleChange(w)
  expect(w.toasts).toEqual(['api waits: Bash: npm run migrate'])
  // The session's record is rewritten with the same wait (the document changed, the wait did not): no second toast.
  w.rev++
  w.changed()
  await settleChange(w)
  expect(w.lsCount()).toBe(4)
  expect(w.toasts).toEqual(['api waits: Bash: npm run migrate'])
  // The same session waiting again later is a new wait.
  w.setWaits([WEB, { ...API, since: '2026-12-01T10:00:03Z', kind: 'question', ask: { tool: null, input: null, message: 'Which schema?' } }])
  await settleChange(w)
  expect(w.toasts).toEqual(['api waits: Bash: npm run migrate', 'api waits: Which schema?'])
})

test('at rest one run stays pending: for half an hour nothing else is run or drawn', async ($, on) => {
  const w = world(on)
  await startSession($)
  await w.clock.settle()
  const calls = w.runs.length
  expect(w.pendingCount()).toBe(1)
  await w.clock.advance(30 * 60_000)
  expect(w.runs.length).toBe(calls)
  expect(w.statuses).toEqual([])
  // The CLI's longest wait runs out with nothing written: nothing drawn, the next run asked,
  // counting writes from a little before that answer.
  w.timeUp()
  await settleChange(w)
  expect(w.lsCount()).toBe(3)
  expect(w.runs[2]).toEqual([
    'trailboss',
    'ls',
    '--json',
    '--until-change',
    w.digest(),
    '--read-at',
    String(T0 + 30 * 60_000 - ANSWER_SLACK_MS),
  ])
  expect(w.pendingCount()).toBe(1)
  expect(w.statuses).toEqual([])
})

test('after an hour of waits in which nothing was written, the queue is read once anyway', async ($, on) => {
  const w = world(on)
  await startSession($)
  await w.clock.settle()
  for (let i = 0; i < QUIET_WAITS_BEFORE_READ; i++) {
    await w.clock.advance(9 * 60_000)
    w.timeUp()
    await settleChange(w)
  }
  const runs = w.runs.slice(1)
  expect(runs.slice(0, QUIET_WAITS_BEFORE_READ).every((r) => r.includes('--read-at'))).toBe(true)
  // A pane closed without a word to its record shows only on read.
  expect(runs[QUIET_WAITS_BEFORE_READ]).toEqual(['trailboss', 'ls', '--json'])
  expect(runs[QUIET_WAITS_BEFORE_READ + 1]?.slice(0, 6)).toEqual(['trailboss', 'ls', '--json', '--until-change', w.digest(), '--read-at'])
  expect(w.pendingCount()).toBe(1)
})

test('a wait that answers a change counts writes from when it began', async ($, on) => {
  const w = world(on)
  await startSession($)
  await w.clock.settle()
  await w.clock.advance(120_000)
  w.setWaits([WEB])
  await settleChange(w)
  expect(w.runs[2]?.slice(-2)).toEqual(['--read-at', String(T0)])
  w.rev++
  w.changed()
  await settleChange(w)
  // The second wait began two minutes in: writes from then on may not be in what it printed.
  expect(w.runs[3]?.slice(-2)).toEqual(['--read-at', String(T0 + 120_000)])
})

test('while this session is in use and others wait, the age moves by the minute without an `ls`; unused, it stays a floor', async ($, on) => {
  const w = world(on)
  on('turn.complete', (_$, e) => ({ text: e.answer }))
  w.setWaits([API])
  await startSession($)
  await w.clock.settle()
  // Not used since it started: no timer, and the age says "at least".
  expect(w.status()).toBe('1 other waits · oldest 4m+')
  await w.clock.advance(5 * 60_000)
  expect(w.statuses).toEqual(['1 other waits · oldest 4m+'])
  // A turn ends: the age moves by the minute for AGE_MOVES_FOR_MS, then stops as a floor.
  await $.turn.complete({ reason: 'answer', answer: 'ok', durationMs: 10, isAborted: false, turnId: 't1' })
  await w.clock.settle()
  expect(w.status()).toBe('1 other waits · oldest 9m')
  const runs = w.lsCount()
  await w.clock.advance(60_000)
  expect(w.status()).toBe('1 other waits · oldest 10m')
  await w.clock.advance(AGE_MOVES_FOR_MS)
  expect(w.lsCount()).toBe(runs)
  // Between two steps of the age, nothing is drawn again.
  expect(w.statuses).toEqual([
    '1 other waits · oldest 4m+',
    ...Array.from({ length: 10 }, (_, i) => `1 other waits · oldest ${i + 9}m`),
    '1 other waits · oldest 19m+',
  ])
  await w.clock.advance(3600_000)
  expect(w.statuses.length).toBe(12)
})

test("this session's turn ends refresh the queue (what only a check on read sees)", async ($, on) => {
  const w = world(on)
  on('turn.complete', (_$, e) => ({ text: e.answer }))
  await startSession($)
  expect(w.lsCount()).toBe(1)
  await w.clock.settle()
  w.waits = [API] // the folder did not move: a transcript told the CLI
  await $.turn.complete({ reason: 'answer', answer: 'ok', durationMs: 10, isAborted: false, turnId: 't1' })
  await w.clock.settle()
  expect(w.lsCount()).toBe(3)
  expect(w.status()).toBe('1 other waits · oldest 4m')
})

test('when trailboss cannot run, the entry says so instead of showing nothing, and a read retries later', async ($, on) => {
  const w = world(on, { ls: () => ({ exitCode: 127, stdout: '', stderr: 'sh: trailboss: not found' }) })
  await startSession($)
  expect(w.status()).toMatch(/^trailboss: `trailboss` is not on PATH/)
  await w.clock.settle()
  expect(w.lsCount()).toBe(1)
  await w.clock.advance(RETRY_MS)
  expect(w.runs).toEqual([
    ['trailboss', 'ls', '--json'],
    ['trailboss', 'ls', '--json'],
  ])
  expect(w.statuses.length).toBe(1)
})

test('output that is not the contract is refused, not guessed at; a CLI without the digest is named', async ($, on) => {
  let stdout = JSON.stringify({ version: 3, items: [] })
  const w = world(on, { ls: () => ({ exitCode: 0, stdout, stderr: '' }) })
  await startSession($)
  expect(w.status()).toBe("trailboss: `trailboss ls --json` is not version 2 of the queue's contract")
  stdout = JSON.stringify({ version: 2, queue: [], tmux: 'ok', skipped: [] })
  await w.clock.advance(RETRY_MS)
  expect(w.status()).toMatch(/^trailboss: `trailboss` is older than this plugin \(no digest\)/)
  stdout = JSON.stringify({ version: 1, queue: [], tmux: 'ok', skipped: [], digest: '3f9c0a1b2c3d4e5f' })
  await w.clock.advance(RETRY_MS)
  expect(w.status()).toMatch(/^trailboss: `trailboss` is older than this plugin \(ls --json version 1\)/)
  expect(w.runs.every((r) => !r.includes('--until-change'))).toBe(true)
})

test('/trailboss opens a pane with a row per wait; its button runs `trailboss go <key>`', async ($, on) => {
  const w = world(on)
  w.setWaits([SELF, API, WEB])
  await startSession($)
  const ui = await openQueuePane($)
  expect(w.opened).toEqual(['trailboss-queue'])
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
    ls: (argv) =>
      (argv[1] === 'go' ? { exitCode: 1, stdout: '', stderr: 'trailboss: pane %3 is gone — the next wait is 2' } : undefined) as never,
  })
  w.setWaits([API])
  await startSession($)
  const ui = await openQueuePane($)
  await ui.press({ key: 'go-aaaa1111' })
  expect(w.toasts).toContain('trailboss go: trailboss: pane %3 is gone — the next wait is 2')
  await ui.unmount()
})

test('an empty queue draws one line in the pane', async ($, on) => {
  world(on)
  await startSession($)
  const ui = await openQueuePane($)
  expect((await ui.find({ type: 'Text' }))?.text).toBe('Nobody else waits.')
  await ui.unmount()
})

test("text with terminal controls is drawn visible: in the toast, the pane's rows and a refused `go`", async ($, on) => {
  const raw = /[\u0000-\u001f\u007f-\u009f]/
  const osc = '\u001b]0;pwned\u0007\u009b2J'
  const HOSTILE: Wait = {
    ...API,
    key: 'cccc3333',
    sessionId: 'cccc3333-0000',
    project: `api${osc}`,
    ask: { tool: 'Bash', input: { command: `ls${osc}` }, message: null },
  }
  const w = world(on, {
    ls: (argv) => (argv[1] === 'go' ? { exitCode: 1, stdout: '', stderr: `trailboss: gone${osc}` } : undefined) as never,
  })
  w.setWaits([WEB])
  await startSession($)
  w.setWaits([WEB, HOSTILE])
  await settleChange(w)
  expect(w.toasts).toEqual(['api^[]0;pwned^G\\u009b2J waits: Bash: ls^[]0;pwned^G\\u009b2J'])
  const ui = await openQueuePane($)
  const texts = (await ui.findAll({ type: 'Text' })).map((x) => String(x.text))
  expect(texts).toContain('api^[]0;pwned^G\\u009b2J')
  expect(texts.filter((x) => raw.test(x))).toEqual([])
  await ui.press({ key: 'go-cccc3333' })
  expect(w.runs).toContainEqual(['trailboss', 'go', 'cccc3333'])
  expect(w.toasts.filter((x) => raw.test(x))).toEqual([])
  expect(w.toasts).toContain('trailboss go: trailboss: gone^[]0;pwned^G\\u009b2J')
  await ui.unmount()
})

const AWAY =
  'While you were away (40m): 1 wait (1 permission), 0 turns finished, 0 errors; oldest open: 1 api (claude-code, permission), 4m'

test("the person's prompt reads with --return-digest and toasts the return once; the pending run and a turn's end never ask", async ($, on) => {
  const w = world(on)
  on('prompt.submit', (_$, e) => ({ text: e.text }))
  on('turn.complete', (_$, e) => ({ text: e.answer }))
  w.setWaits([API])
  await startSession($)
  await w.clock.settle()
  w.away = AWAY
  // A turn's end is the agent's: it may come while the person is away.
  await $.turn.complete({ reason: 'answer', answer: 'ok', durationMs: 10, isAborted: false, turnId: 't1' })
  await w.clock.settle()
  await w.clock.advance(40 * 60_000)
  w.timeUp()
  await settleChange(w)
  // Nor is a prompt the person did not type: a scheduled trigger's, a background task's notice.
  await typePrompt($, 'nightly check', 'scheduled-trigger')
  await typePrompt($, 'task finished', 'task-notification')
  await w.clock.settle()
  expect(w.toasts).toEqual([])
  expect(w.runs.filter((r) => r.includes('--return-digest'))).toEqual([])
  // The person types: that read is theirs, and the queue it reads is the same one.
  await typePrompt($, 'next')
  await w.clock.settle()
  expect(w.runs.filter((r) => r.includes('--return-digest'))).toEqual([['trailboss', 'ls', '--json', '--return-digest']])
  expect(w.toasts).toEqual([AWAY])
  await typePrompt($, 'and then')
  await w.clock.settle()
  expect(w.runs.filter((r) => r.includes('--return-digest')).length).toBe(2)
  expect(w.toasts).toEqual([AWAY])
  expect(w.runs.filter((r) => r.includes('--until-change')).every((r) => !r.includes('--return-digest'))).toBe(true)
})

test('/trailboss is the person too: its read brings the return, drawn visible', async ($, on) => {
  const w = world(on)
  await startSession($)
  w.away = 'While you were away (1h): 1 error; oldest open: 2 api\u001b]0;pwned\u0007'
  const ui = await openQueuePane($)
  expect(w.toasts).toEqual(['While you were away (1h): 1 error; oldest open: 2 api^[]0;pwned^G'])
  await ui.unmount()
})

test('a CLI older than --return-digest is named', async ($, on) => {
  const w = world(on, {
    ls: (argv) =>
      (argv.includes('--return-digest') ? { exitCode: 2, stdout: '', stderr: 'Unknown argument: return-digest' } : undefined) as never,
  })
  on('prompt.submit', (_$, e) => ({ text: e.text }))
  await startSession($)
  await typePrompt($, 'hi')
  await w.clock.settle()
  expect(w.status()).toMatch(/^trailboss: `trailboss` is older than this plugin \(no --return-digest\)/)
})
