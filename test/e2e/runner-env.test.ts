// The agents under test, and so their hooks' emitters, must not inherit the test runner's own
// preload. tap loads `@tapjs/processinfo` into each test file and, through a spawn hook, adds
// `NODE_OPTIONS=--import …/@tapjs/processinfo/…` (and `_TAPJS_*`) to every child it sees
// spawned, tmux included; Claude Code passes its environment on to its hooks, so every emitter
// ran tap's module-loader thread first. One such emitter, started as its session ended, stayed
// parked in that loader's wait (Atomics.wait, no timeout, the loader thread gone) before it read
// its stdin, and outlived its tmux server by 28 minutes. test/helpers/hermetic-env.mjs takes the
// spawn hook out, so children start as a person's do.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { run, startE2e, waitFor } from './harness.js'

t.setTimeout(60_000)

t.test('a pane the harness opens runs without the test runner’s NODE_OPTIONS', async (t) => {
  const e2e = await startE2e({ noHooks: true })
  t.teardown(() => e2e.close())
  // This file itself runs under the preload (the test means nothing without it)...
  t.ok(
    process.execArgv.some((a) => a.includes('processinfo')),
    'the test file runs with tap’s preload',
  )
  // ...and a child it spawns does not get it.
  const direct = await run('sh', ['-c', 'printf "%s|%s" "${NODE_OPTIONS-}" "$(env | grep -c ^_TAPJS_)"'], e2e.env)
  t.equal(direct.stdout, '|0', 'a child of the test gets no NODE_OPTIONS and no _TAPJS_ variables')
  const out = join(e2e.scratch, 'env.txt')
  const opened = await e2e.tmux('new-window', '-d', '-t', 'home:', 'sh', '-c', `env > ${out}.tmp && mv ${out}.tmp ${out}`)
  t.equal(opened.code, 0, opened.stderr)
  const { value: text } = await waitFor(
    'the pane’s environment',
    () => {
      try {
        return readFileSync(out, 'utf8')
      } catch {
        return undefined
      }
    },
    20_000,
  )
  const names = text.split('\n').map((l) => l.slice(0, l.indexOf('=')))
  t.notOk(names.includes('NODE_OPTIONS'), 'no NODE_OPTIONS in the pane')
  t.same(
    names.filter((n) => n.startsWith('_TAPJS_')),
    [],
    'no _TAPJS_ variables in the pane',
  )
  t.ok(names.includes('TRAILBOSS_HOME'), 'the harness’s own environment is there')
})

t.test('a child spawned with the inherited environment starts without tap’s preload', async (t) => {
  // Helpers that run our CLI without an env of their own pass this process's on: its
  // NODE_OPTIONS must not carry the preload (each node child ~180 ms of CPU more to start).
  const r = await run(process.execPath, ['-e', 'process.stdout.write(process.env.NODE_OPTIONS ?? "")'], process.env)
  t.equal(r.code, 0, r.stderr)
  t.notMatch(r.stdout, /processinfo/, 'no tap preload in the child’s NODE_OPTIONS')
})
