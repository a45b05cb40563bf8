// Found in issue #18: `send` without TRAILBOSS_ALLOW_SEND=1 said "Unknown arguments". Every
// command that types into a pane shares one guard that says how to turn it on.
// Run `npm run build` first: the CLI is the built one, as a person runs it.
import t from 'tap'
import { ALLOW_INPUT_ENV, inputAllowed, requireInputAllowed } from '../lib/navigate/input-guard.js'
import { TrailbossError } from '../lib/errors.js'
import { runCli } from './helpers/cli.js'
import { baseEnv, tempDir } from './helpers/emitter.js'

t.test('the guard passes only on exactly 1', async (t) => {
  t.equal(ALLOW_INPUT_ENV, 'TRAILBOSS_ALLOW_SEND')
  t.ok(inputAllowed({ TRAILBOSS_ALLOW_SEND: '1' }))
  for (const v of [undefined, '', '0', 'yes', 'true', ' 1'])
    t.notOk(inputAllowed({ TRAILBOSS_ALLOW_SEND: v }), `not with ${JSON.stringify(v)}`)
  t.doesNotThrow(() => requireInputAllowed({ TRAILBOSS_ALLOW_SEND: '1' }, 'send'))
  t.throws(() => requireInputAllowed({}, 'send'), TrailbossError)
})

t.test('send without the opt-in says how to turn it on, not "Unknown arguments"', async (t) => {
  const home = tempDir(t)
  const r = await runCli(['send', '1', 'yes'], baseEnv(home))
  t.equal(r.code, 1, r.stderr)
  t.notMatch(r.stderr, /unknown/i)
  t.equal(
    r.stderr,
    "trailboss: `send` is off — set TRAILBOSS_ALLOW_SEND=1 to let Trail Boss type your text into agent panes (e.g. export TRAILBOSS_ALLOW_SEND=1 in your shell's startup file)\n",
  )
  t.equal(r.stdout, '')
  // Its help is reachable too, and names the opt-in.
  const help = await runCli(['send', '--help'], baseEnv(home))
  t.equal(help.code, 0, help.stderr)
  t.match(help.stdout, /TRAILBOSS_ALLOW_SEND=1/)
})

t.test('ok and no without the opt-in: one line that names the command once, and what turning it on allows', async (t) => {
  const home = tempDir(t)
  for (const command of ['ok', 'no']) {
    const r = await runCli([command, '1'], baseEnv(home))
    t.equal(r.code, 1, r.stderr)
    t.equal(
      r.stderr,
      `trailboss: \`${command}\` is off — set TRAILBOSS_ALLOW_SEND=1 to let Trail Boss press keys in agent panes (e.g. export TRAILBOSS_ALLOW_SEND=1 in your shell's startup file)\n`,
    )
    t.notMatch(r.stderr, /trailboss: trailboss/, 'not "trailboss: trailboss ok"')
  }
})
