// `npm run soak`: the emitter under a long run, outside CI (`npm test` never runs it). Four
// parts, each against real files in a fresh home, with the built emitter as hooks run it:
//   load    N events (10,000) from up to F emitters in flight (48): none lost
//   kills   K emitters (1,000) SIGKILLed while they write: every file reads, the next holder cleans
//   fuzz    Z inputs (100,000) through the emitter's own path in this process (parse, event,
//           recordEvent), and S (2,000) as processes: exit 0, silent, nothing outside sessions/
// It prints the figures as a markdown table (for docs/reliability.md) and exits 1 on a failure.
//   npm run soak -- [--scale 0.1] [--events N] [--in-flight N] [--sessions N] [--kills N]
//                   [--fuzz N] [--fuzz-spawned N] [--only load,kills,fuzz] [--minutes 45] [--seed N]
import * as fs from 'node:fs'
import { hostname, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import { AGENT_HOOKS, hooksFor } from '../lib/agents/hook-registry.js'
import { SESSION_ID_PATTERN } from '../lib/paths.js'
import { hookContext } from '../lib/record/hook-context.js'
import { recordEvent } from '../lib/record/write.js'
import { emitterInputArb } from '../test/helpers/emitter-fuzz.js'
import { baseEnv, listTree, payload, pool, readSession, runEmitter, type ChildEnv, type EmitResult } from '../test/helpers/emitter.js'

const { values: flags } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    events: { type: 'string' },
    'in-flight': { type: 'string', default: '48' },
    sessions: { type: 'string' },
    kills: { type: 'string' },
    fuzz: { type: 'string' },
    'fuzz-spawned': { type: 'string' },
    only: { type: 'string', default: 'load,kills,fuzz' },
    minutes: { type: 'string', default: '45' },
    seed: { type: 'string', default: '20261202' },
  },
})
const scale = Number(flags.scale)
const count = (given: string | undefined, full: number): number =>
  Math.max(1, Math.round(given === undefined ? full * scale : Number(given)))
const EVENTS = count(flags.events, 10_000)
const IN_FLIGHT = Math.max(1, Number(flags['in-flight']))
const SESSIONS = count(flags.sessions, 40)
const KILLS = count(flags.kills, 1000)
const FUZZ = count(flags.fuzz, 100_000)
const FUZZ_SPAWNED = count(flags['fuzz-spawned'], 2000)
const ONLY = new Set(flags.only.split(','))
const SEED = Number(flags.seed)
/** The whole run's bound: a part still running then fails, and what ran is reported. */
const DEADLINE = Date.now() + Number(flags.minutes) * 60_000
const PANE_ENV = { TMUX: '/tmp/tmux-1000/default,800,0', TMUX_PANE: '%1', CLAUDE_CODE_ENTRYPOINT: 'cli' }

const figures: [string, string | number][] = []
const failures: string[] = []
const figure = (what: string, value: string | number): void => {
  figures.push([what, value])
  console.error(`  ${what}: ${value}`)
}
const check = (ok: boolean, what: string): void => {
  if (!ok) failures.push(what)
}
const pastDeadline = (): boolean => Date.now() > DEADLINE

/** A fresh home; removed at the end unless the run failed (then it is kept to look at). */
const homes: string[] = []
const freshHome = (): { root: string; env: ChildEnv; dir: string } => {
  const root = fs.mkdtempSync(join(tmpdir(), 'trailboss-soak-'))
  homes.push(root)
  fs.mkdirSync(join(root, 'home'))
  const env = baseEnv(root, PANE_ENV)
  return { root, env, dir: join(env.TRAILBOSS_HOME!, 'sessions') }
}

const percentiles = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
  return `${at(0.5).toFixed(0)} / ${at(0.95).toFixed(0)} / ${(s[s.length - 1] ?? NaN).toFixed(0)} ms`
}

/** A seeded generator: a failing run can be replayed with --seed. */
const mulberry32 = (seed: number) => (): number => {
  seed = (seed + 0x6d2b79f5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}

/** What is wrong with an emitter's run, or null: it must exit 0 and print nothing. */
const misbehaved = (r: EmitResult): string | null =>
  r.code === 0 && r.stdout === '' && r.stderr === ''
    ? null
    : `exit ${r.code ?? r.signal}, stdout ${JSON.stringify(r.stdout.slice(0, 100))}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`

/** Locks, temp files and set-aside records in a sessions folder: what a run must not leave. */
const leftovers = (dir: string): string[] =>
  listTree(dir).filter((p) => p.endsWith('.lock/') || (p.startsWith('.tmp/') && p !== '.tmp/') || p.includes('.corrupt-'))

/** Every record and pending event in the folder reads back; the ids that do not. */
const unreadable = (dir: string, ids: Iterable<string>): string[] => {
  const bad: string[] = []
  for (const id of ids) {
    try {
      readSession(dir, id)
    } catch (err) {
      bad.push(`${id}: ${(err as Error).message}`)
    }
  }
  return bad
}

const idsIn = (dir: string): Set<string> => {
  const ids = new Set<string>()
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const m = /^(.*)\.(json|pending)$/.exec(name)
    if (m) ids.add(m[1]!)
  }
  return ids
}

/** The events of one session, round after round of a turn with a permission dialog. */
const TURN = ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop'] as const
const loadPayload = (sid: string, i: number): Record<string, unknown> => {
  const name = TURN[i % TURN.length]!
  const at = { prompt_id: `${sid}-p${Math.floor(i / TURN.length)}` }
  const tool = { tool_name: 'Bash', tool_input: { command: `echo ${i}` }, tool_use_id: `tu-${i}` }
  if (name === 'UserPromptSubmit') return payload(sid, name, { ...at, prompt: 'go' })
  if (name === 'Stop') return payload(sid, name, { ...at, last_assistant_message: `done ${i}?` })
  return payload(sid, name, { ...at, ...tool, ...(name === 'PostToolUse' ? { tool_response: 'ok' } : {}) })
}

const runLoad = async (): Promise<void> => {
  const { env, dir } = freshHome()
  const sent: number[] = Array(SESSIONS).fill(0)
  const ms: number[] = []
  const bad: string[] = []
  // Round-robin over the sessions: with more emitters in flight than a session's share, one
  // session's events race each other too.
  const tasks = Array.from({ length: EVENTS }, (_, i) => async () => {
    if (pastDeadline()) return
    const s = i % SESSIONS
    const p = loadPayload(`load-${s}`, Math.floor(i / SESSIONS))
    sent[s]!++
    const r = await runEmitter(JSON.stringify(p), env)
    ms.push(r.ms)
    const wrong = misbehaved(r)
    if (wrong) bad.push(wrong)
  })
  const started = Date.now()
  await pool(tasks, IN_FLIGHT)
  let lost = 0
  for (let s = 0; s < SESSIONS; s++) lost += sent[s]! - readSession(dir, `load-${s}`).applied
  const total = sent.reduce((a, b) => a + b, 0)
  figure('load: events sent / sessions / in flight', `${total} / ${SESSIONS} / ${IN_FLIGHT}`)
  figure('load: events lost', lost)
  figure('load: emitters that failed or printed', bad.length)
  figure('load: emitter wall time p50 / p95 / max', percentiles(ms))
  figure('load: wall time', `${((Date.now() - started) / 1000).toFixed(0)} s`)
  check(total === EVENTS, `load: only ${total} of ${EVENTS} events sent before the deadline`)
  check(lost === 0, `load: ${lost} events lost`)
  check(bad.length === 0, `load: ${bad.length} emitters misbehaved, e.g. ${bad[0]}`)
  const left = leftovers(dir)
  check(left.length === 0, `load: left behind: ${left.slice(0, 5).join(' ')}`)
}

const runKills = async (): Promise<void> => {
  const { env, dir } = freshHome()
  const sessions = 8
  const rng = mulberry32(SEED)
  // Where a kill lands: within an emitter's own run on this machine, as it is now: the median of
  // the last runs that were not killed (a window that lands after most runs shrinks).
  const probe = await pool(
    Array.from({ length: 16 }, (_, i) => () => runEmitter(JSON.stringify(loadPayload(`kill-${i % sessions}`, i)), env)),
    4,
  )
  const recent = probe.map((r) => r.ms)
  const runMs = (): number => [...recent].sort((a, b) => a - b)[recent.length >> 1]!
  const windows: number[] = []
  let killed = 0
  let spawned = 0
  let reads = 0
  const readFailures: string[] = []
  const bad: string[] = []
  const worker = async (): Promise<void> => {
    while (killed < KILLS && spawned < KILLS * 4 && !pastDeadline()) {
      const i = spawned++
      const sid = `kill-${i % sessions}`
      // A long message makes a record worth writing; the kill lands anywhere in the run.
      const p = payload(sid, i % 2 ? 'Stop' : 'UserPromptSubmit', {
        prompt_id: `p${i}`,
        last_assistant_message: 'x'.repeat(Math.floor(rng() * 3000)),
      })
      const run = runMs()
      windows.push(run)
      const r = await runEmitter(JSON.stringify(p), env, { killAfterMs: Math.floor(run * (0.2 + rng())) })
      if (r.signal === 'SIGKILL') killed++
      else {
        const wrong = misbehaved(r)
        if (wrong) bad.push(wrong)
        recent.push(r.ms)
        if (recent.length > 32) recent.shift()
      }
      reads++
      readFailures.push(...unreadable(dir, [sid]))
    }
  }
  const started = Date.now()
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, 12) }, worker))
  // Later events go through whatever the killed left; after the leftovers age, the next holder cleans.
  const past = new Date(Date.now() - 60_000)
  for (const p of listTree(dir)) if (p.endsWith('.lock/') || p.startsWith('.tmp/')) fs.utimesSync(join(dir, p), past, past)
  for (let s = 0; s < sessions; s++) {
    const r = await runEmitter(JSON.stringify(payload(`kill-${s}`, 'UserPromptSubmit', { prompt_id: 'final' })), env)
    const wrong = misbehaved(r)
    if (wrong) bad.push(`final event: ${wrong}`)
    const got = readSession(dir, `kill-${s}`)
    check(
      got.file?.state === 'working' && got.pending.length === 0,
      `kills: kill-${s} not folded after the final event (state ${got.file?.state}, ${got.pending.length} pending)`,
    )
  }
  const left = leftovers(dir)
  figure('kills: emitters run / SIGKILLed', `${spawned} / ${killed}`)
  windows.sort((a, b) => a - b)
  const typical = windows[windows.length >> 1] ?? NaN
  figure(
    'kills: kill moment',
    `0.2–1.2 × the median run of the last 32 survivors (median ${typical.toFixed(0)} ms: ${(typical * 0.2).toFixed(0)}–${(typical * 1.2).toFixed(0)} ms after spawn)`,
  )
  figure('kills: reads during the kills / failed', `${reads} / ${readFailures.length}`)
  figure('kills: bad files or leftovers after the cleanup event', left.length)
  figure('kills: wall time', `${((Date.now() - started) / 1000).toFixed(0)} s`)
  check(killed >= KILLS, `kills: only ${killed} of ${KILLS} emitters killed`)
  check(readFailures.length === 0, `kills: unreadable files: ${readFailures.slice(0, 3).join('; ')}`)
  check(bad.length === 0, `kills: ${bad.length} emitters misbehaved, e.g. ${bad[0]}`)
  check(left.length === 0, `kills: left behind: ${left.slice(0, 5).join(' ')}`)
}

/** Only the log and the sessions folder, and in it only files named by a valid session id, each readable. */
const harmless = (root: string, dir: string, what: string): void => {
  const outside = listTree(root).filter((p) => !(p === 'home/' || p === 'tb/' || p === 'tb/log' || p.startsWith('tb/sessions/')))
  check(outside.length === 0, `${what}: written outside sessions/: ${outside.slice(0, 5).join(' ')}`)
  const ids = idsIn(dir)
  const badNames = [...ids].filter((id) => !SESSION_ID_PATTERN.test(id))
  check(badNames.length === 0, `${what}: files named by invalid ids: ${badNames.slice(0, 5).join(' ')}`)
  const unread = unreadable(dir, ids)
  check(unread.length === 0, `${what}: unreadable: ${unread.slice(0, 3).join('; ')}`)
  figure(`${what}: sessions written`, ids.size)
}

/**
 * One input through the emitter's own path, as hooks/emit.ts takes it after reading stdin: JSON,
 * the agent's event, the record written under its lock. What the emitter would log is counted.
 */
const emitInProcess = async (
  input: string | Buffer,
  agent: (typeof AGENT_HOOKS)[number],
  dir: string,
  env: ChildEnv,
  log: (line: string) => void,
): Promise<void> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(input.toString())
  } catch {
    return log('stdin is not JSON')
  }
  const ev = agent.toHookEvent(parsed, hookContext(env, Date.now(), hostname()))
  if (typeof ev === 'string') return log(`rejected event: ${ev}`)
  await recordEvent(dir, ev, { agents: hooksFor, log })
}

const runFuzz = async (): Promise<void> => {
  // In process: every input through each agent's parser and the shared write path.
  {
    const { root, env, dir } = freshHome()
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    let logged = 0
    let thrown = 0
    let firstThrow = ''
    let done = 0
    const started = Date.now()
    const BATCH = 2000
    for (let from = 0; from < FUZZ && !pastDeadline(); from += BATCH) {
      const inputs = fc.sample(emitterInputArb, { numRuns: Math.min(BATCH, FUZZ - from), seed: SEED + from })
      for (const [i, input] of inputs.entries()) {
        const agent = AGENT_HOOKS[(from + i) % AGENT_HOOKS.length]!
        try {
          await emitInProcess(input, agent, dir, env, () => logged++)
        } catch (err) {
          // The emitter would log this and exit 0; a throw is still a defect of its path.
          thrown++
          firstThrow ||= `${agent.id}: ${(err as Error).message} on ${JSON.stringify(input.toString().slice(0, 120))}`
        }
        done++
      }
    }
    figure('fuzz in process: inputs (agents in turn)', done)
    figure('fuzz in process: refused and logged / thrown', `${logged} / ${thrown}`)
    figure('fuzz in process: wall time', `${((Date.now() - started) / 1000).toFixed(0)} s`)
    check(done === FUZZ, `fuzz in process: only ${done} of ${FUZZ} inputs before the deadline`)
    check(thrown === 0, `fuzz in process: ${thrown} inputs threw, e.g. ${firstThrow}`)
    harmless(root, dir, 'fuzz in process')
  }
  // As processes: the built emitter, as hooks run it.
  {
    const { root, env, dir } = freshHome()
    const inputs = fc.sample(emitterInputArb, { numRuns: FUZZ_SPAWNED, seed: SEED })
    const bad: string[] = []
    let ran = 0
    const started = Date.now()
    await pool(
      inputs.map((input) => async () => {
        if (pastDeadline()) return
        const wrong = misbehaved(await runEmitter(input, env))
        ran++
        if (wrong) bad.push(wrong)
      }),
      Math.min(IN_FLIGHT, 16),
    )
    figure('fuzz spawned: inputs / failed or printed', `${ran} / ${bad.length}`)
    figure('fuzz spawned: wall time', `${((Date.now() - started) / 1000).toFixed(0)} s`)
    check(ran === FUZZ_SPAWNED, `fuzz spawned: only ${ran} of ${FUZZ_SPAWNED} before the deadline`)
    check(bad.length === 0, `fuzz spawned: ${bad.length} misbehaved, e.g. ${bad[0]}`)
    harmless(root, dir, 'fuzz spawned')
  }
}

const PARTS: [string, () => Promise<void>][] = [
  ['load', runLoad],
  ['kills', runKills],
  ['fuzz', runFuzz],
]

const main = async (): Promise<number> => {
  const started = Date.now()
  console.error(
    `soak: node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, seed ${SEED}`,
  )
  for (const [name, part] of PARTS) {
    if (!ONLY.has(name)) continue
    console.error(`soak: ${name}`)
    await part()
  }
  figure(
    'whole run',
    `${((Date.now() - started) / 60_000).toFixed(1)} min, load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  )
  console.log('| what | figure |\n| --- | --- |')
  for (const [what, value] of figures) console.log(`| ${what} | ${value} |`)
  for (const f of failures) console.log(`FAILED: ${f}`)
  // A failed run's homes are kept for a look.
  if (failures.length === 0) for (const h of homes) fs.rmSync(h, { recursive: true, force: true })
  else console.log(`homes kept: ${homes.join(' ')}`)
  return failures.length === 0 ? 0 : 1
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    console.error(err)
    process.exitCode = 1
  },
)
