// Each agent's tool calls, with inputs as they were captured, rendered the one way every place
// prints them (lib/render/tool-call.ts). Sources: test/fixtures/transcripts (Claude Code),
// test/fixtures/codex/hooks.jsonl and rollouts/ (Codex 0.171.0), test/fixtures/gemini/hooks*.jsonl
// and chats/ (Gemini CLI 0.61.0).
import t from 'tap'
import { renderToolCall, summarizeToolCall } from '../lib/render/tool-call.js'

const codexQuestion = {
  questions: [
    {
      id: 'color',
      header: 'Color',
      question: 'Which color should the marker be?',
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
    },
  ],
}
const geminiQuestion = {
  questions: [
    {
      question: 'Which colour should the button be?',
      header: 'Colour',
      type: 'choice',
      options: [
        { label: 'Red', description: 'A red button' },
        { label: 'Blue', description: 'A blue button' },
      ],
    },
  ],
}
const claudeQuestion = {
  questions: [
    {
      question: 'Which colour should the button be?',
      header: 'Colour',
      multiSelect: false,
      options: [
        { label: 'Red', description: 'A red button' },
        { label: 'Blue', description: 'A blue button' },
      ],
    },
  ],
}

const cases: [string, string, unknown, string[]][] = [
  [
    'claude Bash',
    'Bash',
    { command: 'touch /home/dev/probe/x', description: 'Create probe file' },
    ['Bash — Create probe file', '  $ touch /home/dev/probe/x'],
  ],
  [
    'claude AskUserQuestion',
    'AskUserQuestion',
    claudeQuestion,
    ['[Colour] Which colour should the button be?', '  1. Red — A red button', '  2. Blue — A blue button'],
  ],
  [
    'claude Agent',
    'Agent',
    { description: 'Probe subagent', prompt: 'Say hello and stop.', subagent_type: 'general-purpose' },
    ['Agent', '  description: Probe subagent', '  prompt: Say hello and stop.', '  subagent_type: general-purpose'],
  ],
  [
    'codex hook Bash',
    'Bash',
    { command: 'touch /ROOT/scratch/codex-perm-3', description: 'write the marker file outside the workspace' },
    ['Bash — write the marker file outside the workspace', '  $ touch /ROOT/scratch/codex-perm-3'],
  ],
  [
    'codex hook question',
    'request_user_input',
    codexQuestion,
    ['[Color] Which color should the marker be?', '  1. Red — warm', '  2. Blue — cool'],
  ],
  [
    'codex rollout exec_command',
    'exec_command',
    {
      cmd: 'touch /ROOT/scratch/codex-perm-3',
      sandbox_permissions: 'require_escalated',
      justification: 'write the marker file outside the workspace',
    },
    ['exec_command — write the marker file outside the workspace', '  $ touch /ROOT/scratch/codex-perm-3'],
  ],
  [
    'codex rollout exec_command, plain',
    'exec_command',
    { cmd: 'echo probe > probe-out.txt' },
    ['exec_command', '  $ echo probe > probe-out.txt'],
  ],
  [
    'gemini run_shell_command',
    'run_shell_command',
    { command: 'touch /home/dev/gprobe/scratch/g8', description: 'Create a test file' },
    ['run_shell_command — Create a test file', '  $ touch /home/dev/gprobe/scratch/g8'],
  ],
  [
    'gemini write_file',
    'write_file',
    { file_path: 'note13.txt', content: 'hello from the mock\n' },
    ['write_file note13.txt (1 line)', '  +hello from the mock'],
  ],
  [
    'gemini ask_user',
    'ask_user',
    geminiQuestion,
    ['[Colour] Which colour should the button be?', '  1. Red — A red button', '  2. Blue — A blue button'],
  ],
  [
    'gemini ask_user, yes or no',
    'ask_user',
    { questions: [{ question: 'Go on?', header: 'Go', type: 'yesno' }] },
    ['[Go] Go on? (yes or no)'],
  ],
]

t.test('every agent’s tool calls render by their shape', async (t) => {
  for (const [name, tool, input, want] of cases) t.same(renderToolCall(tool, input), want, name)
})

t.test('edits are diffs, whichever agent asks', async (t) => {
  const gemini = renderToolCall('replace', {
    file_path: '/w/a.ts',
    old_string: 'colour',
    new_string: 'color',
    instruction: 'spell it',
    allow_multiple: true,
  })
  t.equal(gemini[0], 'replace /w/a.ts (all occurrences)')
  t.ok(gemini.includes('  -colour') && gemini.includes('  +color'), "Gemini CLI's replace is a diff")
  const claude = renderToolCall('Edit', { file_path: '/w/a.ts', old_string: 'colour', new_string: 'color' })
  t.same(claude.slice(1), gemini.slice(1), 'the same diff as Claude Code’s Edit')
})

const summaries: [string, string, unknown, string][] = [
  ['claude Bash', 'Bash', { command: 'npm test', description: 'Run the tests' }, 'Bash: npm test'],
  ['codex question', 'request_user_input', codexQuestion, 'request_user_input: Which color should the marker be?'],
  ['codex exec_command', 'exec_command', { cmd: 'touch x', justification: 'write it' }, 'exec_command: touch x'],
  ['gemini write_file', 'write_file', { file_path: 'note13.txt', content: 'hello' }, 'write_file: note13.txt'],
  ['gemini ask_user', 'ask_user', geminiQuestion, 'ask_user: Which colour should the button be?'],
  ['no detail', 'Noop', {}, 'Noop: {}'],
  ['a capped input', 'Bash', '{"command":"x…[truncated]', 'Bash: {"command":"x…[truncated]'],
]

t.test('one line of a tool call', async (t) => {
  for (const [name, tool, input, want] of summaries) t.equal(summarizeToolCall(tool, input), want, name)
})
