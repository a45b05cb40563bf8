import t from 'tap'
import { filterAgents } from '../lib/queue/filter.js'
import type { QueueItem } from '../lib/queue/derive.js'

const item = (n: number | null, agent: string): QueueItem => ({ n, agent, sessionId: `${agent}-${n}` }) as QueueItem

t.test('--agent narrows every view and keeps the numbers', async (t) => {
  const items = [item(1, 'codex'), item(2, 'claude-code'), item(3, 'gemini'), item(null, 'codex')]
  const view = { queue: items.filter((i) => i.n !== null), items, now: 5 }
  t.equal(filterAgents(view, undefined), view, 'no filter: the view as it is')
  t.equal(filterAgents(view, []), view)
  const codex = filterAgents(view, ['codex'])
  t.same(
    codex.queue.map((i) => i.n),
    [1],
  )
  t.same(
    codex.items.map((i) => i.sessionId),
    ['codex-1', 'codex-null'],
  )
  t.equal(codex.now, 5, 'the rest of the view is kept')
  t.same(
    filterAgents(view, ['gemini', 'claude-code']).queue.map((i) => i.n),
    [2, 3],
    'numbers stay those of the whole queue',
  )
})
