import t from 'tap'
import { isOurCommand, listEmitterFiles } from '../lib/settings/our-command.js'

const NPM = '/usr/local/lib/node_modules/trailboss/dist/hooks/emit.cjs'
const CLONE = '/home/me/src/tb/dist/hooks/emit.cjs'

t.test('isOurCommand: only the exact commands our install writes', async (t) => {
  const cases: [string, unknown, boolean, string][] = [
    ['/usr/local/bin/node', [NPM], true, 'exec form, npm prefix'],
    ['node', ['/home/me/.npm/_npx/ab12/node_modules/trailboss/dist/hooks/emit.cjs'], true, 'npx cache'],
    ['/usr/bin/node', [NPM, '--agent', 'codex'], true, 'with the agent it records for'],
    ['trailboss-emit', undefined, true, 'from PATH'],
    ['trailboss-emit --agent gemini', undefined, true, 'from PATH, with its agent'],
    ['trailboss-emit', [], true, 'an empty args list'],
    ['trailboss-emit', ['--agent', 'codex'], true, 'from PATH in exec form, with its agent'],
    ['trailboss-emit', ['--other'], false, 'from PATH with other arguments'],
    ['node', ['/home/me/src/trailboss-slack/dist/hooks/emit.cjs'], false, 'another package whose name contains ours'],
    ['node', ['/opt/x/node_modules/trailboss-slack/dist/hooks/emit.cjs'], false, 'an npm package whose name starts with ours'],
    ['node /home/me/src/trailboss-slack/dist/hooks/emit.cjs', undefined, false, 'the same as one string'],
    [`node ${NPM}`, undefined, false, 'one string: never what install writes'],
    ['python3 /opt/tools/trailboss-emit', undefined, false, 'another program named like our bin'],
    ['/opt/tools/trailboss-emit', undefined, false, 'a bin of our name elsewhere'],
    ['python3', [NPM], false, 'our file run by something else'],
    ['/usr/bin/node', [NPM, '--flag'], false, 'extra arguments'],
    ['/usr/bin/node', [NPM, '--agent', '../x'], false, 'an agent id that is no id'],
    ['trailboss-emit --other-tool', undefined, false, 'trailboss-emit with other arguments'],
    ['trailboss-emit; rm -rf x', undefined, false, 'a longer shell line'],
    ['echo trailboss-emit', undefined, false, 'a command naming us'],
    ['trailboss-emitter', undefined, false, 'a similar name'],
    ['/usr/bin/node', [CLONE], false, 'a clone in a folder of another name is unknown…'],
  ]
  for (const [command, args, want, why] of cases) t.equal(isOurCommand(command, args), want, why)
  t.ok(isOurCommand('/usr/bin/node', [CLONE], [CLONE]), '…unless it is known to be ours')
  t.notOk(isOurCommand(42, undefined))
  t.notOk(isOurCommand('trailboss-emit', 'x'), 'args that are not a list')
})

t.test('listEmitterFiles: the emitter files a check on disk must decide', async (t) => {
  const settings = {
    hooks: {
      Stop: [
        {
          hooks: [
            { command: 'node', args: [CLONE] },
            { command: 'node', args: [NPM] },
            { command: 'say done' },
            { command: 'node', args: ['/x/index.js'] },
            null,
          ],
        },
      ],
      Other: [{ command: 'node', args: [CLONE] }],
    },
  }
  t.same(listEmitterFiles(settings), [CLONE], "once each, wherever an agent's file keeps them; npm paths need no check")
})
