// The tmux adapter against a real server on a private socket, and its pure parsers.
import t from 'tap'
import { capturePanes, deriveClientActivity, listPanes, PANE_FORMAT, parseCaptures, parsePanes } from '../lib/tmux/panes.js'
import { startTmuxServer } from './helpers/tmux-server.js'
import { waitFor } from './helpers/wait-for.js'

t.test('capturePanes reads several panes in one tmux run', async (t) => {
  const server = startTmuxServer(t, { command: ['sh', '-c', 'echo first pane; exec sleep 100'], size: [80, 10] })
  const { socket, firstPane } = server
  const second = server.newPane(['new-window', '-d'], ['sh', '-c', 'echo second pane; exec sleep 100'])
  // Both panes have printed their line and replaced their shell with `sleep`.
  const ready = async (): Promise<boolean> => {
    const panes = await listPanes(socket)
    return (
      panes !== 'no-server' &&
      panes.every((p) => p.currentCommand === 'sleep') &&
      server.capture(firstPane).includes('first pane') &&
      server.capture(second).includes('second pane')
    )
  }
  await waitFor(ready, 'both panes printed and exec-ed sleep')
  const [a, b] = await capturePanes(socket, [firstPane, second])
  t.match(a, /^first pane\n/)
  t.match(b, /^second pane\n/)
  const withMissing = await capturePanes(socket, [firstPane, '%99', second])
  t.match(withMissing[0], /first pane/)
  t.same(withMissing.slice(1), [null, null], 'tmux stops at the missing pane: nothing after it is trusted')
  t.same(await capturePanes(socket, []), [])
  const panes = await listPanes(socket)
  t.same(panes === 'no-server' ? [] : panes.map((p) => p.currentCommand), ['sleep', 'sleep'])
})

t.test('parsers', async (t) => {
  t.same(parseCaptures('one\nMARK', 1), [null], 'no mark: not a capture')
  const line = ['%3', '$1', 'work', '@2', '1', '0', '42', 'claude', '0', '1', '80', '24', '900', '1', '2', '1700000000', 'odd|~|name'].join(
    '|~|',
  )
  t.same(parsePanes(`${line}\n`), [
    {
      paneId: '%3',
      sessionId: '$1',
      sessionName: 'work',
      windowId: '@2',
      windowIndex: 1,
      paneIndex: 0,
      panePid: 42,
      currentCommand: 'claude',
      dead: false,
      active: true,
      width: 80,
      height: 24,
      serverPid: 900,
      inFront: true,
      sessionAttached: true,
      sessionActivity: 1_700_000_000,
      windowName: 'odd|~|name',
    },
  ])
  // In front only when the pane, its window and a client on its session all say so.
  const inFront = (active: string, windowActive: string, attached: string): boolean | undefined => {
    const f = ['%3', '$1', 'work', '@2', '1', '0', '42', 'claude', '0', active, '80', '24', '900', windowActive, attached, '5', 'w'].join(
      '|~|',
    )
    const [p] = parsePanes(`${f}\n`)
    return p?.inFront
  }
  t.equal(inFront('1', '1', '1'), true)
  t.equal(inFront('0', '1', '1'), false, 'not the active pane')
  t.equal(inFront('1', '0', '1'), false, 'not the active window')
  t.equal(inFront('1', '1', '0'), false, 'no client on the session')
  t.ok(PANE_FORMAT.endsWith('#{window_name}'), 'the free-text field comes last')
  // The person's activity: the latest of the sessions a client shows, in ms.
  const pane = (attached: string, activity: string) =>
    parsePanes(`${['%3', '$1', 'w', '@2', '1', '0', '42', 'sh', '0', '1', '80', '24', '900', '1', attached, activity, 'w'].join('|~|')}\n`)
  t.equal(
    deriveClientActivity([...pane('1', '100'), ...pane('2', '300'), ...pane('0', '900')]),
    300_000,
    'a detached session is not the person',
  )
  t.equal(deriveClientActivity(pane('0', '900')), null, 'no client attached')
})
