import { readFileSync } from 'node:fs'
import t from 'tap'
import {
  formatPlain,
  formatTable,
  PLACE_MARKS,
  placeLabel,
  summarizeAsk,
  TABLE_LEGEND,
  toJsonItem,
  truncate,
} from '../lib/render/queue-table.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { queueItem } from './helpers/queue-item.js'
import type { SessionRecord } from '../lib/record/types.js'

const item = (over: Partial<QueueItem>): QueueItem =>
  queueItem({
    sessionId: 'abcdefgh-1234',
    ask: { tool: null, input: null, message: 'All done.\nAnything else?' },
    record: { lastEventAt: 5 } as SessionRecord,
    ...over,
  })

t.test('summarizeAsk', async (t) => {
  t.equal(summarizeAsk({ tool: 'Bash', input: { command: 'npm\ttest' }, message: null }), 'Bash: npm test')
  t.equal(summarizeAsk({ tool: 'Edit', input: { file_path: '/a/b.ts' }, message: null }), 'Edit: /a/b.ts')
  t.equal(
    summarizeAsk({ tool: 'AskUserQuestion', input: { questions: [{ question: 'Red or blue?' }] }, message: null }),
    'AskUserQuestion: Red or blue?',
  )
  t.equal(summarizeAsk({ tool: null, input: null, message: 'Line one\n\nShall I?\n' }), 'Shall I?')
  t.equal(summarizeAsk({ tool: null, input: null, message: null }), '')
  t.equal(summarizeAsk({ tool: 'Bash', input: { command: 'x'.repeat(200) }, message: null }, 20).length, 20)
  t.equal(truncate('héllo wörld', 5), 'héll…')
})

t.test('table, plain and JSON', async (t) => {
  const items = [
    item({}),
    item({
      n: null,
      key: 'zzzzzzzz',
      state: 'working',
      kind: null,
      tmux: null,
      inferred: true,
      ask: { tool: null, input: null, message: null },
    }),
  ]
  const table = formatTable(items, { now: 185_000, colour: false, width: 100 })
  const lines = table.trimEnd().split('\n')
  t.match(lines[0], /^#\s+AGE\s+KIND\s+AGENT\s+PROJECT\s+WHERE\s+ASK$/)
  t.match(lines[1], /^1\s+3m\s+done\s+claude\s+web\s+%3\s+Anything else\?$/)
  t.match(lines[2], /^-\s+3m\s+working~\s+claude\s+web\s+-$/)
  t.ok(
    lines.every((l) => [...l].length <= 100),
    'fits the width',
  )
  t.match(formatTable(items, { now: 0, colour: true, width: 100 }), /\u001b\[32mdone/)
  t.equal(formatTable([], { now: 0, colour: false, width: 80 }), '')
  t.equal(
    formatPlain([item({ ask: { tool: null, input: null, message: 'a\tb' } })], 65_000),
    'abcdefgh\t1\t1m\tdone\tweb\t%3\ta b\tclaude\t%3\n',
  )
  const json = toJsonItem(item({}))
  t.equal(json.since, '1970-01-01T00:00:00.000Z')
  t.same(json.tmux, { pane: '%3', socket: '/s', alive: true, place: null })
  t.notOk('record' in json, 'the record stays internal')
})

t.test('the table names the place in tmux and fits the terminal', async (t) => {
  const place = { session: 'work', window: 2, windowName: 'api' }
  const long = item({
    tmux: { pane: '%3', socket: '/s', serverPid: 1, alive: true, place },
    ask: { tool: 'Bash', input: { command: `npm test ${'x'.repeat(300)}` }, message: null },
  })
  const codex = item({
    n: 2,
    key: 'cccccccc',
    agent: 'codex',
    project: 'a-very-long-project-name-indeed',
    tmux: { pane: '%9', socket: '/s', serverPid: 1, alive: false, place: null },
  })
  const stranger = item({ n: 3, key: 'dddddddd', agent: 'someday-agent', tmux: { pane: '%4', socket: '/s', serverPid: 1, alive: null } })
  t.equal(placeLabel(long), 'work:2 (api)')
  t.equal(placeLabel({ ...long, tmux: { ...long.tmux!, place: { ...place, windowName: '' } } }), 'work:2')
  t.equal(placeLabel(codex), '%9✗', 'a gone pane: its id and a mark')
  t.equal(placeLabel(stranger), '%4?', 'tmux not asked')
  t.equal(placeLabel(item({ tmux: null, headless: true })), 'headless')
  for (const width of [200, 120, 80, 60, 40]) {
    const lines = formatTable([long, codex, stranger], { now: 60_000, colour: false, width }).trimEnd().split('\n')
    t.ok(
      lines.every((l) => [...l].length <= width),
      `every line fits ${width} columns`,
    )
    const where = lines[0]!.indexOf('WHERE')
    t.ok(where > 0 && where < 60, `WHERE stays on the left at ${width} columns (${where})`)
    t.match(lines[1], width >= 120 ? /work:2 \(api\)/ : /work:2/)
    t.match(lines[1], /…$/, 'the long ask is cut with a marker')
  }
  const wide = formatTable([long, codex, stranger], { now: 60_000, colour: false, width: 120 })
  t.match(wide, /\bcodex\b/)
  t.match(wide, /\bsomeday-agent\b/, 'an agent this version does not know: as recorded')
  t.match(wide, /a-very-long-project…/, 'a long project is cut with a marker')
  const narrow = formatTable([long], { now: 60_000, colour: false, width: 40 }).split('\n')[0]!
  t.notMatch(narrow, /AGENT/, 'a narrow terminal drops the agent column before ASK loses its room')
  const coloured = formatTable([long], { now: 60_000, colour: true, width: 80 })
  t.match(coloured, /\u001b\[32mdone/, 'the kind keeps its colour after the fit')
  t.ok(
    coloured.split('\n').every((l) => [...l.replace(/\u001b\[[0-9;]*m/g, '')].length <= 80),
    'colour codes do not count as width',
  )
  t.equal(
    formatPlain([long], 60_000).trimEnd().split('\t').slice(-2).join('|'),
    'claude|work:2 (api)',
    '--plain adds agent and place at the end',
  )
  for (const mark of ['~', '✓', '✗', '$', '?', 'headless', '…', '# -']) t.ok(TABLE_LEGEND.includes(mark), `the legend explains ${mark}`)
})

t.test('WHERE marks: gone, back at a shell, unknown, ended', async (t) => {
  const place = { session: 'work', window: 2, windowName: 'api' }
  const ended = item({ n: null, state: 'ended', kind: null, tmux: { pane: '%3', socket: '/s', serverPid: 1, alive: null, place: null } })
  const shell = item({ n: null, state: 'gone', kind: null, tmux: { pane: '%5', socket: '/s', serverPid: 1, alive: false, place } })
  const gone = item({ n: null, state: 'gone', kind: null, tmux: { pane: '%9', socket: '/s', serverPid: 1, alive: false, place: null } })
  const unknown = item({ tmux: { pane: '%4', socket: '/s', serverPid: 1, alive: null, place: null } })
  t.equal(placeLabel(ended), '%3', 'an ended session runs nowhere: the pane it ran in, no "tmux could not be asked"')
  t.equal(placeLabel(shell), 'work:2 (api)$', 'a pane that lives on at its shell: where it is, and its own mark, not "gone"')
  t.equal(placeLabel(gone), '%9✗')
  t.equal(placeLabel(unknown), '%4?')
  t.same(
    formatPlain([ended, shell, gone, unknown], 0)
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t').at(-1)),
    ['%3', 'work:2 (api)$', '%9✗', '%4?'],
    "--plain's where field carries the same marks",
  )
  const long = item({
    tmux: { pane: '%5', socket: '/s', serverPid: 1, alive: false, place: { ...place, windowName: 'a window with a long long name' } },
  })
  const row = formatTable([long], { now: 0, colour: false, width: 120 }).split('\n')[1]!
  t.match(row, /…\$ /, 'a cut WHERE keeps its mark')
  // Every mark placeParts can give is in the legend, after "After WHERE:".
  const marks = TABLE_LEGEND.split('\n').find((l) => l.startsWith('After WHERE:')) ?? ''
  for (const mark of Object.values(PLACE_MARKS)) t.match(marks, `${mark} `, `the legend explains the mark ${mark}`)
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const readmeMarks = [...readme.matchAll(/^\| `(.+?)` after WHERE \|/gm)].map((m) => m[1])
  t.same(readmeMarks.sort(), Object.values(PLACE_MARKS).sort(), "the README's table explains exactly these marks")
})

t.test('finished turns are dimmed; a seen wait that needs you is not (it still blocks), and carries ✓', async (t) => {
  const rows = [
    item({ n: 1, kind: 'question', needsYou: true, sessionId: 'q1', ask: { tool: null, input: null, message: 'Which one?' } }),
    item({ n: 2, kind: 'done', needsYou: false, sessionId: 'd1' }),
    item({ n: 3, kind: 'error', needsYou: true, seen: true, sessionId: 'e1', ask: { tool: null, input: null, message: 'API error' } }),
  ]
  const text = formatTable(rows, { now: 10, colour: true, width: 100 })
  const lines = text.trimEnd().split('\n')
  t.notOk(lines[1]?.startsWith('\u001b[2m'), 'a wait that needs you is not dimmed')
  t.ok(lines[2]?.startsWith('\u001b[2m'), 'a finished turn is dimmed')
  t.notOk(lines[3]?.startsWith('\u001b[2m'), 'a seen wait that needs you is not dimmed')
  t.match(lines[3], /error✓/)
  t.match(formatPlain(rows, 10).split('\n')[2], /\terror✓\t/)
  t.same([toJsonItem(rows[0]!).needsYou, toJsonItem(rows[1]!).needsYou, toJsonItem(rows[2]!).seen], [true, false, true])
})
