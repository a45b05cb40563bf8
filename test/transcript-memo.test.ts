// Transcript verdicts remembered between runs (transcripts.json): a run takes a remembered
// verdict only while the transcript's stamp and the record's inputs are unchanged; any append to
// the transcript is read at once; a transcript changed within the settled guard is not
// remembered; a corrupt or foreign memo is none. The built CLI over records of the real emitter,
// real transcripts and a real tmux server on a private socket.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { isSettled } from '../lib/fs/file-stamp.js'
import {
  formatTranscriptMemo,
  parseTranscriptMemo,
  sameMemoEntries,
  TRANSCRIPT_MEMO_VERSION,
  type TranscriptMemoEntry,
} from '../lib/queue/transcript-memo.js'
import { runCli } from './helpers/cli.js'
import { line, startLab, type Lab } from './helpers/session-lab.js'
import { waitFor } from './helpers/wait-for.js'

interface Item {
  sessionId: string
  state: string
  kind: string | null
}

const lsJson = async (lab: Lab): Promise<Item[]> => {
  const r = await runCli(['ls', '--json', '--all'], lab.env)
  if (r.code !== 0) throw new Error(`ls exited ${r.code}: ${r.stderr}`)
  return (JSON.parse(r.stdout) as { queue: Item[] }).queue
}

t.test('pure parts: what a memo file may hold', async (t) => {
  const entry: TranscriptMemoEntry = { r: '["claude-code"]', f: '1:2:3:4:5', v: { verdict: 'interrupted', at: 7 } }
  const text = formatTranscriptMemo(new Map([['a', entry]]))
  t.same(parseTranscriptMemo(text).get('a'), entry, 'read back as written')
  t.same(
    [...parseTranscriptMemo(JSON.stringify({ v: TRANSCRIPT_MEMO_VERSION + 1, entries: { a: entry } })).keys()],
    [],
    'another version is none',
  )
  t.same([...parseTranscriptMemo('{"v":1,"entr').keys()], [], 'a torn file is none')
  const odd = {
    v: TRANSCRIPT_MEMO_VERSION,
    entries: {
      a: entry,
      b: { r: 'x', f: 'y', v: { verdict: 'sleeping', at: 1 } },
      c: { r: 1, f: 'y', v: null },
      d: { r: 'x', f: 'y', v: { verdict: 'moved-on', at: 1, why: 'because' } },
      e: { r: 'x', f: 'y', v: null },
    },
  }
  t.same([...parseTranscriptMemo(JSON.stringify(odd)).keys()], [], 'a memo with entries of the wrong shape is none')
  t.same(
    [...parseTranscriptMemo(JSON.stringify({ v: TRANSCRIPT_MEMO_VERSION, entries: { a: entry, e: odd.entries.e } })).keys()],
    ['a', 'e'],
  )
  t.ok(sameMemoEntries(new Map([['a', entry]]), new Map([['a', { ...entry }]])))
  t.notOk(sameMemoEntries(new Map([['a', entry]]), new Map([['a', { ...entry, f: 'other' }]])), 'a new stamp is a change')
  t.notOk(sameMemoEntries(new Map([['a', entry]]), new Map()), 'a session gone is a change')
})

t.test('ls remembers a verdict by the transcript and the record it came from', async (t) => {
  const lab = startLab(t.testdir())
  t.teardown(lab.close)
  const pane = lab.newPane()
  const id = 'aaaaaaaa-1'
  lab.appendTranscript(id, line.prompt('pa', 'hello'), line.assistant('Shall I go on?'))
  await lab.emit(id, 'Stop', { prompt_id: 'pa', last_assistant_message: 'Shall I go on?' }, { pane })
  const memoFile = join(lab.env.TRAILBOSS_HOME!, 'transcripts.json')
  const entries = (): Record<string, TranscriptMemoEntry> =>
    (JSON.parse(fs.readFileSync(memoFile, 'utf8')) as { entries: Record<string, TranscriptMemoEntry> }).entries

  // Settled: its ctime is older than the guard, so this run may remember what it read.
  await waitFor(() => isSettled(fs.statSync(lab.transcript(id), { bigint: true }).ctimeNs, Date.now()), 'the transcript settled', 10_000)
  t.match(await lsJson(lab), [{ sessionId: id, state: 'waiting' }])
  t.equal(entries()[id]?.v, null, 'the verdict (nothing since the wait began) is remembered')
  t.equal(fs.statSync(memoFile).mode & 0o777, 0o600, 'the memo is 0600')

  // What the memo holds is what the next run takes, while nothing changed.
  const planted = { ...entries()[id]!, v: { verdict: 'interrupted', at: Date.now() } }
  fs.writeFileSync(memoFile, JSON.stringify({ v: TRANSCRIPT_MEMO_VERSION, entries: { [id]: planted } }), { mode: 0o600 })
  t.match(
    await lsJson(lab),
    [{ sessionId: id, state: 'waiting', kind: 'interrupted' }],
    'the remembered verdict was used: the transcript was not read',
  )

  // A new prompt in the transcript (no hook told of it): read at once, the planted verdict gone.
  lab.appendTranscript(id, line.system(), line.prompt('pa2', 'next'))
  t.match(await lsJson(lab), [{ sessionId: id, state: 'working' }], 'the appended prompt is seen on the next run')
  t.equal(entries()[id], undefined, 'a transcript changed within the guard is not remembered')

  // A corrupt memo is none: the same answer as without one.
  fs.writeFileSync(memoFile, '{"v":1,"entries":{"aaaa', { mode: 0o600 })
  t.match(await lsJson(lab), [{ sessionId: id, state: 'working' }])
})
