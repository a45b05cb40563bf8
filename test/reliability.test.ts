// Reliability of the emitter and the record store under load, kills and hostile input. Bounded
// to about two minutes on two cores; TRAILBOSS_RELIABILITY_SCALE=4 runs four times as much.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve, sep } from 'node:path'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { normalizeEvent } from '../lib/agents/claude-code/hook-event.js'
import { claudeProjectsDir, isReadableTranscriptPath } from '../lib/agents/claude-code/paths.js'
import { SESSION_ID_PATTERN } from '../lib/paths.js'
import { CONTEXT_CAP } from '../lib/record/context-cap.js'
import { applyEvent, foldEvents } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { readEndedMarks } from '../lib/record/ended-index.js'
import { emitterInputArb, payloadArb } from './helpers/emitter-fuzz.js'
import {
  EMITTER,
  baseEnv,
  listTree,
  payload,
  pool,
  readSession,
  runEmitter,
  tempDir,
  type ChildEnv,
  type EmitResult,
} from './helpers/emitter.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

const SCALE = Math.max(0.05, Number(process.env.TRAILBOSS_RELIABILITY_SCALE) || 1)
const scaled = (n: number): number => Math.max(1, Math.ceil(n * SCALE))
const IN_FLIGHT = 24
// About two minutes on an idle two-core machine; the margin is for a busy one.
t.setTimeout(Math.max(600_000, 600_000 * SCALE))

const PANE_ENV = { TMUX: '/tmp/tmux-1000/default,800,0', CLAUDE_CODE_ENTRYPOINT: 'cli' }

/** Figures for docs/reliability.md, printed at the end. */
const figures: Record<string, number | string> = {}

// --- A realistic session, as a random walk over what Claude Code fires ----------------------------

/** Next events of a session in a given phase; each step is one hook invocation. */
const sessionScript = (rng: () => number, sid: string, length: number): Record<string, unknown>[] => {
  const out: Record<string, unknown>[] = [payload(sid, 'SessionStart', { source: 'startup' })]
  let turn = 0
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!
  while (out.length < length) {
    const prompt = `${sid}-p${++turn}`
    const at = { prompt_id: prompt }
    out.push(payload(sid, 'UserPromptSubmit', { ...at, prompt: 'go' }))
    const tools = Math.floor(rng() * 3)
    for (let i = 0; i < tools; i++) {
      const name = pick(['Bash', 'Read', 'AskUserQuestion'])
      const tool = { tool_name: name, tool_input: { command: `c${turn}.${i}` } }
      const id = `tu-${turn}-${i}`
      out.push(payload(sid, 'PreToolUse', { ...at, ...tool, tool_use_id: id }))
      if (rng() < 0.5) {
        out.push(payload(sid, 'PermissionRequest', { ...at, ...tool }))
        if (rng() < 0.5)
          out.push(payload(sid, 'Notification', { ...at, notification_type: 'permission_prompt', message: 'Claude needs your permission' }))
        if (rng() < 0.2) break // denied: nothing more fires for this turn
      }
      if (rng() < 0.1) {
        out.push(payload(sid, 'PostToolUseFailure', { ...at, ...tool, tool_use_id: id, is_interrupt: true }))
        break
      }
      out.push(payload(sid, 'PostToolUse', { ...at, ...tool, tool_use_id: id, tool_response: 'ok' }))
      out.push(payload(sid, 'PostToolBatch', at))
    }
    if (rng() < 0.3) out.push(payload(sid, 'MessageDisplay', at))
    const end = rng()
    if (end < 0.1) out.push(payload(sid, 'StopFailure', { ...at, error: 'rate_limit', last_assistant_message: 'API Error: 429' }))
    else if (end < 0.15)
      out.push(payload(sid, 'Stop', { ...at, last_assistant_message: 'Working on it.', background_tasks: [{ id: 'b' }] }))
    else out.push(payload(sid, 'Stop', { ...at, last_assistant_message: rng() < 0.5 ? 'Done. Anything else?' : 'Done.' }))
    if (rng() < 0.4)
      out.push(payload(sid, 'Notification', { ...at, notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }))
    const after = rng()
    if (after < 0.08) {
      out.push(payload(sid, 'PreCompact', at), payload(sid, 'SessionStart', { source: 'compact', ...at }), payload(sid, 'PostCompact', at))
    } else if (after < 0.14) {
      out.push(payload(sid, 'SessionEnd', { ...at, reason: 'prompt_input_exit' }))
      if (rng() < 0.5) out.push(payload(sid, 'StopFailure', { ...at, error: 'unknown' }))
      out.push(payload(sid, 'SessionStart', { source: 'resume' }))
    }
  }
  return out.slice(0, length)
}

/** A small seeded generator, so a failing load run can be replayed. */
const mulberry32 = (seed: number) => (): number => {
  seed = (seed + 0x6d2b79f5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}

/** The fields of a record that do not depend on when exactly the emitter ran. */
const shape = (r: SessionRecord | null) =>
  r && {
    state: r.state,
    kind: r.kind,
    event: r.event,
    promptId: r.promptId,
    tool: r.tool,
    message: r.message,
    lastEvent: r.lastEvent,
    events: r.events,
    turnEndedPromptId: r.turnEndedPromptId,
    backgroundTasks: r.backgroundTasks,
    headless: r.headless,
    tmux: r.tmux,
  }

t.test('load: ~100 sessions, thousands of events, nothing lost, every state the stamp-order fold', async (t) => {
  const root = tempDir(t)
  fs.mkdirSync(join(root, 'home'))
  const env = baseEnv(root, PANE_ENV)
  const dir = join(env.TRAILBOSS_HOME!, 'sessions')
  const SESSIONS = Math.min(100, scaled(100))
  const PER_SESSION = scaled(10)
  const seed = Number(process.env.TRAILBOSS_RELIABILITY_SEED) || Date.now() % 100_000
  t.comment(`seed ${seed}`)
  const rng = mulberry32(seed)
  const scripts = Array.from({ length: SESSIONS }, (_, i) => sessionScript(rng, `load-${i}`, PER_SESSION + Math.floor(rng() * 5)))
  // Each session's events go one after another (as its hooks fire), all sessions at once.
  const windows: { start: number; end: number }[][] = scripts.map(() => [])
  const results: EmitResult[] = []
  const cursors = scripts.map(() => 0)
  const ready: number[] = scripts.map((_, i) => i)
  const started = performance.now()
  // How far the wall clock moved against the monotonic one during the run (a step of a virtual
  // machine's clock, a slew): a stamp may lie off its run's window by that much, and no more.
  let clockLow = Infinity
  let clockHigh = -Infinity
  const noteClock = (): void => {
    const offset = Date.now() - performance.now()
    clockLow = Math.min(clockLow, offset)
    clockHigh = Math.max(clockHigh, offset)
  }
  let inFlight = 0
  await new Promise<void>((done) => {
    const launch = (): void => {
      while (inFlight < IN_FLIGHT && ready.length > 0) {
        const s = ready.splice(Math.floor(rng() * ready.length), 1)[0]!
        const i = cursors[s]!++
        const p = scripts[s]![i]!
        inFlight++
        // The wall clock, as the emitter's stamp (the clock less its uptime).
        const start = Date.now()
        noteClock()
        void runEmitter(JSON.stringify(p), { ...env, TMUX_PANE: `%${s}` }).then((r) => {
          noteClock()
          windows[s]!.push({ start, end: Date.now() })
          results.push(r)
          inFlight--
          if (cursors[s]! < scripts[s]!.length) ready.push(s)
          if (ready.length === 0 && inFlight === 0) done()
          else launch()
        })
      }
    }
    launch()
  })
  const seconds = (performance.now() - started) / 1000
  const sent = scripts.reduce((n, s) => n + s.length, 0)
  figures['load: sessions'] = SESSIONS
  figures['load: events'] = sent
  figures['load: events per second'] = (sent / seconds).toFixed(1)
  figures['load: emitter wall time p50/p95/max (ms)'] = pctl(results.map((r) => r.ms))
  t.equal(results.length, sent)
  t.equal(results.filter((r) => r.code !== 0 || r.stdout || r.stderr).length, 0, 'every emitter exited 0, silent')

  // Date.now() counts whole milliseconds, so a still clock shows up to 1 ms of spread by rounding
  // alone: the bound is 1 ms, as before, unless the clock moved further.
  const clockMoved = clockHigh - clockLow
  const slack = Math.max(1, clockMoved)
  figures['load: wall clock moved against the monotonic one (ms)'] = clockMoved.toFixed(1)
  let mismatches = 0
  let lost = 0
  for (const [s, script] of scripts.entries()) {
    const sid = `load-${s}`
    const onDisk = readSession(dir, sid)
    lost += script.length - onDisk.applied
    // The expected record: the same payloads through the same pure code, in send order
    // (= stamp order: a session's events never overlapped).
    const expected = foldEvents(
      null,
      script.map((p, i) => {
        const e = normalizeEvent(p, {
          env: { ...PANE_ENV, TMUX_PANE: `%${s}` },
          stamp: i + 1,
          host: hostname(),
          offset: null,
          project: 'tmp',
        })
        if (typeof e === 'string') throw new Error(e)
        return e
      }),
      hooksFor,
    )
    const got = onDisk.view
    const same = JSON.stringify(shape(got)) === JSON.stringify(shape(expected))
    // `since` must be the stamp of the event that began the wait: inside that emitter's run.
    const sinceEvent = expected ? expected.since - 1 : -1
    const w = windows[s]![sinceEvent]
    const sinceOk = !!got && !!w && got.since >= w.start - slack && got.since <= w.end + slack
    if (!same || !sinceOk) {
      mismatches++
      const runOf = got ? windows[s]!.findIndex((r) => got.since >= r.start - slack && got.since <= r.end + slack) : -1
      const off =
        got && w
          ? `since ${(got.since - w.start).toFixed(1)} ms after run ${sinceEvent} began, ${(w.end - got.since).toFixed(1)} before it ended; within run ${runOf}; the clock moved ${clockMoved.toFixed(1)} ms`
          : 'no run'
      if (mismatches <= 3) t.same(shape(got), shape(expected), `${sid} (since ok: ${sinceOk}; ${off})`)
    }
  }
  figures['load: lost events'] = lost
  figures['load: records differing from the fold'] = mismatches
  t.equal(lost, 0, 'no event lost')
  t.equal(mismatches, 0, `all ${SESSIONS} records equal the stamp-order fold`)
  const stray = fs.readdirSync(dir).filter((n) => n !== '.tmp' && n !== '.ended' && !/^load-\d+\.(json|pending)$/.test(n))
  t.same(stray, [], 'no locks or strays left')
  // The ended index under load: it marks exactly the records that say ended (no emitter died
  // between writing a record and marking it here).
  const marks = readEndedMarks(dir)
  const endedOnDisk = Array.from({ length: SESSIONS }, (_, s) => `load-${s}`).filter((id) => readSession(dir, id).file?.state === 'ended')
  t.same([...marks].sort(), endedOnDisk.sort(), `the ended index marks the ${marks.size} ended records, and only them`)
})

const pctl = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
  return `${at(0.5).toFixed(0)} / ${at(0.95).toFixed(0)} / ${(s[s.length - 1] ?? NaN).toFixed(0)}`
}

/** A fresh home whose hooks run in pane %1. */
const paneHome = (t: Test): { root: string; env: ChildEnv } => {
  const root = tempDir(t)
  fs.mkdirSync(join(root, 'home'))
  return { root, env: baseEnv(root, { ...PANE_ENV, TMUX_PANE: '%1' }) }
}

t.test('racing bursts under load: counts add up, the newest stamp decides', async (t) => {
  const { env } = paneHome(t)
  const dir = join(env.TRAILBOSS_HOME!, 'sessions')
  const SESSIONS = 8
  const PER = scaled(20)
  const tasks: (() => Promise<EmitResult>)[] = []
  for (let i = 0; i < PER; i++) {
    for (let s = 0; s < SESSIONS; s++) {
      const sid = `burst-${s}`
      const p =
        i % 3 === 0
          ? payload(sid, 'UserPromptSubmit', { prompt_id: `p${i}` })
          : i % 3 === 1
            ? payload(sid, 'Stop', { prompt_id: `p${i}`, last_assistant_message: `m${i}?` })
            : payload(sid, 'StopFailure', { prompt_id: `p${i}`, error: 'x', last_assistant_message: `e${i}` })
      tasks.push(() => runEmitter(JSON.stringify(p), env))
    }
  }
  const results = await pool(tasks, IN_FLIGHT)
  t.equal(results.filter((r) => r.code !== 0 || r.stderr).length, 0, 'all exit 0, silent')
  let pendingSeen = 0
  for (let s = 0; s < SESSIONS; s++) {
    const got = readSession(dir, `burst-${s}`)
    pendingSeen += got.pending.length
    t.equal(got.applied, PER, `burst-${s}: all ${PER} events applied`)
    t.equal(got.view?.stateStamp, got.view?.lastEventAt, `burst-${s}: the newest event set the state`)
    t.equal(got.view?.event, got.view?.lastEvent)
  }
  figures['bursts: events'] = SESSIONS * PER
  figures['bursts: left as pending at the end'] = pendingSeen
})

// --- Faults: kill -9 at random moments --------------------------------------------------------------

t.test('kill -9 at random moments: every file parses, leftovers never block, the next holder cleans', async (t) => {
  const { env } = paneHome(t)
  const dir = join(env.TRAILBOSS_HOME!, 'sessions')
  const SESSIONS = 6
  const ROUNDS = scaled(40)
  const rng = mulberry32(7)
  let kills = 0
  let survivors = 0
  let readFailures = 0
  let reads = 0
  const sentBy: number[] = Array(SESSIONS).fill(0)
  const survivedBy: number[] = Array(SESSIONS).fill(0)
  const tasks: (() => Promise<void>)[] = []
  for (let i = 0; i < ROUNDS * SESSIONS; i++) {
    const s = i % SESSIONS
    const sid = `kill-${s}`
    tasks.push(async () => {
      const p = payload(sid, i % 2 ? 'Stop' : 'UserPromptSubmit', {
        prompt_id: `p${i}`,
        last_assistant_message: 'x'.repeat(Math.floor(rng() * 3000)),
      })
      // Kill most of them somewhere between start-up and exit (a run takes ~60-300 ms).
      const kill = rng() < 0.7 ? Math.floor(20 + rng() * 250) : undefined
      sentBy[s]!++
      const r = await runEmitter(JSON.stringify(p), env, kill === undefined ? {} : { killAfterMs: kill })
      if (r.signal === 'SIGKILL') kills++
      else {
        survivors++
        survivedBy[s]!++
      }
      // A reader at any moment: every record and pending file it finds must parse.
      reads++
      try {
        readSession(dir, sid)
      } catch {
        readFailures++
      }
    })
  }
  await pool(tasks, 12)
  figures['faults: emitters run'] = ROUNDS * SESSIONS
  figures['faults: killed with SIGKILL'] = kills
  figures['faults: reads during the kills'] = reads
  figures['faults: reads that failed'] = readFailures
  t.ok(kills > ROUNDS, `many emitters were killed (${kills})`)
  t.equal(readFailures, 0, 'every read during the kills succeeded')
  const leftovers = listTree(dir).filter((p) => p.endsWith('.lock/') || (p.startsWith('.tmp/') && p !== '.tmp/'))
  figures['faults: locks and temp files left by the killed'] = leftovers.length
  t.comment(`left behind by killed emitters: ${leftovers.join(' ') || 'nothing'}`)
  // Whatever the killed left, later events go through at once and are visible at once.
  for (let s = 0; s < SESSIONS; s++) {
    const before = readSession(dir, `kill-${s}`).applied
    const r = await runEmitter(JSON.stringify(payload(`kill-${s}`, 'Stop', { last_assistant_message: 'after' })), env)
    // Not held up: it exits on its own (its deadline is 1.2 s of its run; a hang would fail the
    // file at its timeout), having saved its event.
    t.same([r.code, r.signal], [0, null], `kill-${s}: a later event is not held up`)
    const after = readSession(dir, `kill-${s}`)
    t.equal(after.applied, before + 1, `kill-${s}: and is visible`)
    t.equal(after.view?.message, 'after')
  }
  // Let time pass for the leftovers (age them), then one more event per session cleans up.
  const past = new Date(Date.now() - 60_000)
  for (const p of listTree(dir)) if (p.endsWith('.lock/') || p.startsWith('.tmp/')) fs.utimesSync(join(dir, p), past, past)
  for (let s = 0; s < SESSIONS; s++) {
    const sid = `kill-${s}`
    const r = await runEmitter(JSON.stringify(payload(sid, 'UserPromptSubmit', { prompt_id: 'final' })), env)
    t.equal(r.code, 0)
    const got = readSession(dir, sid)
    t.ok(got.file, `${sid}: the record file parses`)
    t.equal(got.pending.length, 0, `${sid}: every pending event folded`)
    // Killed emitters may or may not have saved their event; survivors always did.
    t.ok(
      got.applied >= survivedBy[s]! + 2 && got.applied <= sentBy[s]! + 2,
      `${sid}: ${got.applied} applied, ${survivedBy[s]} survivors of ${sentBy[s]}`,
    )
    t.equal(got.file?.state, 'working')
  }
  const rest = listTree(dir).filter((p) => p.endsWith('.lock/') || (p.startsWith('.tmp/') && p !== '.tmp/'))
  t.same(rest, [], 'stale locks and temp files are gone')
  for (const p of listTree(dir)) {
    if (p.endsWith('.json') && !p.includes('/')) t.doesNotThrow(() => JSON.parse(fs.readFileSync(join(dir, p), 'utf8')), `${p} parses`)
  }
  figures['faults: survivors'] = survivors
})

// --- Hostile input ----------------------------------------------------------------------------------

t.test('fuzz (spawned): any bytes or JSON → exit 0, silent, nothing outside the sessions folder', async (t) => {
  const { root, env } = paneHome(t)
  const tb = env.TRAILBOSS_HOME!
  const RUNS = scaled(80)
  let failures = 0
  const batch: (string | Buffer)[] = fc.sample(emitterInputArb, { numRuns: RUNS, seed: 42 })
  const results = await pool(
    batch.map((b) => () => runEmitter(b, env)),
    8,
  )
  for (const [i, r] of results.entries()) {
    if (r.code !== 0 || r.stdout !== '' || r.stderr !== '') {
      failures++
      t.fail(`case ${i}: exit ${r.code}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`)
    }
  }
  // Only the log, the sessions folder and the history; in them only files named by a valid session id.
  const tree = listTree(root)
  const outside = tree.filter(
    (p) => !(p === 'home/' || p === 'tb/' || p === 'tb/log' || p.startsWith('tb/sessions/') || p.startsWith('tb/history/')),
  )
  t.same(outside, [], 'nothing written outside TRAILBOSS_HOME/sessions but the log and the history')
  const history = tree.filter((p) => p.startsWith('tb/history/') && !p.endsWith('/'))
  const badHistory = history.filter((p) => {
    const day = /^tb\/history\/\d{4}-\d{2}-\d{2}\.jsonl$/.test(p)
    const mark = /^tb\/history\/\.marks\/\d{4}-\d{2}-\d{2}\/(.+)\.\d+\.(idle|working|permission|waiting|ended|gone)$/.exec(p)
    return !day && !(mark && SESSION_ID_PATTERN.test(mark[1]!))
  })
  t.same(badHistory, [], "the history's files: days, and marks named by a valid session id")
  const named = fs.readdirSync(join(tb, 'sessions')).filter((n) => n !== '.tmp')
  const bad = named.filter((n) => {
    const m = /^(.*)\.(json|pending)$/.exec(n)
    return !m || !SESSION_ID_PATTERN.test(m[1]!)
  })
  t.same(bad, [], 'every file is named by a valid session id')
  for (const n of named.filter((n) => n.endsWith('.json'))) {
    const id = n.slice(0, -5)
    t.doesNotThrow(() => readSession(join(tb, 'sessions'), id), `${n} reads back`)
  }
  figures['fuzz: spawned cases'] = RUNS
  figures['fuzz: spawned failures'] = failures
})

t.test('fuzz (in-process): normalizeEvent and applyEvent keep their invariants', async (t) => {
  const RUNS = scaled(4000)
  let checked = 0
  const ctx = (stamp: number) => ({ env: { ...PANE_ENV, TMUX_PANE: '%1' }, stamp, host: 'h', offset: null, project: null })
  const waits = new Set(['permission', 'waiting'])
  fc.assert(
    fc.property(fc.array(fc.tuple(payloadArb, fc.integer({ min: 1, max: 1000 })), { minLength: 1, maxLength: 12 }), (steps) => {
      let rec: SessionRecord | null = null
      const applied: HookEvent[] = []
      for (const [p, stamp] of steps) {
        const e = normalizeEvent({ ...p, session_id: 'fz' }, ctx(stamp))
        if (typeof e === 'string') continue
        if (e.message !== null && e.message.length > CONTEXT_CAP) return false
        if (e.tool && JSON.stringify(e.tool.input ?? null).length > CONTEXT_CAP + 2) return false
        const before: SessionRecord | null = rec
        rec = applyEvent(rec, e, hooksFor)
        applied.push(e)
        checked++
        if (rec.events !== applied.length) return false
        if (waits.has(rec.state) !== (rec.kind !== null)) return false
        if (rec.state === 'permission' && rec.kind !== 'permission' && rec.kind !== 'question') return false
        // An older event, or one after the end (but a SessionStart), never changes the state.
        if (before && (e.stamp < before.stateStamp || (before.state === 'ended' && e.name !== 'SessionStart'))) {
          if (rec.state !== before.state || rec.kind !== before.kind || rec.since !== before.since) return false
        }
        if (JSON.stringify(rec).length > 64 * 1024) return false
      }
      // The fold of the events sorted by stamp equals the fold of any permutation of them.
      if (applied.length > 1) {
        const a = foldEvents(null, applied, hooksFor)
        const b = foldEvents(null, [...applied].reverse(), hooksFor)
        if (new Set(applied.map((e) => e.stamp)).size === applied.length && JSON.stringify(a) !== JSON.stringify(b)) return false
      }
      return true
    }),
    { numRuns: RUNS, seed: 4242 },
  )
  fc.assert(
    fc.property(payloadArb, (p) => {
      const e = normalizeEvent(p, ctx(1))
      return typeof e === 'string' || SESSION_ID_PATTERN.test(e.sessionId)
    }),
    { numRuns: RUNS },
  )
  t.ok(checked > RUNS, `${checked} events applied`)
  figures['fuzz: in-process sequences'] = RUNS
  figures['fuzz: in-process events applied'] = checked
})

// --- Security: paths from payloads ----------------------------------------------------------------

t.test('isReadableTranscriptPath admits only .jsonl files under the projects folder', async (t) => {
  const env = { HOME: '/home/u' }
  const root = claudeProjectsDir(env)
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('..', '.', 'a', 'b.jsonl', '', 'projects', '.claude', 'x\u0000'), { maxLength: 6 }),
      fc.constantFrom('/', '/home/u/.claude/projects/', '/home/u/.claude/', 'rel/', '/home/u/.claude/projects/../'),
      (parts, prefix) => {
        const path = prefix + parts.join('/')
        const ok = isReadableTranscriptPath(path, env)
        return !ok || (resolve(path).startsWith(root + sep) && path.endsWith('.jsonl') && !path.includes('\0'))
      },
    ),
    { numRuns: 3000 },
  )
  // The check stands in for path.resolve (faster): the very paths it leaves unchanged pass.
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('..', '.', 'a', 'b.jsonl', '', '...', '.a', 'a.', 'c..jsonl'), { maxLength: 6 }),
      fc.constantFrom('/home/u/.claude/projects/', '/home/u/.claude/projects//', '/home/u/.claude/projects/./'),
      (parts, prefix) => {
        const path = prefix + parts.join('/')
        return isReadableTranscriptPath(path, env) === (path.startsWith(root + sep) && path.endsWith('.jsonl') && resolve(path) === path)
      },
    ),
    { numRuns: 3000 },
  )
  t.equal(isReadableTranscriptPath('/home/u/.claude/projects/-w/s.jsonl', env), true)
  t.equal(isReadableTranscriptPath('/home/u/.claude/projects/../x.jsonl', env), false)
  t.equal(isReadableTranscriptPath('/home/u/.claude/projects/-w/../../../../etc/x.jsonl', env), false)
  t.equal(isReadableTranscriptPath('/home/u/.claude/projectsX/s.jsonl', env), false)
  t.equal(isReadableTranscriptPath('/home/u/.claude/projects/s.json', env), false)
  t.equal(isReadableTranscriptPath({ path: 'x' }, env), false)
  t.equal(isReadableTranscriptPath('/other/projects/s.jsonl', { CLAUDE_CONFIG_DIR: '/other' }), true)
})

const hasStrace = spawnSync('strace', ['-V']).status === 0

t.test(
  'no syscall of the emitter names a path from the payload outside the projects folder',
  { skip: !hasStrace && 'strace is not installed' },
  async (t) => {
    const root = tempDir(t)
    const home = join(root, 'home')
    const projects = join(home, '.claude', 'projects', '-w')
    fs.mkdirSync(projects, { recursive: true })
    const inside = join(projects, 'in.jsonl')
    fs.writeFileSync(inside, '{}\n')
    const outside = join(root, 'secret', 'out.jsonl')
    fs.mkdirSync(join(root, 'secret'))
    fs.writeFileSync(outside, 'secret\n')
    const env: ChildEnv = { ...baseEnv(root, { ...PANE_ENV, TMUX_PANE: '%1' }) }
    const probes: [string, string, boolean][] = [
      ['inside', inside, true],
      ['outside', outside, false],
      ['dot-dot', `${projects}/../../../../secret/out.jsonl`, false],
      ['relative', 'secret/out.jsonl', false],
      ['cwd', outside, false],
    ]
    for (const [name, path, touched] of probes) {
      const trace = join(root, `${name}.trace`)
      const body = JSON.stringify(
        payload(`sec-${name}`, 'Stop', name === 'cwd' ? { cwd: join(root, 'secret'), transcript_path: null } : { transcript_path: path }),
      )
      const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=%file,%desc', '-o', trace, process.execPath, EMITTER], {
        input: body,
        env: env as NodeJS.ProcessEnv,
        cwd: root,
      })
      t.equal(r.status, 0, `${name}: exit 0`)
      const text = fs.readFileSync(trace, 'utf8')
      const mentions = text.includes('out.jsonl') || text.includes('in.jsonl')
      if (name === 'cwd') {
        // The project label walks up from cwd looking for .git; it never opens a file there.
        t.notMatch(text, /open[^\n]*secret\/out\.jsonl/, 'cwd: no file in cwd is opened')
      } else t.equal(mentions, touched, `${name}: ${touched ? 'stat-ed' : 'never touched'}`)
      t.notMatch(text, /open[^\n]*(?:in|out)\.jsonl/, `${name}: the transcript is never opened by the emitter`)
    }
  },
)

t.test('figures', async (t) => {
  for (const [k, v] of Object.entries(figures)) t.comment(`${k}: ${v}`)
  t.pass('printed')
})
