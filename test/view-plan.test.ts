// The view's pure planner (lib/view/plan.ts): from what tmux holds and what the queue wants, the
// commands between them. Checked against a small model of tmux that refuses what tmux refuses
// (a window at a taken index, unlinking a window's last link), over generated views and queues.
import fc from 'fast-check'
import t from 'tap'
import {
  deriveOthers,
  deriveRescued,
  deriveViewNow,
  deriveWant,
  formatFirstWindow,
  parseViewPanes,
  planCreate,
  planOff,
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
const K = '=trailboss-keep:'

/**
 * A model of the view and the keeper: applies the planner's commands, or throws where tmux would
 * fail (a window at a taken index, unlinking a window's last link) or where a window would die
 * (killing the view session while it holds a window's last link).
 */
const apply = (now: ViewNow, cmds: readonly string[][]): ViewNow => {
  const others = deriveOthers(now)
  const windows = new Map(now.windows.map((w) => [w.index, { ...w }]))
  const keep = new Set(now.kept.map((w) => w.windowId))
  let { keepExists, listDigest, exists } = now
  const windowOf = (pane: string): string => now.paneWindow.get(pane) ?? `@${pane.slice(1)}`
  // A window the queue wants that neither session holds is held by one of the person's.
  const links = (id: string): number =>
    (others.get(id) ?? 1) + [...windows.values()].filter((w) => w.windowId === id).length + (keep.has(id) ? 1 : 0)
  const index = (target: string): number => {
    if (!target.startsWith(V)) throw new Error(`not a view target: ${target}`)
    return Number(target.slice(V.length))
  }
  for (const c of cmds) {
    const [verb] = c
    const arg = (flag: string): string => c[c.indexOf(flag) + 1] ?? ''
    if (verb === 'unlink-window' && arg('-t').startsWith(K)) {
      const id = arg('-t').slice(K.length)
      if (!keep.has(id)) throw new Error(`the keeper has no ${id}`)
      if (links(id) <= 1) throw new Error(`window ${id} is only linked to one session`)
      keep.delete(id)
      if (keep.size === 0) keepExists = false
    } else if (verb === 'unlink-window') {
      const i = index(arg('-t'))
      const w = windows.get(i)
      if (!w) throw new Error(`no window ${i}`)
      if (links(w.windowId) <= 1) throw new Error(`window ${w.windowId} is only linked to one session`)
      windows.delete(i)
    } else if (verb === 'move-window') {
      const from = index(arg('-s'))
      const to = index(arg('-t'))
      const w = windows.get(from)
      if (!w || windows.has(to) || to === now.firstIndex) throw new Error(`move ${from} → ${to} refused`)
      windows.delete(from)
      windows.set(to, { ...w, index: to })
    } else if (verb === 'link-window' && arg('-t') === K) {
      if (!keepExists) throw new Error('no keeper')
      if (keep.has(arg('-s'))) throw new Error(`${arg('-s')} kept twice`)
      keep.add(arg('-s'))
    } else if (verb === 'link-window') {
      const to = index(arg('-t'))
      if (windows.has(to) || to === now.firstIndex) throw new Error(`index ${to} in use`)
      const id = arg('-s')
      const had = [...windows.values()].find((w) => w.windowId === id)
      const pane = [...now.paneWindow].find(([, w]) => w === id)?.[0] ?? ''
      windows.set(to, { index: to, windowId: id, activePane: had?.activePane ?? pane, linkedSessions: 0 })
    } else if (verb === 'select-pane') {
      const pane = arg('-t')
      for (const w of windows.values()) if (w.windowId === windowOf(pane)) w.activePane = pane
    } else if (verb === 'new-session') {
      if (keepExists || arg('-s') !== 'trailboss-keep') throw new Error(`new-session ${c.join(' ')}`)
      keepExists = true
    } else if (verb === 'kill-session') {
      for (const w of windows.values())
        if (links(w.windowId) - [...windows.values()].filter((v) => v.windowId === w.windowId).length < 1)
          throw new Error(`killing the view kills ${w.windowId}`)
      windows.clear()
      exists = false
    } else if (verb === 'set-option') listDigest = c[c.length - 1] ?? ''
    else if (verb !== 'kill-window' && verb !== 'respawn-pane') throw new Error(`unexpected ${c.join(' ')}`)
  }
  return {
    ...now,
    exists,
    windows: [...windows.values()].map((w) => ({ ...w, linkedSessions: links(w.windowId) })).sort((a, b) => a.index - b.index),
    kept: [...keep].map((windowId) => ({ windowId, linkedSessions: links(windowId) })),
    keepExists,
    listDigest,
  }
}

const view = (over: Partial<ViewNow> = {}): ViewNow => ({
  exists: true,
  version: VIEW_VERSION,
  listDigest: textDigest(formatFirstWindow([])),
  from: '',
  firstIndex: 0,
  windows: [],
  keepExists: false,
  kept: [],
  paneWindow: new Map(),
  ...over,
})

/** Window `@k` holds pane `%k`; ids 1..12. */
const IDS = Array.from({ length: 12 }, (_, k) => k + 1)
const paneWindow = new Map(IDS.map((k) => [`%${k}`, `@${k}`]))

/** Each window: its index in the view (0: not there), whether the keeper holds it, how many of the person's sessions do. */
const arbitraryNow = fc
  .record({
    at: fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 12, maxLength: 12 }),
    inView: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    inKeep: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    others: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 12, maxLength: 12 }),
    placeholder: fc.boolean(),
  })
  .map(({ at, inView, inKeep, others, placeholder }) => {
    const all = IDS.map((k, i) => ({
      id: `@${k}`,
      k,
      index: at[i] ?? 1,
      v: inView[i] === true,
      keep: inKeep[i] === true,
      o: others[i] ?? 0,
    }))
    const held = all.filter((w) => w.v || w.keep || w.o > 0)
    const links = (w: (typeof all)[number]): number => w.o + (w.v ? 1 : 0) + (w.keep ? 1 : 0)
    const kept = held.filter((w) => w.keep).map((w) => ({ windowId: w.id, linkedSessions: links(w) }))
    return view({
      paneWindow,
      windows: held
        .filter((w) => w.v)
        .map((w) => ({ index: w.index, windowId: w.id, activePane: `%${w.k}`, linkedSessions: links(w) }))
        .sort((a, b) => a.index - b.index),
      kept,
      keepExists: kept.length > 0 || placeholder,
    })
  })
const arbitraryWant = fc
  .uniqueArray(fc.constantFrom(...IDS), { maxLength: 8 })
  .map((ids): ViewWant => ({ windows: ids.map((k) => ({ windowId: `@${k}`, pane: `%${k}` })), elsewhere: [] }))

/** The windows no session of the person's holds: the keeper must hold each of them, whatever happens. */
const orphans = (now: ViewNow, want: ViewWant): string[] => {
  const others = deriveOthers(now)
  return [...new Set([...now.windows, ...now.kept].map((w) => w.windowId))]
    .filter((id) => (others.get(id) ?? 0) <= 0)
    .concat(want.windows.filter((w) => others.get(w.windowId) === 0).map((w) => w.windowId))
}

t.test('planView brings any view to any queue, every window it shows also in the keeper, and then has nothing to do', async (t) => {
  fc.assert(
    fc.property(arbitraryNow, arbitraryWant, fc.boolean(), (now, want, selectAll) => {
      const after = apply(now, planView(now, want, selectAll))
      t.same(
        after.windows.map((w) => [w.index, w.windowId]),
        want.windows.map((w, i) => [i + 1, w.windowId]),
      )
      const kept = new Set(after.kept.map((w) => w.windowId))
      t.ok(
        after.windows.every((w) => kept.has(w.windowId)),
        'the keeper holds each window the view shows',
      )
      t.ok(
        orphans(now, want).every((id) => kept.has(id)),
        'and each window no session of the person holds',
      )
      t.ok(
        after.kept.every((w) => after.windows.some((v) => v.windowId === w.windowId) || (deriveOthers(after).get(w.windowId) ?? 0) <= 0),
        'and nothing else',
      )
      t.same(planView(after, want), [], 'the view is right: no command')
      t.same(planView(after, want, true), [], 'entering again: no command either')
      t.ok(after.windows.every((w) => w.linkedSessions >= 2))
    }),
    { numRuns: 300 },
  )
})

t.test('planOff ends any view (or none), the keeper holding exactly the windows no session of the person holds', async (t) => {
  fc.assert(
    fc.property(arbitraryNow, fc.boolean(), (now, exists) => {
      const before = exists ? now : { ...now, exists: false, windows: [] }
      const after = apply(before, planOff(before))
      t.equal(after.exists, false)
      t.same(after.kept.map((w) => w.windowId).sort(), [...new Set(orphans(before, { windows: [], elsewhere: [] }))].sort())
      t.same(planOff(after), [], 'then nothing to do')
    }),
    { numRuns: 300 },
  )
})

t.test('planView: the cases by name', async (t) => {
  const w = (index: number, k: number, linkedSessions = 3, activePane = `%${k}`) => ({
    index,
    windowId: `@${k}`,
    activePane,
    linkedSessions,
  })
  const kept = (...ks: number[]) => ({ keepExists: true, kept: ks.map((k) => ({ windowId: `@${k}`, linkedSessions: 3 })) })
  const want = (...ks: number[]): ViewWant => ({ windows: ks.map((k) => ({ windowId: `@${k}`, pane: `%${k}` })), elsewhere: [] })
  t.same(planView(view({ windows: [w(1, 1), w(2, 2)], ...kept(1, 2) }), want(1, 2)), [], 'right already: nothing')
  t.same(planView(view({ windows: [w(1, 1), w(2, 2)], ...kept(1, 2) }), want(2)), [
    ['unlink-window', '-t', `${V}1`],
    ['move-window', '-d', '-s', `${V}2`, '-t', `${V}10000`],
    ['move-window', '-d', '-s', `${V}10000`, '-t', `${V}1`],
    ['unlink-window', '-t', `${K}@1`],
  ])
  t.same(
    planView(view({ windows: [w(1, 1)], ...kept(1) }), want(3, 1)),
    [
      ['link-window', '-d', '-s', '@3', '-t', K],
      ['move-window', '-d', '-s', `${V}1`, '-t', `${V}10000`],
      ['link-window', '-d', '-s', '@3', '-t', `${V}1`],
      ['move-window', '-d', '-s', `${V}10000`, '-t', `${V}2`],
      ['select-pane', '-t', '%3'],
    ],
    'a new wait is kept, then takes its place in the order; only its pane is selected',
  )
  t.same(planView(view({ windows: [w(1, 1, 3, '%9')], ...kept(1) }), want(1)), [], 'a person who chose another pane in the view keeps it')
  t.same(
    planView(view({ windows: [w(1, 1, 3, '%9')], ...kept(1) }), want(1), true),
    [['select-pane', '-t', '%1']],
    'entering selects the waiting pane',
  )
  t.same(
    planView(view({ windows: [w(1, 1, 1)] }), want()),
    [
      ['new-session', '-d', '-s', 'trailboss-keep', '-n', 'trailboss-placeholder', 'cat'],
      ['link-window', '-d', '-s', '@1', '-t', K],
      ['kill-window', '-t', `${K}^`],
      ['unlink-window', '-t', `${V}1`],
    ],
    'a window only the view holds is kept before it is unlinked',
  )
  t.same(
    planView(view({ windows: [w(1, 1, 2)], keepExists: true, kept: [{ windowId: '@1', linkedSessions: 2 }] }), want()),
    [['unlink-window', '-t', `${V}1`]],
    'a window whose session was closed stays in the keeper when its wait ends',
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

t.test('planOff: keeps, unlinks, kills the view session, then the keeper lets go; deriveRescued', async (t) => {
  const now = view({
    windows: [
      { index: 1, windowId: '@1', activePane: '%1', linkedSessions: 3 },
      { index: 2, windowId: '@2', activePane: '%2', linkedSessions: 1 },
    ],
    keepExists: true,
    kept: [
      { windowId: '@1', linkedSessions: 3 },
      { windowId: '@3', linkedSessions: 1 },
    ],
  })
  t.same(planOff(now), [
    ['link-window', '-d', '-s', '@2', '-t', K],
    ['unlink-window', '-t', `${V}1`],
    ['unlink-window', '-t', `${V}2`],
    ['kill-session', '-t', V],
    ['unlink-window', '-t', `${K}@1`],
  ])
  t.same(deriveRescued(now), ['@2', '@3'], 'the windows no session of the person holds')
  t.same(planOff(view({ exists: false })), [])
  t.same(
    planOff(view({ exists: false, windows: [], keepExists: true, kept: [{ windowId: '@1', linkedSessions: 2 }] })),
    [['unlink-window', '-t', `${K}@1`]],
    'a view killed by hand: the keeper lets go of what lives elsewhere',
  )
  t.same(
    planOff(view({ firstIndex: null, windows: [{ index: 0, windowId: '@1', activePane: '%1', linkedSessions: 2 }] })),
    [['unlink-window', '-t', `${V}0`]],
    'a view of another version: its last unlink ends it',
  )
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
  t.equal(now.keepExists, false)
  t.same(now.kept, [])
  const withKeeper = deriveViewNow(
    parseViewPanes(`${text}\n${line('$4', '50', '1', '@0', '3', '%0', '1', '', '', '', '', 'trailboss-keep')}`),
  )
  t.equal(withKeeper.keepExists, true)
  t.same(withKeeper.kept, [{ windowId: '@0', linkedSessions: 3 }])
  t.equal(now.paneWindow.get('%1'), '@0')
  t.equal(deriveViewNow(parseViewPanes(text.split('\n')[0] ?? '')).exists, false)
})
