import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { deriveGeminiConversation } from '../lib/agents/gemini/conversation.js'
import {
  CANCELLED_TEXT,
  deriveChatVerdict,
  isTypedPrompt,
  liveRecords,
  parseChatLines,
  readChatTail,
  type ChatLine,
} from '../lib/agents/gemini/transcript.js'
import { gemini } from '../lib/agents/gemini/index.js'
import { sessionRecord } from './helpers/session-record.js'
import { findChatFile, isReadableChatPath, parseProjectShortName, pickChatFile } from '../lib/agents/gemini/paths.js'

const FIXTURES = new URL('./fixtures/gemini/', import.meta.url)
const chatNames = readdirSync(new URL('chats/', FIXTURES)).sort()
const chatText = (i: number): string => readFileSync(new URL(`chats/${chatNames[i]}`, FIXTURES), 'utf8')
const chatLines = (i: number): ChatLine[] => parseChatLines(chatText(i), true)
const at = (iso: string): number => Date.parse(iso)

/** The chat file as it was when a line holding `marker` had just been written (the state at a hook). */
const upTo = (text: string, marker: string, nth = 1): ChatLine[] => {
  const lines = text.split('\n')
  let seen = 0
  const end = lines.findIndex((l) => l.includes(marker) && ++seen === nth)
  if (end < 0) throw new Error(`no ${marker}`)
  return parseChatLines(lines.slice(0, end + 1).join('\n') + '\n', true)
}

t.test('parseChatLines keeps records and history rewrites, never parses $set lines', async (t) => {
  const lines = parseChatLines(
    '{"sessionId":"x"}\n{"$set":{"lastUpdated":"t"}}\n{"$set":{"messages":[]}}\n{"id":"a","type":"user","content":[{"text":"hi"}]}\nnot json\n{"id":"b","ty',
    true,
  )
  t.same(lines, [{ history: true }, { record: { id: 'a', type: 'user', content: [{ text: 'hi' }] } }])
  // A read that began mid-file drops its first (partial) line.
  t.same(parseChatLines('pe":"user"}\n{"id":"c","type":"info","content":"x"}\n', false), [
    { record: { id: 'c', type: 'info', content: 'x' } },
  ])
})

t.test('typed prompts: not the context block, not a tool result', async (t) => {
  t.ok(isTypedPrompt({ type: 'user', content: [{ text: 'PLAIN hello' }] }))
  t.notOk(isTypedPrompt({ type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.' }] }))
  t.notOk(isTypedPrompt({ type: 'user', content: [{ functionResponse: { name: 'x', response: {} } }] }))
  t.notOk(isTypedPrompt({ type: 'gemini', content: 'hi' }))
})

t.test('the history rewrite after an Esc denial is dropped', async (t) => {
  const live = liveRecords(chatLines(0))
  const prompts = live.filter(isTypedPrompt).map((r) => (r.content as { text: string }[])[0]!.text)
  // The rewrite appends "TOOL please" again after the denial; it is not a prompt of the person.
  t.same(prompts, ['PLAIN hello', 'SLOW please', 'FAIL now', 'TOOL please', 'TOOL again', 'EDIT please', 'QUESTION please'])
})

t.test('verdicts at each captured state (session A)', async (t) => {
  const text = chatText(0)
  // Cancel while streaming: AfterAgent came after the info record; the wait began then.
  const cancelled = upTo(text, CANCELLED_TEXT, 1)
  const cancelAt = at((cancelled.at(-1) as { record: { timestamp: string } }).record.timestamp)
  t.match(deriveChatVerdict(cancelled, { state: 'waiting', since: cancelAt + 5 }, 0), { verdict: 'interrupted', at: cancelAt })
  // API error: an error record in the last turn.
  const failed = upTo(text, 'This request failed')
  t.match(deriveChatVerdict(failed, { state: 'waiting', since: Date.now() }, 0), { verdict: 'error', message: /API Error/ })
  // The same error seen while the record still says working (AfterAgent not folded yet).
  t.match(deriveChatVerdict(failed, { state: 'working', since: 0 }, 0), { verdict: 'error' })
  // A finished turn: nothing to say.
  const done = upTo(text, '"All done here."')
  t.equal(deriveChatVerdict(done, { state: 'waiting', since: Date.now() }, 0), null)
  // A new prompt after a wait: the person is back.
  const next = upTo(text, '"SLOW please"')
  const doneAt = at('2026-12-01T11:09:36.000Z')
  t.match(deriveChatVerdict(next, { state: 'waiting', since: doneAt }, 0), { verdict: 'moved-on', why: 'new-prompt' })
  // Permission open: the model's record has no tool call yet; nothing decides.
  const pending = upTo(text, '"TOOL again"')
  const dialogAt = at('2026-12-01T11:09:52.500Z')
  t.equal(deriveChatVerdict(pending, { state: 'permission', since: dialogAt }, 0), null)
  // Approved: the tool's result comes after the dialog opened.
  const approved = upTo(text, '"type":"user","content":[{"functionResponse"', 1)
  t.match(deriveChatVerdict(approved, { state: 'permission', since: at('2026-12-01T11:09:44.000Z') }, 0), {
    verdict: 'moved-on',
    why: 'tool-answered',
  })
  // Denied with Esc: no hook; the chat says cancelled, and the rewrite after it is not a new prompt.
  t.match(deriveChatVerdict(upTo(text, CANCELLED_TEXT, 2), { state: 'permission', since: dialogAt }, 0), { verdict: 'interrupted' })
  const afterRewrite = upTo(text, '"EDIT please"').slice(0, -1)
  t.match(deriveChatVerdict(afterRewrite, { state: 'permission', since: dialogAt }, 0), { verdict: 'interrupted' })
})

t.test('a working session: its own prompt is not the person coming back', async (t) => {
  const lines = upTo(chatText(0), '"PLAIN hello"')
  t.equal(deriveChatVerdict(lines, { state: 'working', since: 0 }, 0), null)
})

t.test('conversation lines for show', async (t) => {
  const conv = deriveGeminiConversation(chatLines(0))
  t.same(
    conv.filter((l) => l.who === 'you').map((l) => l.text),
    ['PLAIN hello', 'SLOW please', 'FAIL now', 'TOOL please', 'TOOL again', 'EDIT please', 'QUESTION please'],
  )
  t.ok(conv.some((l) => l.who === 'agent' && l.text.startsWith('error: [API Error')))
  t.ok(conv.some((l) => l.who === 'tool' && l.text.startsWith('run_shell_command {"command":"touch')))
  t.ok(conv.some((l) => l.who === 'result' && l.text === 'cancelled'))
  t.equal(conv.at(-1)?.text, 'Done. Should I also update the docs?')
  // A tool call written twice under one id (pending, then with its status) is one call.
  t.equal(conv.filter((l) => l.who === 'tool').length, 3)
})

t.test('reading the tail of a chat file', async (t) => {
  const dir = t.testdir({ 'c.jsonl': chatText(0) })
  const all = readChatTail(join(dir, 'c.jsonl'))
  t.same(all, chatLines(0))
  const tail = readChatTail(join(dir, 'c.jsonl'), 2000)
  t.ok(tail && tail.length > 0 && tail.length < all!.length)
  t.equal(readChatTail(join(dir, 'missing.jsonl')), null)
})

t.test('paths: a chat file is read only under Gemini CLI tmp/*/chats', async (t) => {
  const env = { HOME: '/home/u' }
  t.ok(isReadableChatPath('/home/u/.gemini/tmp/proj/chats/session-x.jsonl', env))
  t.ok(isReadableChatPath('/g/.gemini/tmp/proj/chats/session-x.jsonl', { HOME: '/home/u', GEMINI_CLI_HOME: '/g' }))
  t.notOk(isReadableChatPath('/home/u/.gemini/tmp/proj/chats/../../../../etc/x.jsonl', env))
  t.notOk(isReadableChatPath('/home/u/.gemini/tmp/proj/logs.jsonl', env))
  t.notOk(isReadableChatPath('/etc/passwd', env))
  t.notOk(isReadableChatPath(42, env))
})

t.test('paths: the chat file by projects.json when transcript_path is of no use', async (t) => {
  t.equal(parseProjectShortName(readFileSync(new URL('projects.json', FIXTURES), 'utf8'), '/home/dev/gprobe/work/proj'), 'proj')
  t.equal(parseProjectShortName('{"projects":{"/w":"../x"}}', '/w'), null)
  t.equal(parseProjectShortName('not json', '/w'), null)
  t.equal(
    pickChatFile(['session-2026-12-01T11-05-db2d2853.jsonl', 'session-2026-12-01T11-09-db2d2853.jsonl', 'x.jsonl'], 'db2d2853-27d8'),
    'session-2026-12-01T11-09-db2d2853.jsonl',
  )
  const home = t.testdir({})
  const chats = join(home, '.gemini', 'tmp', 'proj', 'chats')
  mkdirSync(chats, { recursive: true })
  writeFileSync(join(chats, chatNames[0]!), chatText(0))
  writeFileSync(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { '/w/proj': 'proj' } }))
  const id = chatNames[0]!.slice(-14, -6)
  t.equal(findChatFile({ HOME: home }, '/w/proj', `${id}-0000`), join(chats, chatNames[0]!))
  t.equal(findChatFile({ HOME: home }, '/w/other', `${id}-0000`), null)
  // What watch watches: the payload's path where it is a chat file, else the one found the same way.
  const rec = (transcriptPath: string | null, cwd: string) =>
    sessionRecord({ agent: 'gemini', sessionId: `${id}-0000`, cwd, transcriptPath })
  t.equal(
    gemini.watchedFile(rec(join(chats, 'other.jsonl'), '/w/other'), { HOME: home }),
    join(chats, 'other.jsonl'),
    'a readable transcript_path as it is',
  )
  t.equal(
    gemini.watchedFile(rec('/etc/x.jsonl', '/w/proj'), { HOME: home }),
    join(chats, chatNames[0]!),
    'else the chat file of its project',
  )
  t.equal(gemini.watchedFile(rec(null, '/w/other'), { HOME: home }), null)

  // projects.json as a FIFO: refused at once. A blocking read would wait for this writer and
  // then find the chat file through what it writes.
  const projects = join(home, '.gemini', 'projects.json')
  rmSync(projects)
  execFileSync('mkfifo', ['-m', '600', projects])
  const writer = spawn('sh', ['-c', `sleep 1; printf '%s' '${JSON.stringify({ projects: { '/w/proj': 'proj' } })}' > '${projects}'`], {
    stdio: 'ignore',
  })
  t.teardown(() => writer.kill('SIGKILL'))
  t.equal(findChatFile({ HOME: home }, '/w/proj', `${id}-0000`), null, 'a FIFO in place of projects.json is not read')
})
