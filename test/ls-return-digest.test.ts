// `ls --json --return-digest`, the person's own read (Claude Code's mod, on their prompt): the
// built CLI as child processes with a private home, a wait made by the real emitter (which logs it
// to the history), and the last command moved back half an hour and more with
// helpers/clock-ahead.cjs instead of waiting.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type * as z from 'zod/mini'
import { lsOutputSchema, lsReturnDigestSchema } from '../lib/schemas/contract.js'
import type { Same } from '../lib/record/schema.js'
import type { JsonReturnDigest } from '../lib/navigate/return-digest.js'
import { runCli, type CliResult } from './helpers/cli.js'
import { baseEnv, payload, runEmitter, tempDir } from './helpers/emitter.js'

const CLOCK = fileURLToPath(new URL('./helpers/clock-ahead.cjs', import.meta.url))
const MIN = 60_000

type Doc = z.infer<typeof lsOutputSchema>

// The document's field and the type ls builds it from say the same.
const _fieldMatches: Same<z.infer<typeof lsReturnDigestSchema>, JsonReturnDigest> = true
void _fieldMatches

const parse = (r: CliResult): Doc => {
  if (r.code !== 0) throw new Error(`ls exited ${r.code}: ${r.stderr}`)
  return lsOutputSchema.parse(JSON.parse(r.stdout))
}

t.test('ls --json --return-digest counts as the person, and carries the return once, outside the digest', async (t) => {
  const dir = tempDir(t)
  const env = baseEnv(dir)
  const home = env.TRAILBOSS_HOME!
  const activityAt = (): number => (JSON.parse(readFileSync(join(home, 'activity.json'), 'utf8')) as { at: number }).at
  // The person's last command, `ago` ms before now (nothing waits yet: it fails, and still counts).
  const ranAgo = (args: string[], ago: number): Promise<CliResult> =>
    runCli(args, { ...env, NODE_OPTIONS: `--require=${CLOCK}`, TRAILBOSS_TEST_CLOCK_SHIFT_MS: String(-ago) })

  t.equal((await ranAgo(['go', '--print'], 40 * MIN)).code, 1)
  const lastSeen = activityAt()
  // While away: a permission request, through the real emitter, logged to the history.
  const sessionId = 'a0000000-5555-4000-8000-000000000001'
  const emitted = await runEmitter(
    JSON.stringify(payload(sessionId, 'PermissionRequest', { cwd: '/tmp/proj', tool_name: 'Bash', tool_input: { command: 'make' } })),
    env,
  )
  t.equal(emitted.code, 0)

  const plain = parse(await runCli(['ls', '--json'], env))
  t.equal(plain.returnDigest, undefined, 'without the flag: no digest')
  t.equal(activityAt(), lastSeen, 'without the flag: ls --json is no sign of the person')

  const before = Date.now()
  const back = parse(await runCli(['ls', '--json', '--return-digest'], env))
  t.ok(back.returnDigest, 'the read that ends the stretch carries its digest')
  const d = back.returnDigest!
  t.equal(Date.parse(d.since), lastSeen, 'the stretch begins at the last command')
  t.ok(Date.parse(d.until) >= before, 'and ends at this read')
  t.same([d.waits, d.done, d.errors], [{ count: 1, byKind: { permission: 1, question: 0, interrupted: 0 } }, 0, 0])
  t.same(d.oldest && [d.oldest.key, d.oldest.project, d.oldest.kind], ['1', 'proj', 'permission'])
  t.match(
    d.line,
    /^While you were away \(40m\): 1 wait \(1 permission\), 0 turns finished, 0 errors; oldest open: 1 proj \(claude-code, permission\), \d+s$/,
  )
  t.equal(back.digest, plain.digest, 'the digest of the queue is the same: a pending --until-change is not woken')
  t.ok(activityAt() >= before, 'the read is recorded as the last command')

  const again = parse(await runCli(['ls', '--json', '--return-digest'], env))
  t.equal(again.returnDigest, undefined, 'shown once')

  await t.test('two such reads racing: one carries it', async (t) => {
    await ranAgo(['go', '--print', '1'], 40 * MIN)
    const both = await Promise.all([runCli(['ls', '--json', '--return-digest'], env), runCli(['ls', '--json', '--return-digest'], env)])
    t.same(both.map((r) => parse(r).returnDigest !== undefined).sort(), [false, true])
  })

  await t.test('a read less than half an hour after the last command: no return', async (t) => {
    await ranAgo(['go', '--print', '1'], 20 * MIN)
    t.equal(parse(await runCli(['ls', '--json', '--return-digest'], env)).returnDigest, undefined)
  })

  await t.test('it goes with --json, and not with the watches', async (t) => {
    for (const args of [
      ['--return-digest'],
      ['--plain', '--return-digest'],
      ['--json', '--return-digest', '--until-change', back.digest],
      ['--json', '--return-digest', '--follow'],
    ]) {
      const r = await runCli(['ls', ...args], env)
      t.equal(r.code, 2, args.join(' '))
      t.match(r.stderr, /--return-digest goes with --json \(and not --follow or --until-change\)/)
    }
  })
})
