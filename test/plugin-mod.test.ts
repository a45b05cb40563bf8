// The Claude Code mod in plugin/hooks/queue.tsx, checked by the newest pinned Claude Code itself:
// `claude plugin validate --strict` (it type-checks the module against its own declarations and
// refuses what its engine would) and `claude plugin test` (plugin/tests/, run in the engine's
// own host). Each check is also shown to fail on a broken copy, so a pass means something.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { CLAUDE_QUIET_ENV } from './helpers/claude-quiet-env.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PLUGIN = join(ROOT, 'plugin')
/** Mods exist from 2.1.287; this is the newest build the suite pins (test/e2e/clis/). */
const CLAUDE = join(ROOT, 'test', 'e2e', 'clis', 'claude-code-2.1.332', 'node_modules', '.bin', 'claude')

interface Run {
  code: number | null
  out: string
}

const claude = (args: string[], home: string, cwd = ROOT): Promise<Run> =>
  new Promise((resolve) => {
    const child = spawn(CLAUDE, args, {
      cwd,
      env: { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, ...CLAUDE_QUIET_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    child.on('close', (code) => resolve({ code, out }))
  })

/** A copy of the plugin with one file changed, for the checks that must fail. */
const brokenCopy = (dir: string, file: string, edit: (text: string) => string): string => {
  const copy = join(dir, 'plugin')
  fs.cpSync(PLUGIN, copy, { recursive: true, filter: (src) => !src.includes(`${join('.claude-plugin', 'types')}`) })
  const path = join(copy, file)
  const before = fs.readFileSync(path, 'utf8')
  const after = edit(before)
  if (after === before) throw new Error(`the edit of ${file} changed nothing: the check below would prove nothing`)
  fs.writeFileSync(path, after)
  return copy
}

t.before(async () => {
  if (!fs.existsSync(CLAUDE))
    throw new Error(`Claude Code 2.1.332 is not installed at ${CLAUDE}: run \`node scripts/install-e2e-clis.mjs\``)
})

t.test('claude plugin validate --strict accepts the mod and lists its hooks and calls', async (t) => {
  t.setTimeout(120_000)
  const home = t.testdir({})
  const version = await claude(['--version'], home)
  t.match(version.out, /^2\.1\.332 /, 'the pinned newest build')
  const r = await claude(['plugin', 'validate', '--strict', PLUGIN], home)
  t.equal(r.code, 0, r.out)
  t.match(r.out, /Validation passed/)
  t.match(r.out, /\.\/queue\.tsx hooks: session\.start, prompt\.submit, turn\.complete, command\.run\{command=trailboss\}/)
  // The command hooks are still there for builds without mods.
  t.match(r.out, /hooks: Stop command trailboss-emit/)
})

t.test('claude plugin validate --strict refuses a type error in the mod', async (t) => {
  t.setTimeout(120_000)
  const dir = t.testdir({ home: {} })
  const copy = brokenCopy(dir, join('hooks', 'queue.tsx'), (s) =>
    s.replace('$.ui.status(text)', '$.ui.status(text === undefined ? 0 : text)'),
  )
  const r = await claude(['plugin', 'validate', '--strict', copy], join(dir, 'home'), dir)
  t.equal(r.code, 1, 'the broken copy is refused')
  t.match(r.out, /TS2345/)
})

t.test("claude plugin test runs the mod's tests in the engine's host, and they can fail", async (t) => {
  t.setTimeout(180_000)
  const dir = t.testdir({ home: {} })
  const home = join(dir, 'home')
  const r = await claude(['plugin', 'test', PLUGIN], home)
  t.equal(r.code, 0, r.out)
  const pass = /(\d+) pass/.exec(r.out)
  t.ok(pass && Number(pass[1]) >= 20, `every test ran: ${pass?.[0]}`)
  t.match(r.out, / 0 fail/)
  t.match(r.out, /the status entry counts the other sessions that wait, never this one/)
  t.match(r.out, /\(pass\) text with terminal controls is drawn visible/)
  // A mod that counts its own session must fail them.
  const copy = brokenCopy(dir, join('hooks', 'queue-view.ts'), (s) =>
    s.replace('waits.filter((w) => w.sessionId !== ownSessionId)', 'waits.filter(() => ownSessionId !== "")'),
  )
  const bad = await claude(['plugin', 'test', copy], home, dir)
  t.equal(bad.code, 1, 'the broken copy fails its tests')
  t.match(bad.out, /\(fail\) the status entry counts the other sessions that wait, never this one/)
})
