// What `npm test` does before tap: install the end-to-end CLIs and build, at once (the install
// waits on the network and the disk, the build takes seconds). The typecheck and the linter are
// test files (test/typecheck.test.ts, test/lint.test.ts): each keeps one core busy for a minute,
// better spent beside the suites that wait on tmux, ssh and the agents than before all of them.
// Each step's output is printed whole when it ends, in the order the steps end, so two steps
// never interleave their lines. Any step that fails fails the whole: the exit code is the first
// failed step's.
import { spawn } from 'node:child_process'

const STEPS = [
  ['end-to-end CLIs', process.execPath, ['scripts/install-e2e-clis.mjs']],
  ['build', 'npm', ['run', '--silent', 'build']],
  // tap builds its Test class with our plugin set ("tap"."plugin" drops @tapjs/typescript, tsx
  // loads the tests) on the first run after an install, but that run still starts every test
  // file with the loaders of the set it found: ts-node's (transpiling only) beside tsx, 3.6 s
  // of CPU for a small test file against 1.4. Built here, before tap starts, every run has the
  // right ones.
  ['tap plugins', process.execPath, ['node_modules/tap/dist/esm/run.mjs', 'build']],
]

const run = ([name, command, args]) =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', (c) => output.push(c))
    child.stderr.on('data', (c) => output.push(c))
    child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)))
    child.on('close', (code, signal) => {
      const status = code ?? (signal ? 1 : 0)
      const text = Buffer.concat(output).toString('utf8')
      process.stdout.write(
        `pretest: ${name} ${status === 0 ? 'done' : `failed (exit ${code ?? signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      )
      if (text.trim()) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
      resolve(status)
    })
  })

const codes = await Promise.all(STEPS.map(run))
process.exitCode = codes.find((c) => c !== 0) ?? 0
