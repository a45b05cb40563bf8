// The view's small pure parts: a pane listed in two sessions placed in the person's, the target a
// move names while a window is linked twice, doctor's verdicts, and view.json's reader.
import t from 'tap'
import { panesById, type Pane } from '../lib/tmux/panes.js'
import { deriveTarget, parseHolders } from '../lib/view/target.js'
import { checkView } from '../lib/doctor/view-check.js'
import { parseViewSockets } from '../lib/view/marker.js'
import { FIELD_SEP } from '../lib/tmux/panes.js'

const pane = (sessionName: string, over: Partial<Pane> = {}): Pane => ({
  paneId: '%1',
  sessionId: '$1',
  sessionName,
  windowId: '@1',
  windowIndex: 0,
  windowName: 'w',
  paneIndex: 0,
  panePid: 10,
  currentCommand: 'claude',
  dead: false,
  active: true,
  width: 80,
  height: 24,
  serverPid: 1,
  inFront: false,
  sessionAttached: false,
  sessionActivity: 0,
  ...over,
})

t.test("panesById: a linked pane keeps the place of the person's session, in front when any session shows it", async (t) => {
  const byId = panesById([
    pane('api', { windowIndex: 2 }),
    pane('trailboss-view', { windowIndex: 5, inFront: true }),
    pane('web', { paneId: '%2' }),
  ])
  t.equal(byId.get('%1')?.sessionName, 'api')
  t.equal(byId.get('%1')?.windowIndex, 2)
  t.equal(byId.get('%1')?.inFront, true, 'the view shows it')
  t.equal(panesById([pane('trailboss-view'), pane('api')]).get('%1')?.sessionName, 'api', 'whichever comes first')
  t.equal(panesById([pane('trailboss-view')]).get('%1')?.sessionName, 'trailboss-view', 'held by the view alone')
  t.equal(panesById([pane('trailboss-keep'), pane('trailboss-view')]).get('%1')?.sessionName, 'trailboss-keep')
  t.equal(
    panesById([pane('trailboss-view'), pane('trailboss-keep')]).get('%1')?.sessionName,
    'trailboss-keep',
    'a rescued window: the keeper, which outlives the view',
  )
})

t.test("deriveTarget: into the view only from the view; else the person's own session", async (t) => {
  const holders = parseHolders(
    [
      ['$0', '@1', 'api'],
      ['$3', '@1', 'trailboss-view'],
    ]
      .map((f) => f.join(FIELD_SEP))
      .join('\n'),
  )
  t.same(holders[0], { sessionId: '$0', windowId: '@1', sessionName: 'api' })
  t.equal(deriveTarget('%1', holders, 'trailboss-view'), '$3:@1.%1')
  t.equal(deriveTarget('%1', holders, 'home'), '$0:@1.%1')
  t.equal(deriveTarget('%1', holders, null), '$0:@1.%1', 'back: never into the view')
  t.equal(deriveTarget('%1', [{ sessionId: '$5', windowId: '@1', sessionName: 'trailboss-keep' }], null), '$5:@1.%1')
  t.equal(deriveTarget('%1', [], null), null)
})

t.test('checkView: ok, left by another version, out of step, gone, rescued windows', async (t) => {
  const f = { socket: '/s', marked: true, version: '1', windows: 3, rescued: 0 }
  t.match(checkView(f), [{ status: 'ok', summary: /links 3 windows/ }])
  t.match(checkView({ ...f, version: '0' }), [{ status: 'warn', fix: /view --off/ }])
  t.match(checkView({ ...f, version: '' }), [{ status: 'warn', summary: /version none/ }])
  t.match(checkView({ ...f, marked: false }), [{ status: 'warn', summary: /not kept in step/ }])
  t.match(checkView({ ...f, version: null }), [{ status: 'info' }])
  t.same(checkView({ ...f, version: null, marked: false }), [])
  t.match(checkView({ ...f, rescued: 1 }), [
    { status: 'ok' },
    { status: 'info', summary: /1 window whose/, fix: /attach -t trailboss-keep/ },
  ])
})

t.test('parseViewSockets: the sockets of a marker of ours; nothing from anything else', async (t) => {
  t.same(parseViewSockets('{"v":1,"sockets":["/tmp/s","rel",3]}'), ['/tmp/s'])
  t.same(parseViewSockets('{"v":2,"sockets":["/tmp/s"]}'), [])
  t.same(parseViewSockets('nope'), [])
  t.same(parseViewSockets(''), [])
})
