// Usage errors read as one line like every other error (`trailboss: what — hint`): yargs' own
// messages reworded, never a newline shown as `\n`.
import t from 'tap'
import { formatUsageFailure } from '../lib/cli/usage-failure.js'
import { runCli } from './helpers/cli.js'

t.test('yargs messages in our words', async (t) => {
  const cases: [string, string | undefined, { what: string; hint: string }][] = [
    [
      'Not enough non-option arguments: got 0, need at least 1',
      'ack',
      {
        what: 'ack needs the waits to mark seen: their queue numbers, keys or pane ids',
        hint: 'e.g. trailboss ack 2 3; trailboss ls shows the queue',
      },
    ],
    [
      'Not enough non-option arguments: got 0, need at least 1',
      'show',
      {
        what: 'show needs the wait to show: its queue number, key or pane id',
        hint: 'e.g. trailboss show 1; trailboss ls shows the queue',
      },
    ],
    [
      'Not enough non-option arguments: got 0, need at least 1',
      'hosts',
      { what: 'hosts needs an ssh destination', hint: 'e.g. trailboss hosts add devbox; trailboss hosts ls lists them' },
    ],
    [
      'Invalid values:\n  Argument: agent, Given: "nobody", Choices: "claude-code", "codex", "gemini"',
      'ls',
      { what: '--agent takes "claude-code", "codex", "gemini", not "nobody"', hint: 'see trailboss --help' },
    ],
    ['Implications failed:\n  a -> b', 'ls', { what: 'Implications failed: a -> b', hint: 'see trailboss --help' }],
    [
      'Not enough non-option arguments: got 0, need at least 1',
      'toString',
      { what: 'Not enough non-option arguments: got 0, need at least 1', hint: 'see trailboss --help' },
    ],
    ['choose one of --plain and --json', 'ls', { what: 'choose one of --plain and --json', hint: 'see trailboss --help' }],
    ['', undefined, { what: 'invalid arguments', hint: 'see trailboss --help' }],
  ]
  for (const [message, command, want] of cases) t.same(formatUsageFailure(message, command), want, `${command}: ${message}`)
})

t.test('the built CLI: one line, exit 2, no literal \\n', async (t) => {
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: t.testdir(),
    TRAILBOSS_HOME: `${t.testdirName}/tb`,
    NO_COLOR: '1',
  }
  for (const args of [['ack'], ['show'], ['ok'], ['ls', '--agent', 'nobody'], ['watch', '--agent', 'x']]) {
    const r = await runCli(args, env)
    t.equal(r.code, 2, `${args.join(' ')}: a usage error`)
    t.match(r.stderr, /^trailboss: [^\n]+ — [^\n]+\n$/, `${args.join(' ')}: one line, what — hint`)
    t.notMatch(r.stderr, /\\n|Not enough non-option arguments/, `${args.join(' ')}: no yargs text, no \\n shown`)
  }
  t.equal(
    (await runCli(['ack'], env)).stderr,
    'trailboss: ack needs the waits to mark seen: their queue numbers, keys or pane ids — e.g. trailboss ack 2 3; trailboss ls shows the queue\n',
  )
})
