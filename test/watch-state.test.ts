// watch's reducer: one row per key and per answer, [state, input] → [state, effects]. The loop
// that reads keys and performs the effects is test/watch.test.ts's (a real tmux pane).
import t from 'tap'
import type { QueueItem } from '../lib/queue/derive.js'
import {
  DIGIT_WAIT_MS,
  initialWatchState,
  screenOf,
  splitKeys,
  stepWatch,
  type WatchEffect,
  type WatchInput,
  type WatchQueue,
  type WatchState,
} from '../lib/render/watch-state.js'
import { queueItem } from './helpers/queue-item.js'

const wait = (n: number, over: Partial<QueueItem> = {}): QueueItem => queueItem({ n, key: `key${n}`, sessionId: `s${n}`, ...over })
const w1 = wait(1)
const w2 = wait(2, { state: 'permission', kind: 'permission', needsYou: true })
const work = queueItem({ n: null, key: 'keywork', sessionId: 'swork', state: 'working', kind: null })
const Q: WatchQueue = { items: [w1, w2, work], queue: [w1, w2], tmuxAvailable: true }
const twelve = Array.from({ length: 12 }, (_, i) => wait(i + 1))
const Q12: WatchQueue = { items: twelve, queue: twelve, tmuxAvailable: true }
const EMPTY: WatchQueue = { items: [], queue: [], tmuxAvailable: false }

const S = (over: Partial<WatchState> = {}): WatchState => ({ ...initialWatchState(false, false), queue: Q, ...over })
const key = (k: string): WatchInput => ({ type: 'key', key: k })
const DRAW: WatchEffect = { type: 'draw', force: false }
const CLEAR: WatchEffect = { type: 'clear-digit-timer' }
const RESCAN: WatchEffect = { type: 'rescan' }
const QUIT: WatchEffect = { type: 'quit' }
const go = (item: QueueItem): WatchEffect => ({ type: 'go', item })

// [what, state before, input, what changes in the state, effects]
const rows: [string, Partial<WatchState>, WatchInput, Partial<WatchState>, WatchEffect[]][] = [
  ['q quits', {}, key('q'), {}, [QUIT]],
  ['Ctrl-C quits', {}, key('\u0003'), {}, [QUIT]],
  ['a lone Esc quits', {}, key('\u001b'), {}, [QUIT]],
  ['j moves down', {}, key('j'), { selected: 's2' }, [DRAW]],
  ['the down arrow moves down', {}, key('\u001b[B'), { selected: 's2' }, [DRAW]],
  ['j stops at the last row', { selected: 's2' }, key('j'), { selected: 's2' }, [DRAW]],
  ['j with --all moves on to a session that does not wait', { all: true, selected: 's2' }, key('j'), { selected: 'swork' }, [DRAW]],
  ['k moves up', { selected: 's2' }, key('k'), { selected: 's1' }, [DRAW]],
  ['the up arrow moves up', { selected: 's2' }, key('\u001b[A'), { selected: 's1' }, [DRAW]],
  ['k stops at the first row', {}, key('k'), { selected: 's1' }, [DRAW]],
  ['j with no rows selects nothing', { queue: EMPTY, selected: 's1' }, key('j'), { selected: null }, [DRAW]],
  ['a digit no second digit can follow goes at once', {}, key('2'), { busy: true }, [CLEAR, go(w2)]],
  ['a digit that names no wait says so', {}, key('3'), { message: 'no wait number 3' }, [CLEAR, DRAW]],
  ['a digit before the queue is read names no wait', { queue: null }, key('1'), { message: 'no wait number 1' }, [CLEAR, DRAW]],
  [
    'with 10 or more waits a first digit waits for a second',
    { queue: Q12 },
    key('1'),
    { digits: '1' },
    [{ type: 'digit-timer', ms: DIGIT_WAIT_MS }, DRAW],
  ],
  ['a second digit completes the number', { queue: Q12, digits: '1' }, key('2'), { digits: '', busy: true }, [CLEAR, go(twelve[11]!)]],
  [
    'a second digit past the count names no wait',
    { queue: Q12, digits: '1' },
    key('3'),
    { digits: '', message: 'no wait number 13' },
    [CLEAR, DRAW],
  ],
  ['a first digit that no second can follow goes at once', { queue: Q12 }, key('2'), { busy: true }, [CLEAR, go(twelve[1]!)]],
  [
    'the digit wait running out goes to the number typed',
    { queue: Q12, digits: '1' },
    { type: 'digit-timeout' },
    { digits: '', busy: true },
    [CLEAR, go(twelve[0]!)],
  ],
  ['Enter goes to the number typed so far', { queue: Q12, digits: '1' }, key('\r'), { digits: '', busy: true }, [CLEAR, go(twelve[0]!)]],
  ['Enter goes to the selected row', { selected: 's2' }, key('\r'), { busy: true }, [go(w2)]],
  ['a newline is Enter', {}, key('\n'), { busy: true }, [go(w1)]],
  ['Enter while a jump is under way does nothing', { busy: true }, key('\r'), {}, []],
  ['Enter with no rows does nothing', { queue: EMPTY }, key('\r'), {}, []],
  ['a number while a jump is under way is dropped', { busy: true }, key('1'), {}, [CLEAR]],
  ['y allows the selected wait', { selected: 's2' }, key('y'), { busy: true }, [{ type: 'answer', answer: 'allow', item: w2 }]],
  ['n denies the selected wait', {}, key('n'), { busy: true }, [{ type: 'answer', answer: 'deny', item: w1 }]],
  ['y while a jump is under way does nothing', { busy: true }, key('y'), {}, []],
  ['y with no rows does nothing', { queue: EMPTY }, key('y'), {}, []],
  ['s shows the details', {}, key('s'), { details: true }, [DRAW]],
  ['s again hides them', { details: true }, key('s'), { details: false }, [DRAW]],
  ['a marks the selected wait seen', { selected: 's2' }, key('a'), {}, [{ type: 'mark-seen', item: w2 }]],
  ['a on a session that does not wait only draws', { all: true, selected: 'swork' }, key('a'), {}, [DRAW]],
  ['a with no rows only draws', { queue: EMPTY }, key('a'), {}, [DRAW]],
  ['r rescans', {}, key('r'), {}, [RESCAN, DRAW]],
  ['any other key draws', {}, key('x'), {}, [DRAW]],
  ['a new queue is shown', { queue: null }, { type: 'queue', queue: Q12 }, { queue: Q12 }, [DRAW]],
  ['the tick redraws (ages move)', {}, { type: 'tick' }, {}, [DRAW]],
  ['a resize redraws in full', {}, { type: 'resize' }, {}, [{ type: 'draw', force: true }]],
  ['an error goes to the message line', {}, { type: 'error', message: 'trailboss: boom' }, { message: 'trailboss: boom' }, [DRAW]],
  [
    "go's last line is the news",
    { busy: true },
    { type: 'went', code: 0, said: 'trailboss: going to 1\nwent there\n\n' },
    { busy: false, message: 'went there' },
    [RESCAN, DRAW],
  ],
  [
    'a failed go says why',
    { busy: true, popup: true },
    { type: 'went', code: 1, said: 'trailboss: no pane\n' },
    { busy: false, message: 'trailboss: no pane' },
    [RESCAN, DRAW],
  ],
  [
    'go that said nothing clears the message',
    { busy: true, message: 'old' },
    { type: 'went', code: 0, said: '' },
    { busy: false, message: null },
    [RESCAN, DRAW],
  ],
  [
    'in a popup, a jump that worked closes the view',
    { busy: true, popup: true },
    { type: 'went', code: 0, said: 'went\n' },
    { busy: false },
    [QUIT],
  ],
  [
    "an answer's lines are the news, on one line",
    { busy: true },
    { type: 'answered', said: 'trailboss: allowed 2\nmore\n' },
    { busy: false, message: 'trailboss: allowed 2 · more' },
    [RESCAN, DRAW],
  ],
  [
    'an answer that said nothing clears the message',
    { busy: true, message: 'old' },
    { type: 'answered', said: '\n' },
    { busy: false, message: null },
    [RESCAN, DRAW],
  ],
  ['a seen mark written says which', {}, { type: 'marked', item: w2, ok: true }, { message: 'seen: 2' }, [RESCAN, DRAW]],
  [
    'a wait without a number is named by its key',
    {},
    { type: 'marked', item: { ...w2, n: null }, ok: true },
    { message: 'seen: key2' },
    [RESCAN, DRAW],
  ],
  [
    'a seen mark that could not be written says so',
    {},
    { type: 'marked', item: w2, ok: false },
    { message: 'could not mark it seen' },
    [RESCAN, DRAW],
  ],
]

t.test('stepWatch: [state, input] → [state, effects]', async (t) => {
  for (const [what, before, input, changes, effects] of rows) {
    const step = stepWatch(S(before), input)
    t.same(step, { state: S({ ...before, ...changes }), effects }, what)
  }
})

t.test('stepWatch never changes the state it was given', async (t) => {
  const before = S({ queue: Q12, digits: '1' })
  const copy = structuredClone(before)
  stepWatch(before, key('2'))
  t.same(before, copy)
})

t.test('splitKeys: an arrow is one key, another escape sequence none, the rest key by key', async (t) => {
  const cases: [string, string[]][] = [
    ['q', ['q']],
    ['12', ['1', '2']],
    ['\u001b', ['\u001b']],
    ['\u001b[A', ['\u001b[A']],
    ['\u001b[B', ['\u001b[B']],
    ['\u001b[C', []],
    ['\u001b[1;5A', []],
    ['\u001bq', []],
  ]
  for (const [text, keys] of cases) t.same(splitKeys(text), keys, JSON.stringify(text))
})

t.test("screenOf: the shown rows and the state, with the terminal's facts", async (t) => {
  const terminal = { now: 5, width: 90, height: 30, colour: true }
  t.same(screenOf(S({ selected: 's2', details: true, message: 'm', digits: '1' }), terminal), {
    ...terminal,
    items: [w1, w2],
    selected: 's2',
    details: true,
    message: 'm',
    tmuxAvailable: true,
    digits: '1',
    all: false,
    hosts: [],
  })
  t.same(screenOf(S({ all: true, queue: { ...Q, tmuxAvailable: false } }), terminal).items, [w1, w2, work], '--all: every session')
  t.same(screenOf(S({ all: true, queue: { ...Q, tmuxAvailable: false } }), terminal).tmuxAvailable, false)
  t.same(
    screenOf(S({ queue: null }), terminal),
    { ...terminal, items: [], selected: null, details: false, message: null, tmuxAvailable: true, digits: '', all: false, hosts: [] },
    'before the first read: no rows, tmux not said to be missing',
  )
})
