// The fast path for blocking hooks (Codex, Gemini CLI wait for every hook): how long the agent
// waits per event with dist/hooks/spool.sh, side by side with `node -e 0` (what any Node hook
// costs) and a bare `sh` writer (the floor), as ratios; target ≤ 10 ms p50. Then that no event
// was lost: every spooled event ends up in the session's record (the detached folds, then a
// read for what they left).
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI, EMITTER, fmt, hookEnv, interleave, machine, median, p95, iqr, ratio, runIfMain, scratch, timeSpawn } from './lib.mjs'

const SPOOL = fileURLToPath(new URL('../dist/hooks/spool.sh', import.meta.url))
const SH_WRITER = fileURLToPath(new URL('./sh-writer.sh', import.meta.url))
export const SPOOL_TARGET_MS = 10

const payloadFor = (sid, i) =>
  JSON.stringify({
    session_id: sid,
    transcript_path: `/nonexistent/${sid}.jsonl`,
    cwd: '/tmp',
    hook_event_name: 'PreToolUse',
    turn_id: `turn-${i}`,
    model: 'mock-model',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command: `echo ${i}` },
    tool_use_id: `call_${i}`,
  })

const eventsOf = (home, sid) => {
  try {
    return JSON.parse(readFileSync(join(home, 'tb', 'sessions', `${sid}.json`), 'utf8')).events
  } catch {
    return 0
  }
}

const spoolLeft = (home) => {
  try {
    return readdirSync(join(home, 'tb', 'sessions', '.spool')).length
  } catch {
    return 0
  }
}

export const run = async (flags) => {
  for (const f of [SPOOL, EMITTER, CLI]) if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run build\` first`)
  const m = await machine()
  const home = scratch()
  const env = hookEnv(home)
  const shTarget = join(home, 'sh-out.json')
  const sid = 'bench-spool'
  const storeOnly = 'bench-store-only'
  let folded = 0
  let stored = 0
  const { wall: samples, cpu } = interleave(
    {
      'node -e 0': () => timeSpawn(process.execPath, ['-e', '0'], { env }),
      'sh: cat > tmp && mv': () => timeSpawn('/bin/sh', [SH_WRITER, shTarget], { input: payloadFor(sid, 0), env }),
      'spool.sh, store only': () => timeSpawn('/bin/sh', [SPOOL, 'codex'], { input: payloadFor(storeOnly, stored++), env }),
      'spool.sh + detached fold': () => timeSpawn('/bin/sh', [SPOOL, 'codex', process.execPath], { input: payloadFor(sid, folded++), env }),
    },
    flags,
  )
  // Every event must arrive: the detached folds may still run; a read folds what they left.
  const deadline = Date.now() + 20_000
  while (eventsOf(home, sid) < folded && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  const byFolds = eventsOf(home, sid)
  const leftBeforeRead = spoolLeft(home)
  const ls = spawnSync(process.execPath, [CLI, 'ls', '--json', '--all'], {
    env: { PATH: process.env.PATH, HOME: home, TRAILBOSS_HOME: join(home, 'tb') },
    encoding: 'utf8',
  })
  const read = ls.status === 0 ? JSON.parse(ls.stdout).queue : []
  const seen = new Set(read.map((i) => i.sessionId))
  const lost = (byFolds < folded ? folded - byFolds : 0) + (seen.has(storeOnly) ? 0 : 1)
  const base = samples['node -e 0']
  const sh = samples['sh: cat > tmp && mv']
  const rows = Object.entries(samples).map(([name, xs]) => {
    const vsNode = ratio(xs, base)
    const vsSh = ratio(xs, sh)
    return [
      name,
      fmt(median(xs)),
      fmt(p95(xs)),
      fmt(iqr(xs)),
      `${fmt(vsNode.paired, 2)}×`,
      `${fmt(vsSh.paired, 2)}×`,
      cpu[name] === null ? '-' : fmt(cpu[name]),
    ]
  })
  const spoolMedian = median(samples['spool.sh + detached fold'])
  return [
    {
      title: 'Blocking hooks: what the agent waits per event (spool.sh)',
      header: ['what', 'median ms', 'p95 ms', 'IQR ms', 'vs node -e 0 (paired)', 'vs sh writer (paired)', 'CPU ms, mean'],
      rows,
      notes: [
        `${flags.rounds} interleaved rounds after ${flags.warmup} warm-up rounds. Node ${m.node}, ${m.cpus} × ${m.cpu}, load ${m.load}. CPU of the detached fold is not the agent's wait and is not counted.`,
        `spool.sh + detached fold: ${fmt(spoolMedian)} ms p50 (target ≤ ${SPOOL_TARGET_MS} ms: ${spoolMedian <= SPOOL_TARGET_MS ? 'met' : 'NOT met'}), ` +
          `${fmt(ratio(samples['spool.sh + detached fold'], sh).paired, 2)}× the sh floor, ${fmt(ratio(samples['spool.sh + detached fold'], base).paired, 2)}× node -e 0.`,
        `No event lost: ${folded} events spooled with a fold, ${byFolds} in the record by the folds alone (${leftBeforeRead} spool files left for readers); ` +
          `the store-only session ${seen.has(storeOnly) ? 'is' : 'is NOT'} listed by \`ls\` (folded on read). Lost: ${lost}.`,
      ],
      figures: {
        spoolMedian,
        spoolVsSh: ratio(samples['spool.sh + detached fold'], sh).paired,
        spoolVsNode: ratio(samples['spool.sh + detached fold'], base).paired,
        lost,
      },
    },
  ]
}

await runIfMain(import.meta, run)
