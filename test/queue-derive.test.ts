import t from 'tap'
import { applyEvent } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import {
  applyTranscript,
  deriveKeys,
  deriveNeedsYou,
  deriveQueue,
  deriveSeen,
  SCREEN_CHECK_AFTER_MS,
  wantsScreenCheck,
  type QueueFacts,
  type ServerPanes,
} from '../lib/queue/derive.js'
import type { ScreenVerdict, TranscriptVerdict } from '../lib/agents/types.js'
import type { Pane } from '../lib/tmux/panes.js'
import { hookEvent } from './helpers/hook-event.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

const SOCK = '/tmp/tb-test/s'
const ev = (sessionId: string, name: string, stamp: number, extra: Partial<HookEvent> = {}): HookEvent =>
  hookEvent({ stamp, name, sessionId, promptId: 'p1', offset: 0, tmux: { pane: '%1', socket: SOCK, serverPid: 100 }, ...extra })

/** A record made by folding events, as the emitter would. */
const rec = (sessionId: string, ...events: [string, number, Partial<HookEvent>?][]): SessionRecord => {
  let r: SessionRecord | null = null
  for (const [name, stamp, extra] of events) r = applyEvent(r, ev(sessionId, name, stamp, extra), hooksFor)
  if (!r) throw new Error('no events')
  return r
}

const pane = (id: string, currentCommand = 'claude', extra: Partial<Pane> = {}): Pane => ({
  paneId: id,
  sessionId: '$0',
  sessionName: 's',
  windowId: '@0',
  windowIndex: 0,
  windowName: 'w',
  paneIndex: 0,
  panePid: 1,
  currentCommand,
  dead: false,
  active: true,
  width: 80,
  height: 24,
  serverPid: 100,
  inFront: false,
  sessionAttached: false,
  sessionActivity: 0,
  ...extra,
})

const facts = (
  f: { panes?: Pane[]; server?: ServerPanes; transcripts?: [string, TranscriptVerdict][]; screens?: [string, ScreenVerdict][] } = {},
): QueueFacts => ({
  transcripts: new Map(f.transcripts ?? []),
  servers: new Map([
    [
      SOCK,
      f.server ?? {
        status: 'ok',
        serverPid: 100,
        panes: new Map((f.panes ?? [pane('%1'), pane('%2'), pane('%3')]).map((p) => [p.paneId, p])),
      },
    ],
  ]),
  screens: new Map(f.screens ?? []),
})

t.test('deriveKeys: shortest unique prefix, at least 8', async (t) => {
  const keys = deriveKeys(['abcdefgh1234', 'abcdefgh5678', 'zzzzzzzzzzzz', 'short'])
  t.equal(keys.get('abcdefgh1234'), 'abcdefgh1')
  t.equal(keys.get('abcdefgh5678'), 'abcdefgh5')
  t.equal(keys.get('zzzzzzzzzzzz'), 'zzzzzzzz')
  t.equal(keys.get('short'), 'short')
  const some = deriveKeys(['abcdefgh1234', 'abcdefgh5678', 'zzzzzzzzzzzz', 'short'], 8, new Set(['abcdefgh5678']))
  t.same([...some], [['abcdefgh5678', 'abcdefgh5']], 'only the wanted ids get keys, unique among all')
})

t.test('the queue: waits only, oldest first, unnumbered by the derivation', async (t) => {
  const records = [
    rec('late', ['Stop', 30, { tmux: { pane: '%1', socket: SOCK, serverPid: 100 } }]),
    rec('early', [
      'PermissionRequest',
      10,
      { tool: { name: 'Bash', input: { command: 'ls' }, useId: null }, tmux: { pane: '%2', socket: SOCK, serverPid: 100 } },
    ]),
    rec('busy', ['UserPromptSubmit', 5, { tmux: { pane: '%3', socket: SOCK, serverPid: 100 } }]),
  ]
  const items = deriveQueue(records, facts())
  t.same(
    items.map((i) => [i.sessionId, i.n, i.state, i.kind]),
    [
      ['early', null, 'permission', 'permission'],
      ['late', null, 'waiting', 'done'],
      ['busy', null, 'working', null],
    ],
    'numbers are not positions: loadQueue gives them from the book (test/numbers.test.ts)',
  )
  t.same(items[0]?.ask, { tool: 'Bash', input: { command: 'ls' }, message: null })
  t.equal(items[0]?.tmux?.alive, true)
})

t.test('panes: gone, unknown, owners, shells, restarted servers', async (t) => {
  const at = (p: string) => ({ tmux: { pane: p, socket: SOCK, serverPid: 100 } })
  const cases: [string, SessionRecord[], QueueFacts, string, string | null, boolean | null][] = [
    ['pane missing', [rec('a', ['Stop', 1, at('%9')])], facts(), 'gone', null, false],
    ['server gone', [rec('a', ['Stop', 1, at('%1')])], facts({ server: { status: 'no-server' } }), 'gone', null, false],
    ['tmux unknown', [rec('a', ['Stop', 1, at('%1')])], facts({ server: { status: 'unknown' } }), 'waiting', 'done', null],
    ['back at a shell', [rec('a', ['Stop', 1, at('%1')])], facts({ panes: [pane('%1', 'zsh')] }), 'gone', null, false],
    ['login shell', [rec('a', ['Stop', 1, at('%1')])], facts({ panes: [pane('%1', '-bash')] }), 'gone', null, false],
    [
      'server restarted',
      [rec('a', ['Stop', 1, at('%1')])],
      facts({ server: { status: 'ok', serverPid: 999, panes: new Map([['%1', pane('%1')]]) } }),
      'gone',
      null,
      false,
    ],
    ['dead pane', [rec('a', ['Stop', 1, at('%1')])], facts({ panes: [pane('%1', 'claude', { dead: true })] }), 'gone', null, false],
  ]
  for (const [name, records, f, state, kind, alive] of cases) {
    const [item] = deriveQueue(records, f)
    t.same([item?.state, item?.kind, item?.tmux?.alive], [state, kind, alive], name)
  }
  const items = deriveQueue([rec('old', ['Stop', 1, at('%1')]), rec('new', ['SessionStart', 2, { source: 'clear', ...at('%1') }])], facts())
  t.same(
    items.map((i) => [i.sessionId, i.state]),
    [
      ['new', 'idle'],
      ['old', 'gone'],
    ],
    'after /clear only the newest session owns the pane',
  )
  const shell = deriveQueue([rec('a', ['Stop', 1, at('%1')])], facts({ panes: [pane('%1', 'bash')] }))
  t.equal(shell[0]?.inferred, true, 'a shell in the pane is an inference')
  t.same(shell[0]?.tmux?.place, { session: 's', window: 0, windowName: 'w' }, 'a pane back at its shell lives on: where it is stays known')
  t.equal(deriveQueue([rec('a', ['Stop', 1, at('%9')])], facts())[0]?.tmux?.place, null, 'a gone pane has no place')
  const ended = deriveQueue([rec('a', ['SessionEnd', 1, at('%9')])], facts())
  t.equal(ended[0]?.state, 'ended', 'an ended session stays ended, not gone')
  const headless = deriveQueue([rec('h', ['Stop', 1, { headless: true }])], facts())
  t.same([headless[0]?.state, headless[0]?.n, headless[0]?.tmux], ['waiting', null, null], 'headless: never queued, no pane')
})

t.test('transcript verdicts change the state', async (t) => {
  const waiting = rec('a', ['Stop', 10])
  const permission = rec('b', ['PermissionRequest', 10, { tool: { name: 'Bash', input: {}, useId: 'tu' } }])
  const working = rec('c', ['UserPromptSubmit', 10])
  const moved: TranscriptVerdict = { verdict: 'moved-on', at: 50, why: 'new-prompt' }
  const answered: TranscriptVerdict = { verdict: 'moved-on', at: 50, why: 'tool-answered' }
  const interrupted: TranscriptVerdict = { verdict: 'interrupted', at: 60 }
  t.same(pick(applyTranscript(waiting, moved)), ['working', null, 50])
  t.same(pick(applyTranscript(permission, answered)), ['working', null, 50])
  t.same(pick(applyTranscript(permission, interrupted)), ['waiting', 'interrupted', 60])
  t.same(pick(applyTranscript(working, interrupted)), ['waiting', 'interrupted', 60])
  t.same(pick(applyTranscript(working, moved)), ['working', null, 10])
  t.same(pick(applyTranscript(waiting, undefined)), ['waiting', 'done', 10])
  const ended = rec('d', ['SessionEnd', 10])
  t.same(pick(applyTranscript(ended, interrupted)), ['ended', null, 10])
  const [denied] = deriveQueue([permission], { ...facts({ panes: [pane('%1')] }), transcripts: new Map([['b', interrupted]]) })
  t.same(denied?.ask.tool, 'Bash', 'a denied dialog still names its tool')
  // A failed turn that a hook ended as done (Gemini CLI's AfterAgent), or that no hook ended.
  const failed: TranscriptVerdict = { verdict: 'error', at: 8, message: '[API Error: quota]' }
  t.same(pick(applyTranscript(waiting, failed)), ['waiting', 'error', 8])
  t.same(pick(applyTranscript(working, failed)), ['waiting', 'error', 8])
  t.same(pick(applyTranscript(ended, failed)), ['ended', null, 10])
  const [error] = deriveQueue([waiting], { ...facts({ panes: [pane('%1')] }), transcripts: new Map([['a', failed]]) })
  t.same([error?.kind, error?.ask.message, error?.reason], ['error', '[API Error: quota]', 'transcript: the turn failed'])
})

const pick = (d: { state: string; kind: string | null; since: number }) => [d.state, d.kind, d.since]

t.test('screen verdicts, marked inferred', async (t) => {
  const working = rec('w', ['UserPromptSubmit', 10])
  const permission = rec(
    'p',
    ['PreToolUse', 5, { tool: { name: 'Bash', input: {}, useId: 'x' } }],
    ['PermissionRequest', 10, { tool: { name: 'Bash', input: {}, useId: null } }],
  )
  const cases: [SessionRecord, ScreenVerdict, string, string | null, boolean][] = [
    [working, 'interrupted', 'waiting', 'interrupted', true],
    [working, 'idle', 'waiting', 'done', true],
    [working, 'working', 'working', null, false],
    [working, 'unknown', 'working', null, false],
    [permission, 'working', 'working', null, true],
    [permission, 'permission', 'permission', 'permission', false],
  ]
  for (const [r, screen, state, kind, inferred] of cases) {
    const [item] = deriveQueue([r], facts({ screens: [[r.sessionId, screen]] }))
    t.same([item?.state, item?.kind, item?.inferred], [state, kind, inferred], `${r.state} + screen ${screen}`)
    if (inferred && state === 'waiting') t.equal(item?.since, r.lastEventAt, 'the wait dates from the last event')
  }
  t.equal(wantsScreenCheck(working, 'working', 10 + SCREEN_CHECK_AFTER_MS), true)
  t.equal(wantsScreenCheck(working, 'working', 10 + SCREEN_CHECK_AFTER_MS - 1), false, 'not before the threshold')
  t.equal(wantsScreenCheck(working, 'waiting', 10 + SCREEN_CHECK_AFTER_MS), false, 'not for waits')
  const background = rec('bg', ['Stop', 10, { backgroundTasks: 2 }])
  t.equal(background.state, 'working')
  t.equal(wantsScreenCheck(background, 'working', 10 + SCREEN_CHECK_AFTER_MS), false, 'not while background tasks run')
})

t.test('needs you before finished: a finished turn comes after every wait that needs you', async (t) => {
  const at = (p: string) => ({ tmux: { pane: p, socket: SOCK, serverPid: 100 } })
  const items = deriveQueue(
    [
      rec('done-old', ['Stop', 1, at('%1')]),
      rec('asks', ['PermissionRequest', 20, { tool: { name: 'Bash', input: { command: 'ls' }, useId: null }, ...at('%2') }]),
      rec('done-new', ['Stop', 30, at('%3')]),
      rec('asks-later', ['PermissionRequest', 40, { tool: { name: 'Bash', input: { command: 'make' }, useId: null }, ...at('%4') }]),
    ],
    facts({ panes: [pane('%1'), pane('%2'), pane('%3'), pane('%4')] }),
  )
  t.same(
    items.map((i) => [i.sessionId, i.needsYou]),
    [
      ['asks', true],
      ['asks-later', true],
      ['done-old', false],
      ['done-new', false],
    ],
  )
})

t.test('deriveNeedsYou: every wait kind but done; done with a refused tool too', async (t) => {
  t.ok(deriveNeedsYou('permission', 'permission', {}))
  t.ok(deriveNeedsYou('permission', 'question', {}))
  t.ok(deriveNeedsYou('waiting', 'question', {}))
  t.ok(deriveNeedsYou('waiting', 'error', {}))
  t.ok(deriveNeedsYou('waiting', 'interrupted', {}))
  t.notOk(deriveNeedsYou('waiting', 'done', {}))
  t.notOk(deriveNeedsYou('waiting', 'done', { denied: null }))
  t.ok(
    deriveNeedsYou('waiting', 'done', { denied: { tool: 'Bash', reason: 'auto mode', at: 1 } }),
    'the turn ended without a tool it wanted',
  )
  t.notOk(deriveNeedsYou('working', null, {}))
  t.notOk(deriveNeedsYou('gone', null, {}))
})

t.test('seen: a seen wait is marked; a later wait of the session is unseen', async (t) => {
  t.ok(deriveSeen(10, 10))
  t.ok(deriveSeen(12, 10), 'seen when the mark is of this wait or later (its since moved earlier once)')
  t.notOk(deriveSeen(10, 11), 'a new wait began after the one seen')
  t.notOk(deriveSeen(undefined, 10))
  const at = (p: string) => ({ tmux: { pane: p, socket: SOCK, serverPid: 100 } })
  const records = [
    rec('a', ['Stop', 10, { last_assistant_message: 'Shall I?', message: 'Shall I?', ...at('%1') } as Partial<HookEvent>]),
    rec('b', ['Stop', 20, at('%2')]),
  ]
  const seenFacts = { ...facts(), seen: new Map([['a', 10]]) }
  const items = deriveQueue(records, seenFacts)
  t.same(
    items.map((i) => [i.sessionId, i.seen]),
    [
      ['a', true],
      ['b', false],
    ],
  )
  const later = deriveQueue([rec('a', ['Stop', 50, at('%1')]), records[1] as SessionRecord], seenFacts)
  t.same(
    later.map((i) => [i.sessionId, i.seen]),
    [
      ['b', false],
      ['a', false],
    ],
    'waits again after the mark: unseen',
  )
  const busy = deriveQueue([rec('a', ['UserPromptSubmit', 50, at('%1')])], seenFacts)
  t.equal(busy[0]?.seen, false, 'only a wait is ever seen')
})
