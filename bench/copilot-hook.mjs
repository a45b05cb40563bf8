// GitHub Copilot CLI waits for every hook but `notification`'s, one after another, each run as
// `/bin/bash --norc --noprofile -c "<line>"` with the payload on stdin. What counts is the
// agent's wait per event: the line `trailboss install --agent copilot` writes (the spool hook and
// its detached fold), against the floor of any hook line, `cat > tmp && mv` in sh, both started
// by bash as Copilot starts them, interleaved in the same run. Target: no more than the floor.
// Then that no event was lost: every event ends up in the session's record.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI, EMITTER, fmt, hookEnv, interleave, iqr, machine, median, p95, ratio, runIfMain, scratch, timeSpawn } from './lib.mjs'

const SPOOL = fileURLToPath(new URL('../dist/hooks/spool.sh', import.meta.url))
const SH_WRITER = fileURLToPath(new URL('./sh-writer.sh', import.meta.url))
const FIXTURE = new URL('../test/fixtures/copilot/hooks-tui-session1.jsonl', import.meta.url)
const EVENT = 'preToolUse'
/** How Copilot 1.0.102 runs a hook's line (test/fixtures/copilot/README.md). */
const BASH = ['/bin/bash', '--norc', '--noprofile', '-c']

/** A captured preToolUse payload of a TUI session, under the bench's own session id. */
const capturedPayload = () => {
  const line = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .find((l) => l.includes(`"argv":"${EVENT}"`))
  if (!line) throw new Error(`no ${EVENT} payload in ${fileURLToPath(FIXTURE)}`)
  return JSON.parse(line).payload
}

const eventsOf = (home, sid) => {
  try {
    return JSON.parse(readFileSync(join(home, 'tb', 'sessions', `${sid}.json`), 'utf8')).events
  } catch {
    return 0
  }
}

export const run = async (flags) => {
  for (const f of [SPOOL, EMITTER, CLI]) if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run build\` first`)
  const m = await machine()
  const home = scratch()
  // The agent's pid, as Copilot's TUI sets it for its hooks: the record's process.
  const env = hookEnv(home, { COPILOT_LOADER_PID: String(process.pid) })
  const inst = spawnSync(process.execPath, [CLI, 'install', '--agent', 'copilot'], { env, encoding: 'utf8' })
  if (inst.status !== 0) throw new Error(`install --agent copilot failed: ${inst.stderr}`)
  const installed = JSON.parse(readFileSync(join(home, '.copilot', 'hooks', 'trailboss.json'), 'utf8'))
  const ours = installed.hooks?.[EVENT]?.[0]?.bash
  if (typeof ours !== 'string') throw new Error(`no ${EVENT} hook in the installed file`)
  const floor = `/bin/sh ${SH_WRITER} ${join(home, 'sh-out.json')}`
  const sid = 'bench-copilot-hook'
  const base = capturedPayload()
  let sent = 0
  const payload = () => JSON.stringify({ ...base, sessionId: sid, timestamp: Date.now(), toolArgs: { command: `echo ${sent++}` } })
  const { wall: samples, cpu } = interleave(
    {
      'bash -c: sh floor (cat > tmp && mv)': () => timeSpawn(BASH[0], [...BASH.slice(1), floor], { input: payload(), env, cwd: home }),
      'bash -c: our hook line': () => timeSpawn(BASH[0], [...BASH.slice(1), ours], { input: payload(), env, cwd: home }),
    },
    flags,
  )
  // The floor's runs sent payloads too, to a file of its own: only our line's reach the record.
  const folded = samples['bash -c: our hook line'].length + flags.warmup
  const deadline = Date.now() + 20_000
  while (eventsOf(home, sid) < folded && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  const ls = spawnSync(process.execPath, [CLI, 'ls', '--json', '--all'], {
    env: { PATH: process.env.PATH, HOME: home, TRAILBOSS_HOME: join(home, 'tb') },
    encoding: 'utf8',
  })
  const listed = ls.status === 0 && JSON.parse(ls.stdout).queue.some((i) => i.sessionId === sid && i.agent === 'copilot')
  const inRecord = eventsOf(home, sid)
  const lost = Math.max(0, folded - inRecord)
  const sh = samples['bash -c: sh floor (cat > tmp && mv)']
  const hook = samples['bash -c: our hook line']
  const vs = ratio(hook, sh)
  const rows = Object.entries(samples).map(([name, xs]) => [
    name,
    fmt(median(xs)),
    fmt(p95(xs)),
    fmt(iqr(xs)),
    `${fmt(ratio(xs, sh).paired, 2)}×`,
    cpu[name] === null ? '-' : fmt(cpu[name]),
  ])
  return [
    {
      title: 'GitHub Copilot CLI: what the agent waits per event (the installed hook line)',
      header: ['what', 'median ms', 'p95 ms', 'IQR ms', 'vs sh floor (paired)', 'CPU ms, mean'],
      rows,
      notes: [
        `${flags.rounds} interleaved rounds after ${flags.warmup} warm-up rounds. Node ${m.node}, ${m.cpus} × ${m.cpu}, load ${m.load}. Our line: \`${ours}\`. CPU of the detached fold is not the agent's wait and is not counted.`,
        `Our hook line: ${fmt(median(hook))} ms p50, ${fmt(vs.paired, 2)}× the sh floor (paired; ${fmt(vs.ofMedians, 2)}× of medians): target ≤ 1× ${vs.paired <= 1 ? 'met' : 'NOT met'}.`,
        `No event lost: ${folded} events sent through our line, ${inRecord} in the record; the session ${listed ? 'is' : 'is NOT'} listed by \`ls\` as Copilot's. Lost: ${lost}.`,
      ],
      figures: { hookMedian: median(hook), floorMedian: median(sh), hookVsFloor: vs.paired, lost },
    },
  ]
}

await runIfMain(import.meta, run)
