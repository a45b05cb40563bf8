// The tmux adapter against a real server on a private socket, and its pure parsers.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { capturePanes, listPanes, PANE_FORMAT, parseCaptures, parsePanes } from '../lib/tmux/panes.js'

t.test('capturePanes reads several panes in one tmux run', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-tmux-'))
  const socket = join(dir, 's')
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' })
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', '10', 'sh', '-c', 'echo first pane; exec sleep 100')
  t.teardown(() => {
    tmux('kill-server')
    rmSync(dir, { recursive: true, force: true })
  })
  const second = tmux('new-window', '-d', '-P', '-F', '#{pane_id}', 'sh', '-c', 'echo second pane; exec sleep 100').trim()
  await new Promise((r) => setTimeout(r, 300))
  const [a, b] = await capturePanes(socket, ['%0', second])
  t.match(a, /^first pane\n/)
  t.match(b, /^second pane\n/)
  const withMissing = await capturePanes(socket, ['%0', '%99', second])
  t.match(withMissing[0], /first pane/)
  t.same(withMissing.slice(1), [null, null], 'tmux stops at the missing pane: nothing after it is trusted')
  t.same(await capturePanes(socket, []), [])
  const panes = await listPanes(socket)
  t.same(panes === 'no-server' ? [] : panes.map((p) => p.currentCommand), ['sleep', 'sleep'])
})

t.test('parsers', async (t) => {
  t.same(parseCaptures('one\nMARK', 1), [null], 'no mark: not a capture')
  const line = ['%3', '$1', 'work', '@2', '1', '0', '42', 'claude', '0', '1', '80', '24', '900', 'odd|~|name'].join('|~|')
  t.same(parsePanes(`${line}\n`), [
    { paneId: '%3', sessionId: '$1', sessionName: 'work', windowId: '@2', windowIndex: 1, paneIndex: 0, panePid: 42, currentCommand: 'claude', dead: false, active: true, width: 80, height: 24, serverPid: 900, windowName: 'odd|~|name' },
  ])
  t.ok(PANE_FORMAT.endsWith('#{window_name}'), 'the free-text field comes last')
})
