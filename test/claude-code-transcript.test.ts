import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import {
  deriveTranscriptVerdict,
  mayBeUserLine,
  parseTranscriptLines,
  readTranscriptAfter,
  readTranscriptTail,
  TRANSCRIPT_READ_CAP,
  type TranscriptEntry,
} from '../lib/agents/claude-code/transcript.js'

const fixture = (name: string): string => fs.readFileSync(new URL(`./fixtures/transcripts/${name}`, import.meta.url), 'utf8')

const entries = (text: string): TranscriptEntry[] => parseTranscriptLines(text, true)
const NOW = 0

t.test('the real approve-then-deny transcript', async (t) => {
  const all = entries(fixture('interactive-text-permission-approve-deny.jsonl'))
  const toolUses = all.flatMap((e, i) =>
    e.type === 'assistant' && JSON.stringify(e.message?.content).includes('"type":"tool_use"') ? [i] : [],
  )
  t.equal(toolUses.length, 2, 'two permission dialogs: approved, then denied')
  const [approvedAt = 0, deniedAt = 0] = toolUses
  const promptOf = (i: number): string =>
    String(
      all
        .slice(0, i)
        .filter((e) => typeof e.promptId === 'string')
        .pop()?.promptId,
    )
  // What the transcript holds after each dialog opened (the hooks' offset is at the tool_use).
  const turnEnd = all.findIndex((e, i) => i > approvedAt && e.type === 'system')
  const approved = deriveTranscriptVerdict(
    all.slice(approvedAt + 1, turnEnd),
    { promptId: promptOf(approvedAt), pendingToolUseId: null, permission: true },
    NOW,
  )
  t.same(approved && [approved.verdict, approved.verdict === 'moved-on' && approved.why], ['moved-on', 'tool-answered'], 'approved')
  const denied = deriveTranscriptVerdict(
    all.slice(deniedAt + 1),
    { promptId: promptOf(deniedAt), pendingToolUseId: null, permission: true },
    NOW,
  )
  t.equal(denied?.verdict, 'interrupted', 'a denial: error tool_result then the interrupt line')
  t.equal(denied?.at, Date.parse('2026-11-30T12:57:16.921Z'), 'dated by the interrupt line')
  // The Stop of the first turn: the next typed prompt means the person came back.
  const firstStopPrompt = String(all.find((e) => typeof e.promptId === 'string')?.promptId)
  const next = deriveTranscriptVerdict(
    all.slice(all.findIndex((e) => e.promptId === firstStopPrompt) + 1),
    { promptId: firstStopPrompt, pendingToolUseId: null, permission: false },
    NOW,
  )
  t.equal(next?.verdict, 'interrupted', 'the last decisive line of the whole file is the denial')
})

t.test('decisive lines, last one wins', async (t) => {
  const u = (promptId: string, content: unknown, extra = {}) => ({
    type: 'user',
    promptId,
    timestamp: '2026-01-01T00:00:01Z',
    message: { role: 'user', content },
    ...extra,
  })
  const interrupt = u('p1', [{ type: 'text', text: '[Request interrupted by user]' }])
  const newPrompt = u('p2', 'next please')
  const meta = u('p9', 'caveat', { isMeta: true })
  const result = (id: string, isError: boolean) => u('p1', [{ type: 'tool_result', tool_use_id: id, content: 'x', is_error: isError }])
  const wait = { promptId: 'p1', pendingToolUseId: 'tu1', permission: true }
  const cases: [string, object[], string | null][] = [
    ['nothing after the wait', [], null],
    ['same prompt again (first-turn lag)', [u('p1', 'hello')], null],
    ['meta lines do not count', [meta], null],
    ['a new prompt', [newPrompt], 'moved-on'],
    ['an interrupt', [interrupt], 'interrupted'],
    ['interrupt then a new prompt', [interrupt, newPrompt], 'moved-on'],
    ['approved', [result('tu1', false)], 'moved-on'],
    ['another tool answered', [result('tu2', false)], null],
    ['denied', [result('tu1', true), interrupt], 'interrupted'],
    ['failed after approval', [result('tu1', true)], 'moved-on'],
    ['assistant and system lines', [{ type: 'assistant', message: { content: [] } }, { type: 'system' }], null],
  ]
  for (const [name, lines, verdict] of cases)
    t.equal(deriveTranscriptVerdict(lines as TranscriptEntry[], wait, NOW)?.verdict ?? null, verdict, name)
  t.equal(
    deriveTranscriptVerdict([result('tu1', false)] as TranscriptEntry[], { ...wait, permission: false }, NOW),
    null,
    'tool results decide only permission waits',
  )
})

t.test('reading after an offset', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 't.jsonl')
  const a = JSON.stringify({ type: 'user', promptId: 'a', message: { content: 'one' } })
  const b = JSON.stringify({ type: 'user', promptId: 'b', message: { content: 'two' } })
  fs.writeFileSync(file, `${a}\n`)
  const offset = fs.statSync(file).size
  fs.appendFileSync(file, `${b}\n{"type":"user","promptId":"c","mess`)
  const got = readTranscriptAfter(file, offset)
  t.same(
    got?.map((e) => e.promptId),
    ['b'],
    'only after the offset; the partial last line is ignored',
  )
  t.same(
    readTranscriptAfter(file, null)?.map((e) => e.promptId),
    ['a', 'b'],
    'no offset: from the start',
  )
  t.same(
    readTranscriptAfter(file, 10_000)?.map((e) => e.promptId),
    ['a', 'b'],
    'an offset past the end (rewritten file): its end is read',
  )
  t.equal(readTranscriptAfter(join(dir, 'missing.jsonl'), 0), null, 'a missing transcript')
  t.same(
    readTranscriptTail(file, 1)?.map((e) => e.promptId),
    ['b'],
  )
})

t.test('a huge transcript is read only at its end', async (t) => {
  const file = join(t.testdir(), 'big.jsonl')
  // A sparse 100 MB file: the cost must not depend on it.
  const fd = fs.openSync(file, 'w')
  fs.ftruncateSync(fd, 100 * 1024 * 1024)
  fs.closeSync(fd)
  fs.appendFileSync(file, `\n${JSON.stringify({ type: 'user', promptId: 'z', message: { content: 'late' } })}\n`)
  const started = process.hrtime.bigint()
  const got = readTranscriptAfter(file, 0)
  t.same(
    got?.map((e) => e.promptId),
    ['z'],
  )
  t.ok(TRANSCRIPT_READ_CAP <= 1024 * 1024)
  t.comment(`read ${Number(process.hrtime.bigint() - started) / 1e6} ms`)
})

t.test('mayBeUserLine: skipping the other lines never changes a verdict (every fixture, every start)', async (t) => {
  let checked = 0
  const differ: string[] = []
  for (const name of fs.readdirSync(new URL('./fixtures/transcripts/', import.meta.url)).filter((n) => n.endsWith('.jsonl'))) {
    const text = fixture(name)
    const all = entries(text)
    const prompts = [null, ...new Set(all.map((e) => e.promptId).filter((p): p is string => typeof p === 'string'))]
    const toolIds = [
      null,
      ...all.flatMap((e) =>
        (Array.isArray(e.message?.content) ? e.message.content : [])
          .filter((p: { type?: string }) => p.type === 'tool_use')
          .map((p: { id: string }) => p.id),
      ),
    ]
    // Every line boundary as the offset a hook recorded.
    for (let at = 0; at < text.length; at = text.indexOf('\n', at) + 1 || text.length) {
      const kept = parseTranscriptLines(text.slice(at), true, mayBeUserLine)
      const whole = parseTranscriptLines(text.slice(at), true)
      if (kept.length > whole.length) differ.push(`${name}@${at}: more lines kept than read`)
      for (const promptId of prompts) {
        for (const pendingToolUseId of toolIds) {
          for (const permission of [false, true]) {
            const wait = { promptId, pendingToolUseId, permission }
            const a = JSON.stringify(deriveTranscriptVerdict(kept, wait, NOW))
            const b = JSON.stringify(deriveTranscriptVerdict(whole, wait, NOW))
            if (a !== b) differ.push(`${name}@${at} ${JSON.stringify(wait)}: ${a} != ${b}`)
            checked++
          }
        }
      }
    }
  }
  t.same(differ, [])
  t.ok(checked > 1000, `${checked} verdicts compared`)
})
