import t from 'tap'
import { formatPlain, formatTable, summarizeAsk, toJsonItem, truncate } from '../lib/render/queue-table.js'
import type { QueueItem } from '../lib/queue/derive.js'
import type { SessionRecord } from '../lib/record/types.js'

const item = (over: Partial<QueueItem>): QueueItem => ({
  n: 1,
  key: 'abcdefgh',
  sessionId: 'abcdefgh-1234',
  agent: 'claude-code',
  state: 'waiting',
  kind: 'done',
  since: 0,
  cwd: '/w',
  project: 'web',
  host: 'h',
  headless: false,
  tmux: { pane: '%3', socket: '/s', serverPid: 1, alive: true },
  inferred: false,
  reason: null,
  ask: { tool: null, input: null, message: 'All done.\nAnything else?' },
  record: { lastEventAt: 5 } as SessionRecord,
  ...over,
})

t.test('summarizeAsk', async (t) => {
  t.equal(summarizeAsk({ tool: 'Bash', input: { command: 'npm\ttest' }, message: null }), 'Bash: npm test')
  t.equal(summarizeAsk({ tool: 'Edit', input: { file_path: '/a/b.ts' }, message: null }), 'Edit: /a/b.ts')
  t.equal(summarizeAsk({ tool: 'AskUserQuestion', input: { questions: [{ question: 'Red or blue?' }] }, message: null }), 'AskUserQuestion: Red or blue?')
  t.equal(summarizeAsk({ tool: null, input: null, message: 'Line one\n\nShall I?\n' }), 'Shall I?')
  t.equal(summarizeAsk({ tool: null, input: null, message: null }), '')
  t.equal(summarizeAsk({ tool: 'Bash', input: { command: 'x'.repeat(200) }, message: null }, 20).length, 20)
  t.equal(truncate('héllo wörld', 5), 'héll…')
})

t.test('table, plain and JSON', async (t) => {
  const items = [item({}), item({ n: null, key: 'zzzzzzzz', state: 'working', kind: null, tmux: null, inferred: true, ask: { tool: null, input: null, message: null } })]
  const table = formatTable(items, { now: 185_000, colour: false, width: 100 })
  const lines = table.trimEnd().split('\n')
  t.match(lines[0], /^#\s+AGE\s+KIND\s+PROJECT\s+ASK\s+PANE$/)
  t.match(lines[1], /^1\s+3m\s+done\s+web\s+Anything else\?\s+%3$/)
  t.match(lines[2], /^-\s+3m\s+working~\s+web\s+-$/)
  t.ok(lines.every((l) => [...l].length <= 100), 'fits the width')
  t.match(formatTable(items, { now: 0, colour: true, width: 100 }), /\u001b\[32mdone/)
  t.equal(formatTable([], { now: 0, colour: false, width: 80 }), '')
  t.equal(formatPlain([item({ ask: { tool: null, input: null, message: 'a\tb' } })], 65_000), 'abcdefgh\t1\t1m\tdone\tweb\t%3\ta b\n')
  const json = toJsonItem(item({}))
  t.equal(json.since, '1970-01-01T00:00:00.000Z')
  t.same(json.tmux, { pane: '%3', socket: '/s', alive: true })
  t.notOk('record' in json, 'the record stays internal')
})
