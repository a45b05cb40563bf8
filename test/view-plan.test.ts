// The view's pure planner (lib/view/plan.ts): from what tmux holds and what the queue wants, the
// commands between them. Checked against a small model of tmux that refuses what tmux refuses
// (a window at a taken index, unlinking a window's last link), over generated views and queues.
import fc from 'fast-check'
import t from 'tap'
import {
  deriveViewNow,
  deriveWant,
  formatFirstWindow,
  parseViewPanes,
  planCreate,
  planOff,
  planRescue,
  planView,
  textDigest,
  VIEW_PANE_FORMAT,
  VIEW_VERSION,
  type ViewNow,
  type ViewWant,
} from '../lib/view/plan.js'
import { FIELD_SEP } from '../lib/tmux/panes.js'
import { queueItem } from './helpers/queue-item.js'

const V = '=trailboss-view:'

/** A model of the view session: applies the planner's commands, or throws where tmux would fail. */
const apply = (now: ViewNow, cmds: readonly string[][]): ViewNow => {
  const windows = new Map(now.windows.map((w) => [w.index, { ...w }]))
  let { rescueExists, listDigest } = now
  const windowOf = (pane: string): string => now.paneWindow.get(pane) ?? `@${pane.slice(1)}`
  const index = (target: string): number => {
    if (!target.startsWith(V)) throw new Error(`not a view target: ${target}`)
    return Number(target.slice(V.length))
  }
  const relink = (id: string, by: number): void => {
    for (const w of windows.values()) if (w.windowId === id) w.linkedSessions += by
  }
  for (const c of cmds) {
    const [verb] = c
    const arg = (flag: string): string => c[c.indexOf(flag) + 1] ?? ''
    if (verb === 'unlink-window') {
      const i = index(arg('-t'))
      const w = windows.get(i)
      if (!w) throw new Error(`no window ${i}`)
      if (w.linkedSessions <= 1) throw new Error(`window ${w.windowId} is only linked to one session`)
      windows.delete(i)
      relink(w.windowId, -1)
    } else if (verb === 'move-window') {
      const from = index(arg('-s'))
      const to = index(arg('-t'))
      const w = windows.get(from)
      if (!w || windows.has(to) || to === now.firstIndex) throw new Error(`move ${from} → ${to} refused`)
      windows.delete(from)
      windows.set(to, { ...w, index: to })
    } else if (verb === 'link-window' && arg('-t') === '=trailboss-rescued:') {
      if (!rescueExists) throw new Error('no rescue session')
      relink(arg('-s'), 1)
    } else if (verb === 'link-window') {
      const to = index(arg('-t'))
      if (windows.has(to) || to === now.firstIndex) throw new Error(`index ${to} in use`)
      const id = arg('-s')
      const had = [...windows.values()].find((w) => w.windowId === id)
      const pane = [...now.paneWindow].find(([, w]) => w === id)?.[0] ?? ''
      windows.set(to, { index: to, windowId: id, activePane: had?.activePane ?? pane, linkedSessions: (had?.linkedSessions ?? 1) + 1 })
      relink(id, had ? 1 : 0)
    } else if (verb === 'select-pane') {
      const pane = arg('-t')
      for (const w of windows.values()) if (w.windowId === windowOf(pane)) w.activePane = pane
    } else if (verb === 'new-session') rescueExists = true
    else if (verb === 'set-option') listDigest = c[c.length - 1] ?? ''
    else if (verb !== 'kill-window' && verb !== 'respawn-pane') throw new Error(`unexpected ${c.join(' ')}`)
  }
  return { ...now, windows: [...windows.values()].sort((a, b) => a.index - b.index), rescueExists, listDigest }
}

const view = (over: Partial<ViewNow> = {}): ViewNow => ({
  exists: true,
  version: VIEW_VERSION,
  listDigest: textDigest(formatFirstWindow([])),
  from: '',
  firstIndex: 0,
  windows: [],
  rescueExists: false,
  paneWindow: new Map(),
  ...over,
})

/** Window `@k` holds pane `%k`; ids 1..12. */
const IDS = Array.from({ length: 12 }, (_, k) => k + 1)
const paneWindow = new Map(IDS.map((k) => [`%${k}`, `@${k}`]))

const arbitraryNow = fc
  .record({
    ids: fc.uniqueArray(fc.constantFrom(...IDS), { maxLength: 8 }),
    indexes: fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 8, maxLength: 8 }),
    linked: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 8, maxLength: 8 }),
    rescueExists: fc.boolean(),
  })
  .map(({ ids, indexes, linked, rescueExists }) =>
    view({
      rescueExists,
      paneWindow,
      windows: ids
        .map((k, i) => ({ index: indexes[i] ?? 1, windowId: `@${k}`, activePane: `%${k}`, linkedSessions: linked[i] ?? 2 }))
        .sort((a, b) => a.index - b.index),
    }),
  )
const arbitraryWant = fc
  .uniqueArray(fc.constantFrom(...IDS), { maxLength: 8 })
  .map((ids): ViewWant => ({ windows: ids.map((k) => ({ windowId: `@${k}`, pane: `%${k}` })), elsewhere: [] }))

t.test('planView brings any view to any queue, keeps every window linked elsewhere, and then has nothing to do', async (t) => {
  fc.assert(
    fc.property(arbitraryNow, arbitraryWant, fc.boolean(), (now, want, selectAll) => {
      const after = apply(now, planView(now, want, selectAll))
      t.same(
        after.windows.map((w) => [w.index, w.windowId]),
        want.windows.map((w, i) => [i + 1, w.windowId]),
      )
      t.ok(
        after.windows.every((w) => w.linkedSessions >= 2),
        'each window is also held by another session',
      )
      t.same(planView(after, want), [], 'the view is right: no command')
      t.same(planView(after, want, true), [], 'entering again: no command either')
    }),
    { numRuns: 300 },
  )
})

t.test('planView: the cases by name', async (t) => {
  const w = (index: number, k: number, linkedSessions = 2, activePane = `%${k}`) => ({
    index,
    windowId: `@${k}`,
    activePane,
    linkedSessions,
  })
  const want = (...ks: number[]): ViewWant => ({ windows: ks.map((k) => ({ windowId: `@${k}`, pane: `%${k}` })), elsewhere: [] })
  t.same(planView(view({ windows: [w(1, 1), w(2, 2)] }), want(1, 2)), [], 'right already: nothing')
  t.same(planView(view({ windows: [w(1, 1), w(2, 2)] }), want(2)), [
    ['unlink-window', '-t', `${V}1`],
    ['move-window', '-d', '-s', `${V}2`, '-t', `${V}10000`],
    ['move-window', '-d', '-s', `${V}10000`, '-t', `${V}1`],
  ])
  t.same(
    planView(view({ windows: [w(1, 1)] }), want(3, 1)),
    [
      ['move-window', '-d', '-s', `${V}1`, '-t', `${V}10000`],
      ['link-window', '-d', '-s', '@3', '-t', `${V}1`],
      ['move-window', '-d', '-s', `${V}10000`, '-t', `${V}2`],
      ['select-pane', '-t', '%3'],
    ],
    'a new wait takes its place in the order; only its pane is selected',
  )
  t.same(planView(view({ windows: [w(1, 1, 2, '%9')] }), want(1)), [], 'a person who chose another pane in the view keeps it')
  t.same(planView(view({ windows: [w(1, 1, 2, '%9')] }), want(1), true), [['select-pane', '-t', '%1']], 'entering selects the waiting pane')
  t.same(
    planView(view({ windows: [w(1, 1, 1)] }), want()),
    [
      ['new-session', '-d', '-s', 'trailboss-rescued', '-n', 'trailboss-placeholder', 'cat'],
      ['link-window', '-d', '-s', '@1', '-t', '=trailboss-rescued:'],
      ['kill-window', '-t', '=trailboss-rescued:^'],
      ['unlink-window', '-t', `${V}1`],
    ],
    'a window only the view holds is rescued before it is unlinked',
  )
  t.same(planView(view({ exists: false }), want(1)), [], 'no view: nothing')
  t.same(planView(view({ version: '0' }), want(1)), [], 'a view of another version is not ours to change')
  const elsewhere = [queueItem({ key: 'remote01', remote: { destination: 'devbox' } as never })]
  const text = formatFirstWindow(elsewhere)
  t.same(
    planView(view(), { windows: [], elsewhere }),
    [
      ['respawn-pane', '-k', '-t', `${V}0.0`, 'printf', '%s', text],
      ['set-option', '-t', V, '@trailboss-view-list', textDigest(text)],
    ],
    'the first window is printed again only when its text changes',
  )
  t.same(planView(view({ listDigest: textDigest(text) }), { windows: [], elsewhere }), [])
  t.match(text, /trailboss go remote01/)
})

t.test('planOff: rescues, unlinks, then kills the view session; planRescue makes the session once', async (t) => {
  const now = view({
    windows: [
      { index: 1, windowId: '@1', activePane: '%1', linkedSessions: 2 },
      { index: 2, windowId: '@2', activePane: '%2', linkedSessions: 1 },
    ],
    rescueExists: true,
  })
  t.same(planOff(now), [
    ['link-window', '-d', '-s', '@2', '-t', '=trailboss-rescued:'],
    ['unlink-window', '-t', `${V}1`],
    ['unlink-window', '-t', `${V}2`],
    ['kill-session', '-t', V],
  ])
  t.same(planOff(view({ exists: false })), [])
  t.same(
    planOff(view({ firstIndex: null, windows: [{ index: 0, windowId: '@1', activePane: '%1', linkedSessions: 2 }] })),
    [['unlink-window', '-t', `${V}0`]],
    'a view of another version: its last unlink ends it',
  )
  t.same(planRescue(view()), [])
  t.same(planCreate('hi\n')[0], ['new-session', '-d', '-s', 'trailboss-view', '-n', 'waits', 'cat'])
})

t.test('deriveWant: the default queue on this server, a window once at its first wait, its oldest wait selected', async (t) => {
  const s = '/tmp/s'
  const item = (key: string, pane: string, since: number, over = {}) =>
    queueItem({ key, since, tmux: { pane, socket: s, serverPid: 1, alive: true }, ...over })
  const panes = new Map([
    ['%1', '@1'],
    ['%2', '@2'],
    ['%3', '@2'],
  ])
  const queue = [
    item('a', '%3', 30),
    item('b', '%1', 10),
    item('c', '%2', 20),
    item('d', '%9', 5, { tmux: { pane: '%9', socket: '/other', serverPid: 1, alive: true } }),
    item('e', '%1', 1, { state: 'gone' }),
    item('f', '%7', 1),
  ]
  const want = deriveWant(queue, s, panes)
  t.same(want.windows, [
    { windowId: '@2', pane: '%2' },
    { windowId: '@1', pane: '%1' },
  ])
  t.same(
    want.elsewhere?.map((i) => i.key),
    ['d'],
  )
  t.equal(deriveWant(queue, s, panes, false).elsewhere, null, 'a run that did not read every host')
  t.same(planView(view({ listDigest: 'other' }), { windows: [], elsewhere: null }), [], 'then the first window keeps its list')
})

t.test('parseViewPanes and deriveViewNow read one list-panes', async (t) => {
  t.equal(VIEW_PANE_FORMAT.split(FIELD_SEP).length, 12)
  const line = (...f: string[]) => f.join(FIELD_SEP)
  const text = [
    line('$0', '100', '0', '@0', '2', '%0', '1', '', '', '', '', 'home'),
    line('$3', '200', '0', '@5', '1', '%5', '1', '1', 'abc', '1', '=home:@0.%0', 'trailboss-view'),
    line('$3', '200', '1', '@0', '2', '%0', '1', '1', 'abc', '', '=home:@0.%0', 'trailboss-view'),
    line('$3', '200', '1', '@0', '2', '%1', '0', '1', 'abc', '', '=home:@0.%0', 'trailboss-view'),
  ].join('\n')
  const now = deriveViewNow(parseViewPanes(text))
  t.same(now.windows, [{ index: 1, windowId: '@0', activePane: '%0', linkedSessions: 2 }])
  t.equal(now.firstIndex, 0)
  t.equal(now.version, '1')
  t.equal(now.from, '=home:@0.%0')
  t.equal(now.listDigest, 'abc')
  t.equal(now.rescueExists, false)
  t.equal(now.paneWindow.get('%1'), '@0')
  t.equal(deriveViewNow(parseViewPanes(text.split('\n')[0] ?? '')).exists, false)
})
