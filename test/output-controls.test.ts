// Property: no human-facing output of any command carries a raw control character, whatever
// text payloads and transcript lines hold (fast-check, in-process over every formatter the
// commands print with; test/terminal-control.test.ts runs the built CLI on crafted cases).
import fc from 'fast-check'
import t from 'tap'
import { deriveConversation } from '../lib/agents/claude-code/conversation.js'
import type { TranscriptEntry } from '../lib/agents/claude-code/transcript.js'
import { describeItem } from '../lib/navigate/describe-item.js'
import { formatShow } from '../lib/commands/show.js'
import { checkRecords, checkSessions, deriveReport, formatReport } from '../lib/doctor/checks.js'
import { formatError, TrailbossError } from '../lib/errors.js'
import { formatNotice } from '../lib/notify/channels.js'
import type { QueueItem } from '../lib/queue/derive.js'
import type { SessionRecord } from '../lib/record/types.js'
import { formatPlain, formatTable, toJsonItem } from '../lib/render/queue-table.js'
import { deriveSummary, formatSegment } from '../lib/render/status-segment.js'
import { formatChanges, formatWatchScreen } from '../lib/render/watch-screen.js'

/** Our own styling (the table's palette, bold, dim, reset): the only escapes we may write. */
const OWN_STYLES = /\x1b\[(?:0|1|2|3[1-6])m/g
/** What a terminal would act on or hide (joiners are kept inside emoji and joining scripts). Tabs separate --plain fields; newlines end lines. */
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029]|\p{Cs}/u

const hostileText = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.string({
      unit: fc.constantFrom(
        '\x1b',
        '[',
        ']',
        '2',
        'K',
        ';',
        '\x07',
        '\r',
        '\n',
        '\t',
        '\x00',
        '\x7f',
        '\u009b',
        '\u0085',
        '\u202e',
        '\u2066',
        '\u200b',
        '\ufeff',
        '\u2028',
        '\ud800',
        'a',
        ' ',
        '#',
        '日',
        '😀',
        '\u200d',
      ),
    }),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'echo harmless\r\x1b[K',
      '\x1b]52;c;cm0gLXJmIH4K\x07',
      '\x1b]0;owned\x1b\\',
      '\x1bP+q\x1b\\',
      '\u202egnirts',
    ),
  },
)

const NOW = Date.UTC(2026, 0, 1)

const anItem = fc
  .record({
    n: fc.option(fc.integer({ min: 1, max: 99 }), { nil: null }),
    state: fc.constantFrom('permission', 'waiting', 'working', 'idle', 'ended', 'gone'),
    kind: fc.constantFrom('permission', 'question', 'done', 'error', 'interrupted', null),
    project: fc.option(hostileText, { nil: null }),
    cwd: fc.option(hostileText, { nil: null }),
    host: hostileText,
    reason: fc.option(hostileText, { nil: null }),
    tool: fc.option(fc.constantFrom('Bash', 'Edit', 'Write', 'AskUserQuestion', 'mcp__x\x1b[2J'), { nil: null }),
    input: hostileText,
    message: fc.option(hostileText, { nil: null }),
    socket: hostileText,
    transcriptPath: fc.option(hostileText, { nil: null }),
    pane: fc.boolean(),
    inferred: fc.boolean(),
  })
  .map((r) => {
    const input =
      r.tool === 'Edit'
        ? { file_path: r.input, old_string: r.input, new_string: `${r.input}x` }
        : r.tool === 'AskUserQuestion'
          ? { questions: [{ question: r.input, header: r.input, options: [{ label: r.input, description: r.input }] }] }
          : { command: r.input, description: r.input, content: r.input }
    const record = {
      transcriptPath: r.transcriptPath,
      promptId: 'p1',
      lastEventAt: NOW - 5000,
      sessionId: 'abcdefgh-1',
      cwd: r.cwd,
      project: r.project,
      state: r.state,
      tmux: null,
    } as unknown as SessionRecord
    return {
      n: r.n,
      key: 'abcdefgh',
      sessionId: 'abcdefgh-1',
      agent: 'claude-code',
      state: r.state,
      kind: r.kind,
      since: NOW - 65_000,
      cwd: r.cwd,
      project: r.project,
      host: r.host,
      headless: false,
      tmux: r.pane ? { pane: '%3', socket: r.socket, serverPid: 1, alive: true } : null,
      inferred: r.inferred,
      reason: r.reason,
      ask: { tool: r.tool, input: r.tool ? input : null, message: r.message },
      record,
    } as unknown as QueueItem
  })

const anEntry: fc.Arbitrary<TranscriptEntry> = fc
  .tuple(fc.constantFrom('user', 'assistant'), hostileText, fc.constantFrom('text', 'tool_use', 'tool_result', 'string'))
  .map(
    ([type, text, part]) =>
      ({
        type,
        timestamp: new Date(NOW).toISOString(),
        message: {
          role: type,
          content:
            part === 'string'
              ? text
              : [
                  part === 'text'
                    ? { type: 'text', text }
                    : part === 'tool_use'
                      ? { type: 'tool_use', name: text, input: { command: text } }
                      : { type: 'tool_result', content: text, is_error: false },
                ],
        },
      }) as unknown as TranscriptEntry,
  )

const rawIn = (label: string, text: string): string | null => {
  const m = RAW.exec(text.replace(OWN_STYLES, ''))
  return m ? `${label}: ${JSON.stringify(m[0])} in ${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}` : null
}

/** Every human-facing text the commands print for these items. */
const outputs = (items: QueueItem[], entries: TranscriptEntry[], screen: string, word: string): [string, string][] => {
  const first = items[0]!
  const records = items.map((i) => i.record)
  const summary = deriveSummary(items, NOW)
  return [
    ['ls table', formatTable(items, { now: NOW, colour: false, width: 100 })],
    ['ls table, colour', formatTable(items, { now: NOW, colour: true, width: 100 })],
    ['ls --plain', formatPlain(items, NOW).replaceAll('\t', ' ')],
    ['show', formatShow(first, deriveConversation(entries), screen, NOW)],
    [
      'watch screen',
      formatWatchScreen({
        items,
        selected: first.sessionId,
        now: NOW,
        width: 100,
        height: 60,
        details: true,
        colour: true,
        message: `went to ${describeItem(first)}`,
        tmuxAvailable: true,
        digits: '',
      }).join('\n'),
    ],
    ['watch log', formatChanges(new Map(), items, NOW).join('\n')],
    ['status', formatSegment(summary)],
    ['status --tmux', formatSegment(summary, undefined, { tmux: true })],
    ['notify title', formatNotice(items).title],
    ['notify body', formatNotice(items).body],
    ['notify line', formatNotice(items).line],
    ['go/send line', `trailboss: going to ${describeItem(first)}`],
    ['error line', formatError(new TrailbossError(`not sending to ${describeItem(first)}: ${word}`, word))],
    ['plain error', formatError(new Error(word))],
    [
      'doctor',
      formatReport(
        deriveReport([...checkRecords(records.length, [{ file: word, why: word }], [word]), ...checkSessions(records, new Map(), NOW)]),
        true,
      ),
    ],
  ]
}

t.test('no human-facing output carries a raw control character', async (t) => {
  let checked = 0
  fc.assert(
    fc.property(
      fc.array(anItem, { minLength: 1, maxLength: 4 }),
      fc.array(anEntry, { maxLength: 4 }),
      hostileText,
      hostileText,
      (items, entries, screen, word) => {
        for (const [label, text] of outputs(items, entries, screen, word)) {
          const found = rawIn(label, text)
          if (found) throw new Error(found)
          checked++
        }
      },
    ),
    { numRuns: 400 },
  )
  t.ok(checked >= 400 * 15, `${checked} outputs checked`)
})

t.test('--json keeps the text exactly', async (t) => {
  fc.assert(
    fc.property(anItem, (item) => {
      const json = JSON.parse(JSON.stringify(toJsonItem(item))) as ReturnType<typeof toJsonItem>
      return json.project === item.project && json.cwd === item.cwd && JSON.stringify(json.ask) === JSON.stringify(item.ask)
    }),
    { numRuns: 300 },
  )
  t.pass('300 items')
})
