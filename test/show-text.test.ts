import t from 'tap'
import { deriveConversation } from '../lib/agents/claude-code/conversation.js'
import { formatConversation, renderToolCall } from '../lib/render/show-text.js'

t.test('tool calls as a person reads them', async (t) => {
  t.same(renderToolCall('Bash', { command: 'rm -rf build', description: 'Clean' }), ['Bash — Clean', '  $ rm -rf build'])
  const edit = renderToolCall('Edit', { file_path: '/src/a.ts', old_string: 'const a = 1\n', new_string: 'const a = 2\n' })
  t.equal(edit[0], 'Edit /src/a.ts')
  t.ok(edit.includes('  -const a = 1') && edit.includes('  +const a = 2'), 'an edit is a diff')
  t.match(edit.join('\n'), /--- \/src\/a\.ts/)
  const multi = renderToolCall('MultiEdit', { file_path: '/f', edits: [{ old_string: 'x', new_string: 'y' }, { old_string: 'p', new_string: 'q' }] })
  t.equal(multi[0], 'MultiEdit /f (2 edits)')
  t.ok(multi.includes('  -x') && multi.includes('  +q'))
  const write = renderToolCall('Write', { file_path: '/f', content: Array.from({ length: 50 }, (_, i) => `l${i}`).join('\n') })
  t.equal(write[0], 'Write /f (50 lines)')
  t.match(write.at(-1), /10 more lines/)
  t.same(renderToolCall('AskUserQuestion', { questions: [{ header: 'Colour', question: 'Which?', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue' }] }] }), [
    '[Colour] Which?',
    '  1. Red — warm',
    '  2. Blue',
  ])
  t.same(renderToolCall('WebFetch', { url: 'https://x' }), ['WebFetch', '  {', '    "url": "https://x"', '  }'])
  t.match(renderToolCall('Bash', '{"command":"aaa…[truncated]').join('\n'), /input truncated/)
})

t.test('conversation lines', async (t) => {
  const lines = deriveConversation([
    { type: 'user', message: { content: 'hello' } },
    { type: 'assistant', message: { content: [{ type: 'text', text: 'Hi.\nWhat now?' }, { type: 'tool_use', name: 'Bash', input: { command: 'ls' } }] } },
    { type: 'user', message: { content: [{ type: 'tool_result', content: 'nope', is_error: true }] } },
  ])
  t.same(lines.map((l) => l.who), ['you', 'agent', 'tool', 'result'])
  t.same(formatConversation(lines), ['❯ hello', '● Hi.', '  What now?', '⚙ Bash {"command":"ls"}', '⎿ error: nope'])
})
