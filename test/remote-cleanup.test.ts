// gc and uninstall over real hosts (docs/design.md §10.6): both end every listed host's shared ssh
// connection and say so; gc also removes the kept answers of hosts no longer listed, and keeps
// those of listed hosts.
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startRemoteLab } from './helpers/remote-lab.js'
import { planAnswerGc } from '../lib/remote/answer-gc-plan.js'
import { destinationHash } from '../lib/remote/host-name.js'
import { lastAnswerFile, remoteDir } from '../lib/remote/last-answer.js'
import { controlDir } from '../lib/remote/ssh-args.js'

const lab = await startRemoteLab(t, ['hosta', 'hostb'])

/** `ssh -O check`, as a person would ask: whether a master runs for the host. */
const masterRuns = (name: string): boolean =>
  spawnSync('ssh', ['-F', lab.config, '-o', `ControlPath=${join(controlDir(lab.env), '%C')}`, '-O', 'check', '--', name], {
    env: lab.env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 5000,
  }).status === 0

/** An `ls` opens a master to each host and keeps each host's answer. */
const readHosts = async (t: Test): Promise<void> => {
  const r = await lab.run(['ls', '--json'])
  t.equal(r.code, 0, r.stderr)
  t.ok(masterRuns('hosta') && masterRuns('hostb'), 'a master runs for each host')
}

t.test('gc closes every master and removes the answers of hosts taken off the list', async (t) => {
  await readHosts(t)
  // A host listed once: its answer stays behind after `hosts rm` (which only closes its master).
  const gone = lastAnswerFile(lab.env, 'oldbox')
  writeFileSync(gone, '{}', { mode: 0o600 })
  const stranger = join(remoteDir(lab.env), 'notes.txt')
  writeFileSync(stranger, 'not ours', { mode: 0o600 })

  const dry = await lab.run(['gc', '--dry-run'])
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, `would remove ${gone} (the last answer of a host no longer listed)`)
  t.notMatch(dry.stdout, /closed the ssh connection/, 'a dry run closes nothing')
  t.ok(existsSync(gone) && masterRuns('hosta'), 'and removes nothing')

  const r = await lab.run(['gc'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, `removed ${gone} (the last answer of a host no longer listed)`)
  t.match(r.stdout, /^closed the ssh connection to hosta$/m)
  t.match(r.stdout, /^closed the ssh connection to hostb$/m)
  t.notOk(existsSync(gone), "the removed host's answer is gone")
  t.ok(existsSync(lastAnswerFile(lab.env, 'hosta')), "a listed host's answer stays")
  t.ok(existsSync(stranger), 'a file not named as an answer stays')
  t.notOk(masterRuns('hosta') || masterRuns('hostb'), 'no master runs')

  const again = await lab.run(['gc'])
  t.notMatch(again.stdout, /closed the ssh connection/, 'nothing to close: nothing said')
})

t.test('gc leaves the answers alone when the list cannot be read', async (t) => {
  await readHosts(t)
  const hostsJson = join(lab.env.TRAILBOSS_HOME!, 'hosts.json')
  const before = readFileSync(hostsJson, 'utf8')
  t.teardown(() => writeFileSync(hostsJson, before, { mode: 0o600 }))
  // A list broken by hand names no host: every answer would look like one of a removed host.
  writeFileSync(hostsJson, '{not json', { mode: 0o600 })
  const r = await lab.run(['gc'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stderr, /hosts\.json: not JSON; the hosts' kept answers are left as they are/)
  t.ok(existsSync(lastAnswerFile(lab.env, 'hosta')), 'kept')
  t.notMatch(r.stdout, /closed the ssh connection/, 'no host named, none closed')
})

t.test('uninstall closes every master', async (t) => {
  await readHosts(t)
  const r = await lab.run(['uninstall'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^closed the ssh connection to hosta$/m)
  t.match(r.stdout, /^closed the ssh connection to hostb$/m)
  t.notOk(masterRuns('hosta') || masterRuns('hostb'), 'no master runs')
  const dry = await lab.run(['uninstall', '--dry-run'])
  t.notMatch(dry.stdout, /closed the ssh connection/)
})

t.test('the plan: answers of unlisted hosts, named as answers', async (t) => {
  const a = `${destinationHash('a')}.json`
  const b = `${destinationHash('b')}.json`
  t.same(planAnswerGc([a, b, 'notes.txt', '.remote.1.tmp', 'ABCDEF012345.json'], ['a']), [b])
  t.same(planAnswerGc([a, b], []), [a, b].sort(), 'no list: every answer goes')
  t.same(planAnswerGc([a], ['a', 'b']), [])
  const aSeen = `${destinationHash('a')}.seen.json`
  const bSeen = `${destinationHash('b')}.seen.json`
  t.same(planAnswerGc([a, aSeen, bSeen, 'x.seen.json'], ['a']), [bSeen], "a host's seen marks go with it")
})
