import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { codexHooks } from '../lib/agents/codex/hooks.js'
import { deriveCodexConversation } from '../lib/agents/codex/conversation.js'
import { deriveGeminiConversation } from '../lib/agents/gemini/conversation.js'
import { parseChatLines } from '../lib/agents/gemini/transcript.js'
import { deriveQueue } from '../lib/queue/derive.js'
import { applyEvent } from '../lib/record/fold.js'
import { deriveConversation } from '../lib/agents/claude-code/conversation.js'
import { cutLines, formatCommandTags, formatConversation } from '../lib/render/show-text.js'
import { renderToolCall } from '../lib/render/tool-call.js'
import { askHeading, formatShow } from '../lib/commands/show.js'
import type { QueueItem } from '../lib/queue/derive.js'
import { queueItem } from './helpers/queue-item.js'
import type { SessionRecord } from '../lib/record/types.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

t.test('tool calls as a person reads them', async (t) => {
  t.same(renderToolCall('Bash', { command: 'rm -rf build', description: 'Clean' }), ['Bash — Clean', '  $ rm -rf build'])
  const edit = renderToolCall('Edit', { file_path: '/src/a.ts', old_string: 'const a = 1\n', new_string: 'const a = 2\n' })
  t.equal(edit[0], 'Edit /src/a.ts')
  t.ok(edit.includes('  -const a = 1') && edit.includes('  +const a = 2'), 'an edit is a diff')
  t.match(edit.join('\n'), /--- \/src\/a\.ts/)
  const multi = renderToolCall('MultiEdit', {
    file_path: '/f',
    edits: [
      { old_string: 'x', new_string: 'y' },
      { old_string: 'p', new_string: 'q' },
    ],
  })
  t.equal(multi[0], 'MultiEdit /f (2 edits)')
  t.ok(multi.includes('  -x') && multi.includes('  +q'))
  const write = renderToolCall('Write', { file_path: '/f', content: Array.from({ length: 50 }, (_, i) => `l${i}`).join('\n') })
  t.equal(write[0], 'Write /f (50 lines)')
  t.match(write.at(-1), /10 more lines/)
  t.same(
    renderToolCall('AskUserQuestion', {
      questions: [{ header: 'Colour', question: 'Which?', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue' }] }],
    }),
    ['[Colour] Which?', '  1. Red — warm', '  2. Blue'],
  )
  t.same(
    renderToolCall('WebFetch', { url: 'https://x', prompt: 'Sum it up' }),
    ['WebFetch', '  url: https://x', '  prompt: Sum it up'],
    'other tools: key: value',
  )
  t.same(
    renderToolCall('Shell', { command: 'touch g8', description: 'Create' }),
    ['Shell — Create', '  $ touch g8'],
    "another agent's shell reads as a command",
  )
  t.match(renderToolCall('Bash', '{"command":"aaa…[truncated]').join('\n'), /input truncated/)
})

t.test('conversation lines', async (t) => {
  const lines = deriveConversation([
    { type: 'user', message: { content: 'hello' } },
    {
      type: 'assistant',
      message: {
        content: [
          { type: 'text', text: 'Hi.\nWhat now?' },
          { type: 'tool_use', name: 'Bash', input: { command: 'ls' } },
        ],
      },
    },
    { type: 'user', message: { content: [{ type: 'tool_result', content: 'nope', is_error: true }] } },
  ])
  t.same(
    lines.map((l) => l.who),
    ['you', 'agent', 'tool', 'result'],
  )
  t.same(
    formatConversation(lines),
    ['❯ hello', '● Hi.', '  What now?', '⚙ Bash', '    $ ls', '⎿ error: nope'],
    'a tool call as the ask shows it, not its JSON',
  )
})

t.test('slash commands and long text', async (t) => {
  t.equal(
    formatCommandTags('<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>'),
    '/clear',
  )
  t.equal(
    formatCommandTags(
      '<command-message>compact</command-message>\n<command-name>/compact</command-name>\n<command-args>keep the API notes</command-args>',
    ),
    '/compact keep the API notes',
  )
  t.equal(formatCommandTags('<local-command-stdout>Compacted.</local-command-stdout>'), 'Compacted.')
  t.equal(formatCommandTags('a <b> that is not ours'), 'a <b> that is not ours')
  t.same(cutLines(['1', '2', '3'], 2), ['1', '2', '… 1 more lines (trailboss show --full)'])
  t.same(cutLines(['1', '2'], 2), ['1', '2'])
  const long = [
    { who: 'agent' as const, at: null, text: Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') },
    { who: 'you' as const, at: null, text: '<command-name>/clear</command-name><command-args></command-args>' },
  ]
  const cut = formatConversation(long, false)
  t.match(cut.join('\n'), /line 7\n {2}… 12 more lines \(trailboss show --full\)/)
  t.equal(cut.at(-1), '❯ /clear', '/clear reads as the command')
  t.equal(formatConversation(long, true).length, 21, '--full: every line')
})

const item = (over: Partial<QueueItem>): QueueItem =>
  queueItem({ record: { lastEventAt: 0, denied: null, transcriptPath: null } as unknown as SessionRecord, ...over })

t.test('show words each kind right', async (t) => {
  const bash = { tool: 'Bash', input: { command: 'rm -rf build' }, message: null }
  t.match(
    formatShow(item({ state: 'permission', kind: 'permission', ask: bash }), null, null, 0),
    /Asks to run:\n {2}Bash\n {4}\$ rm -rf build/,
  )
  const inDialog = { lastEventAt: 0, denied: null, transcriptPath: null, state: 'permission' } as unknown as SessionRecord
  const denied = formatShow(item({ state: 'waiting', kind: 'interrupted', ask: bash, record: inDialog }), null, null, 0)
  t.match(denied, /Was denied \(its dialog got a no, or Esc\):/)
  t.notMatch(denied, /Asks to run/)
  t.match(
    formatShow(item({ state: 'waiting', kind: 'interrupted', ask: bash }), null, null, 0),
    /Was stopped \(Esc, or a no in its dialog\) at:\n {2}Bash\n/,
    'a tool stopped while it ran',
  )
  t.match(
    formatShow(item({ state: 'waiting', kind: 'interrupted' }), null, null, 0),
    /\nWas stopped while writing its answer \(no tool was running\)\.\n/,
    'no tool ran',
  )
  const question = formatShow(
    item({
      state: 'permission',
      kind: 'question',
      ask: {
        tool: 'AskUserQuestion',
        input: { questions: [{ question: 'Red or blue?', options: [{ label: 'Red' }, { label: 'Blue' }] }] },
        message: null,
      },
    }),
    null,
    null,
    0,
  )
  t.match(question, /Asks you:\n {2}Red or blue\?\n {4}1\. Red\n {4}2\. Blue/, 'a question with its options')
  const done = formatShow(
    item({ ask: { tool: null, input: null, message: Array.from({ length: 40 }, (_, i) => `l${i}`).join('\n') } }),
    null,
    null,
    0,
  )
  t.match(done, /Finished with:\n {2}l0\n/)
  t.match(done, /l29\n {2}… 10 more lines \(trailboss show --full\)/, 'a long reply is cut with a marker and a hint')
  t.match(
    formatShow(
      item({ ask: { tool: null, input: null, message: Array.from({ length: 40 }, (_, i) => `l${i}`).join('\n') } }),
      null,
      null,
      0,
      true,
    ),
    /l39\n/,
    '--full shows it all',
  )
  t.equal(askHeading({ state: 'waiting', kind: 'error', record: { state: 'waiting' } }).message, 'Failed with:')
  t.equal(askHeading({ state: 'waiting', kind: 'question', record: { state: 'waiting' } }).message, 'Asks you:')
})

// Captured sessions (test/fixtures/codex, test/fixtures/gemini) as `show` prints them.
const fixture = (path: string): string => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8')
const codexHookLines = fixture('codex/hooks.jsonl')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { event?: string; ts?: number; payload?: Record<string, unknown> })

t.test('a Codex question shows its question and options, not its JSON', async (t) => {
  const at = codexHookLines.findIndex((l) => l.event === 'PreToolUse' && l.payload?.tool_name === 'request_user_input')
  const ev = codexHooks.toHookEvent(codexHookLines[at]!.payload, {
    env: { TMUX: '/s,1,0', TMUX_PANE: '%1' },
    stamp: 1,
    host: 'h',
    fileSize: () => 1,
    projectLabel: () => 'proj',
  })
  if (typeof ev === 'string') throw new Error(ev)
  const [asked] = deriveQueue([applyEvent(null, ev, hooksFor)], { transcripts: new Map(), servers: new Map(), screens: new Map() })
  const out = formatShow(asked!, null, null, 1)
  t.match(out, /Asks you:\n {2}\[Color\] Which color should the marker be\?\n {4}1\. Red — warm\n {4}2\. Blue — cool\n/)
  t.notMatch(out, /questions:|"options"/, 'no raw JSON')
})

t.test("the transcript tail shows each agent's tool calls as the ask does", async (t) => {
  const rollout = fixture('codex/rollouts/rollout-2026-12-01T11-04-51-01a23147-606d-7f30-9291-74234de135a4.jsonl')
  const codexTail = formatShow(item({ agent: 'codex' }), deriveCodexConversation(rollout), null, 0)
  t.match(
    codexTail,
    /⚙ exec_command — write the marker file outside the workspace\n {6}\$ touch \/ROOT\/scratch\/codex-perm-3\n/,
    'a command as a command',
  )
  t.match(codexTail, /⚙ \[Color\] Which color should the marker be\?\n {6}1\. Red — warm/, 'a question with its options')
  t.notMatch(codexTail, /\{"cmd"|\{"questions"/, 'no raw JSON')
  const chat = readdirSync(new URL('./fixtures/gemini/chats/', import.meta.url)).sort()[0]!
  const geminiTail = formatShow(
    item({ agent: 'gemini' }),
    deriveGeminiConversation(parseChatLines(fixture(`gemini/chats/${chat}`), true)),
    null,
    0,
  )
  t.match(geminiTail, /⚙ run_shell_command — Create a test file\n {6}\$ touch \/home\/dev\/gprobe\/scratch\/g8\n/)
  t.match(geminiTail, /⚙ write_file note13\.txt \(1 line\)\n {6}\+hello from the mock\n/)
  t.notMatch(geminiTail, /\{"command"|\{"file_path"/, 'no raw JSON')
})
