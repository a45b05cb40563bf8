// A recorded day of a mixed fleet: the captured events of Claude Code, Gemini CLI and Codex
// (test/fixtures/) through the built emitter, then a reader, then `trailboss report --json`.
// The report's figures are recomputed here from the log's lines by a separate, plain reference,
// and must agree.
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { EMITTER, baseEnv, readCaptures, tempDir, type ChildEnv } from './helpers/emitter.js'
import { runCli } from './helpers/cli.js'
import type { HistoryEntry, Report } from '../lib/history/types.js'
import { reportOutputSchema } from '../lib/schemas/contract.js'
import { inspectPage } from './helpers/chromium.js'

t.setTimeout(600_000)

const emitAs = (agent: string | null, input: unknown, env: ChildEnv): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, agent ? [EMITTER, '--agent', agent] : [EMITTER], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.on('close', (code) => (code === 0 && err === '' ? resolve() : reject(new Error(`emitter ${code}: ${err}`))))
    child.stdin.end(JSON.stringify(input))
  })

interface Captured {
  event: string
  env?: Record<string, string>
  payload?: Record<string, unknown>
}
const captured = (path: string): Captured[] =>
  fs
    .readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Captured)

// --- The reference: the report's definitions (docs/design.md §11.5), written plainly ---------

const WAITS = new Set(['permission', 'waiting'])
const KINDS = ['permission', 'question', 'done', 'error', 'interrupted'] as const

const referenceReport = (
  all: HistoryEntry[],
  since: number,
  until: number,
  by: 'project' | 'agent' | 'host' | 'kind',
  timeZone: string,
) => {
  const lanes = new Map<string, HistoryEntry[]>()
  for (const e of [...all].sort((a, b) => a.at - b.at)) if (e.at <= until) lanes.set(e.sessionId, [...(lanes.get(e.sessionId) ?? []), e])
  const part = (a: number, b: number): number => Math.max(0, Math.min(b, until) - Math.max(a, since))
  const kindOf = (e: HistoryEntry): string => e.kind ?? (e.to === 'permission' ? 'permission' : 'question')
  const blocked: Record<string, number> = Object.fromEntries(KINDS.map((k) => [k, 0]))
  const groups: Record<string, { blockedMs: number; waits: number }> = {}
  const sessions: Record<string, { workingMs: number; waitingMs: number; idleMs: number; unaccountedMs: number }> = {}
  const answers: number[] = []
  const perHour = new Array<number>(24).fill(0)
  for (const [id, lines] of lanes) {
    const s = { workingMs: 0, waitingMs: 0, idleMs: 0, unaccountedMs: 0 }
    const mine: Record<string, number> = Object.fromEntries(KINDS.map((k) => [k, 0]))
    let any = false
    if (lines[0]!.from !== null && part(-Infinity, lines[0]!.at) > 0) {
      s.unaccountedMs += part(-Infinity, lines[0]!.at)
      any = true
    }
    let hookTo: string | null = null
    for (let i = 0; i < lines.length; i++) {
      const e = lines[i]!
      const next = lines[i + 1]
      if (e.by === 'hook') hookTo = e.to
      const ms = part(e.at, next ? next.at : until)
      if (next && next.by === 'hook' && hookTo !== null && next.from !== hookTo) {
        s.unaccountedMs += ms
        if (ms > 0) any = true
        continue
      }
      if (ms <= 0 || e.to === 'ended' || e.to === 'gone') continue
      any = true
      if (e.to === 'working') s.workingMs += ms
      else if (e.to === 'idle') s.idleMs += ms
      else {
        s.waitingMs += ms
        mine[kindOf(e)]! += ms
      }
    }
    // Waits: a line into a wait state begins one unless it repeats the wait the line before began.
    let waits = 0
    for (let i = 0; i < lines.length; i++) {
      const e = lines[i]!
      const prev = lines[i - 1]
      const repeats = prev !== undefined && prev.to === e.to && prev.kind === e.kind && !(e.by === 'hook' && e.from === e.to)
      if (!WAITS.has(e.to) || (repeats && WAITS.has(prev.to))) continue
      let j = i + 1
      while (
        j < lines.length &&
        lines[j]!.to === e.to &&
        lines[j]!.kind === e.kind &&
        !(lines[j]!.by === 'hook' && lines[j]!.from === lines[j]!.to)
      )
        j++
      if (e.at < since || e.at >= until) continue
      waits++
      const hour = Number(new Date(e.at).toLocaleString('en-US', { timeZone, hour: 'numeric', hour12: false })) % 24
      perHour[hour]!++
      const end = lines[j]
      if (end && end.to !== 'ended' && end.to !== 'gone') answers.push(end.at - e.at)
      if (by === 'kind') groups[kindOf(e)] = { blockedMs: 0, waits: (groups[kindOf(e)]?.waits ?? 0) + 1 }
    }
    if (!any && waits === 0) continue
    sessions[id] = s
    for (const k of KINDS) blocked[k]! += mine[k]!
    if (by !== 'kind') {
      const name = lines[lines.length - 1]![by]
      const g = (groups[name] ??= { blockedMs: 0, waits: 0 })
      g.blockedMs += KINDS.reduce((sum, k) => sum + mine[k]!, 0)
      g.waits += waits
    }
  }
  if (by === 'kind')
    for (const k of KINDS) if (blocked[k]! > 0 || groups[k]) groups[k] = { blockedMs: blocked[k]!, waits: groups[k]?.waits ?? 0 }
  answers.sort((a, b) => a - b)
  const rank = (q: number): number | null => (answers.length ? answers[Math.ceil(q * answers.length) - 1]! : null)
  return {
    totalMs: KINDS.reduce((sum, k) => sum + blocked[k]!, 0),
    byKind: blocked,
    groups,
    sessions,
    answers: { count: answers.length, p50Ms: rank(0.5), p90Ms: rank(0.9), longestMs: answers.at(-1) ?? null },
    perHour,
  }
}

t.test('a recorded day of a mixed fleet: the report agrees with the log', async (t) => {
  const root = tempDir(t)
  // Panes on a tmux server that is not there: the reader finds the sessions in tmux gone.
  const socket = join(root, 'no-such-socket')
  const env = baseEnv(root, { TZ: 'America/New_York' })
  for (const c of readCaptures('events.jsonl')) {
    const pane = c.env.TMUX_PANE ?? '%0'
    await emitAs(null, c.stdin, { ...env, CLAUDE_CODE_ENTRYPOINT: 'cli', TMUX: `${socket},4242,0`, TMUX_PANE: pane })
  }
  for (const c of captured('gemini/hooks.jsonl')) {
    if (!c.payload || c.event.startsWith('#')) continue
    const { HOME: _home, PWD: _pwd, TMUX: _tmux, ...rest } = c.env ?? {}
    await emitAs('gemini', c.payload, { ...env, ...rest, TMUX: `${socket},4242,0` })
  }
  for (const c of captured('codex/hooks.jsonl')) if (c.payload) await emitAs('codex', c.payload, env)
  // A reader: its checks on read add their changes.
  const ls = await runCli(['ls', '--json', '--all'], env)
  t.equal(ls.code, 0, ls.stderr)

  const dir = join(String(env.TRAILBOSS_HOME), 'history')
  const lines = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => fs.readFileSync(join(dir, n), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as HistoryEntry)
  t.same([...new Set(lines.map((l) => l.agent))].sort(), ['claude-code', 'codex', 'gemini'], 'every agent of the fleet is in the log')
  t.ok(
    lines.some((l) => l.by === 'read' && l.to === 'gone'),
    'a reader logged what it found',
  )
  t.ok(
    lines.some((l) => l.to === 'permission'),
    'permission waits are in the log',
  )

  for (const by of ['project', 'agent', 'host', 'kind'] as const) {
    const out = await runCli(['report', '--json', '--by', by], env)
    t.equal(out.code, 0, out.stderr)
    const r = JSON.parse(out.stdout) as Report & { version: number }
    t.equal(r.version, 1)
    const checked = reportOutputSchema.safeParse(r)
    t.ok(
      checked.success,
      `${by}: the output fits docs/report.schema.json ${checked.success ? '' : JSON.stringify(checked.error.issues[0])}`,
    )
    t.equal(r.timeZone, 'America/New_York', 'the hours are in the local zone (TZ)')
    const ref = referenceReport(lines, r.since, r.until, by, r.timeZone)
    t.ok(ref.totalMs > 0, 'the day has blocked time')
    t.equal(r.blocked.totalMs, ref.totalMs, `${by}: blocked time`)
    t.same(r.blocked.byKind, ref.byKind, `${by}: blocked time by kind`)
    t.same(
      Object.fromEntries(r.blocked.groups.map((g) => [g.name, { blockedMs: g.blockedMs, waits: g.waits }])),
      ref.groups,
      `${by}: groups`,
    )
    t.same(
      Object.fromEntries(
        r.sessions.map((s) => [
          s.sessionId,
          { workingMs: s.workingMs, waitingMs: s.waitingMs, idleMs: s.idleMs, unaccountedMs: s.unaccountedMs },
        ]),
      ),
      ref.sessions,
      `${by}: each session's times`,
    )
    t.same(
      { count: r.answers.count, p50Ms: r.answers.p50Ms, p90Ms: r.answers.p90Ms, longestMs: r.answers.longest?.ms ?? null },
      ref.answers,
      `${by}: answer times`,
    )
    t.same(r.waitsPerHour, ref.perHour, `${by}: waits per hour`)
    t.equal(
      r.unaccountedMs,
      Object.values(ref.sessions).reduce((sum, s) => sum + s.unaccountedMs, 0),
    )
  }
  // The same report for a person, piped: plain text, no escape codes.
  const text = await runCli(['report'], env)
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, /Agent time blocked on you, last 1d/)
  t.notMatch(text.stdout, /\u001b\[/, 'no colour when piped')

  // The same day as a page, written by the command and read back in Chromium: one lane per session of the report.
  const json = JSON.parse((await runCli(['report', '--json'], env)).stdout) as Report
  const page = join(root, 'out', 'day.html')
  const missing = await runCli(['report', '--html', page], env)
  t.equal(missing.code, 1, 'a folder that is not there: an error')
  t.match(missing.stderr, /cannot write .*day\.html: ENOENT — its folder must exist/)
  t.notOk(fs.existsSync(page), 'nothing written')
  fs.mkdirSync(join(root, 'out'))
  const written = await runCli(['report', '--html', page], env)
  t.equal(written.code, 0, written.stderr)
  t.equal(written.stdout, '', 'the page goes to the file only')
  t.match(written.stderr, /wrote .*day\.html \(readable by you alone: it holds your agents' commands and questions\)/)
  t.equal(fs.statSync(page).mode & 0o777, 0o600, 'the page is 0600')
  const seen = await inspectPage(page, {
    evaluate: `[...document.querySelectorAll('svg.timeline g.lane')].map((g) => g.getAttribute('data-session'))`,
  })
  t.same(seen.errors, [], 'the page loads with no error')
  t.same(
    [...(seen.value as string[])].sort(),
    [...new Set(json.spans.map((s) => s.sessionId))].sort(),
    'one lane per session the report spans',
  )
  const both = await runCli(['report', '--json', '--html', page], env)
  t.equal(both.code, 2, 'a page and JSON at once: a usage error')
  t.match(both.stderr, /choose one of --json and --html/)
})
