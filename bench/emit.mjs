// The emitter's cost per hook event (docs/design.md §7): the built emitter against a bare `node -e 0`
// (target ≤ 1.3×) and against the floor, a POSIX sh writer (`cat > tmp && mv`); and how long
// after the event its record is visible to readers (target p95 ≤ 250 ms).
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, watch } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EMITTER, fmt, hookEnv, interleave, machine, median, p95, iqr, ratio, runIfMain, scratch, timeSpawn } from './lib.mjs'

const SH_WRITER = fileURLToPath(new URL('./sh-writer.sh', import.meta.url))
export const EMIT_TARGET_RATIO = 1.3
export const VISIBLE_TARGET_MS = 250

const payloadFor = (sid, i) =>
  JSON.stringify({
    session_id: sid,
    transcript_path: `/nonexistent/${sid}.jsonl`,
    cwd: '/tmp',
    prompt_id: `p${i}`,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${i}`, description: 'bench' },
    tool_use_id: `tu-${i}`,
  })

/** Events that each change the state (a prompt, then its turn's end): each is logged to the history. */
const changeFor = (sid, i) =>
  JSON.stringify({
    session_id: sid,
    transcript_path: `/nonexistent/${sid}.jsonl`,
    cwd: '/tmp',
    prompt_id: `p${Math.floor(i / 2)}`,
    hook_event_name: i % 2 === 0 ? 'UserPromptSubmit' : 'Stop',
    ...(i % 2 === 0 ? { prompt: `step ${i}` } : { last_assistant_message: `done ${i}` }),
  })

/** Start-up and work per event, interleaved with both baselines. */
const measureCost = (flags) => {
  const home = scratch()
  const env = hookEnv(home, { CLAUDE_CODE_ENTRYPOINT: 'cli' })
  const sid = 'bench-session'
  let i = 0
  // A record to update, as for every event after a session's first.
  timeSpawn(process.execPath, [EMITTER], { input: payloadFor(sid, i++), env })
  const changing = 'bench-history'
  let c = 0
  timeSpawn(process.execPath, [EMITTER], { input: changeFor(changing, c++), env })
  const shTarget = join(home, 'sh-out.json')
  const disabled = { ...env, TRAILBOSS_DISABLE: '1' }
  const { wall: samples, cpu } = interleave(
    {
      'node -e 0': () => timeSpawn(process.execPath, ['-e', '0'], { env }),
      'sh: cat > tmp && mv': () => timeSpawn('/bin/sh', [SH_WRITER, shTarget], { input: payloadFor(sid, i), env }),
      'emitter (TRAILBOSS_DISABLE=1)': () => timeSpawn(process.execPath, [EMITTER], { input: payloadFor(sid, i), env: disabled }),
      'emitter (update a record)': () => timeSpawn(process.execPath, [EMITTER], { input: payloadFor(sid, i++), env }),
      'emitter (a change, logged to the history)': () => timeSpawn(process.execPath, [EMITTER], { input: changeFor(changing, c++), env }),
    },
    flags,
  )
  const rec = JSON.parse(readFileSync(join(home, 'tb', 'sessions', `${sid}.json`), 'utf8'))
  if (rec.events !== i) throw new Error(`the emitter applied ${rec.events} of ${i} events during the benchmark`)
  const historyDir = join(home, 'tb', 'history')
  const logged = readdirSync(historyDir)
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) =>
      readFileSync(join(historyDir, n), 'utf8')
        .split('\n')
        .filter((l) => l.includes(`"${changing}"`)),
    )
  // The first event makes two lines' worth of change at most (null → idle → working in one fold: one line).
  if (logged.length < c - 1) throw new Error(`the history holds ${logged.length} lines of ${c} changes`)
  return { samples, cpu }
}

/** Time from spawning the emitter to the record file showing the event, as a watcher sees it. */
const measureVisible = async (flags) => {
  const home = scratch()
  const env = hookEnv(home, { CLAUDE_CODE_ENTRYPOINT: 'cli' })
  const sid = 'visible-session'
  const dir = join(home, 'tb', 'sessions')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = join(dir, `${sid}.json`)
  const eventsIn = () => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')).events
    } catch {
      return 0
    }
  }
  const out = []
  for (let i = 0; i < flags.samples; i++) {
    const want = eventsIn() + 1
    const ms = await new Promise((resolve, reject) => {
      const t0 = performance.now()
      let settled = false
      const check = () => {
        if (settled || eventsIn() < want) return
        settled = true
        watcher.close()
        clearInterval(poll)
        resolve(performance.now() - t0)
      }
      // inotify for promptness, a slow poll as a safety net for a missed notification.
      const watcher = watch(dir, check)
      const poll = setInterval(check, 25)
      const child = spawn(process.execPath, [EMITTER], { env, stdio: ['pipe', 'ignore', 'ignore'] })
      child.on('error', reject)
      child.stdin.end(payloadFor(sid, i))
      setTimeout(() => {
        if (!settled) reject(new Error(`event ${i} not visible after 5 s`))
      }, 5000)
    })
    out.push(ms)
    // Let the emitter exit before the next sample.
    await new Promise((r) => setTimeout(r, 20))
  }
  return out
}

export const run = async (flags) => {
  if (!existsSync(EMITTER)) throw new Error(`${EMITTER} is missing: run \`npm run build\` first`)
  const m = await machine()
  const { samples, cpu } = measureCost(flags)
  const base = samples['node -e 0']
  const sh = samples['sh: cat > tmp && mv']
  const cpuRatio = (name) => (cpu[name] !== null && cpu['node -e 0'] ? cpu[name] / cpu['node -e 0'] : NaN)
  const rows = Object.entries(samples).map(([name, xs]) => {
    const vsNode = ratio(xs, base)
    const vsSh = ratio(xs, sh)
    return [
      name,
      fmt(median(xs)),
      fmt(p95(xs)),
      fmt(iqr(xs)),
      `${fmt(vsNode.paired, 2)}× (${fmt(vsNode.ofMedians, 2)}×)`,
      `${fmt(vsSh.paired, 1)}×`,
      cpu[name] === null ? '-' : `${fmt(cpu[name])} (${fmt(cpuRatio(name), 2)}×)`,
    ]
  })
  const emit = ratio(samples['emitter (update a record)'], base)
  const emitCpu = cpuRatio('emitter (update a record)')
  const logged = ratio(samples['emitter (a change, logged to the history)'], base)
  const visible = await measureVisible(flags)
  const vis = [['event → record visible', fmt(median(visible)), fmt(p95(visible)), fmt(iqr(visible)), '', '', '']]
  return [
    {
      title: 'Emitter: cost per hook event',
      header: ['what', 'median ms', 'p95 ms', 'IQR ms', 'vs node -e 0: paired (of medians)', 'vs sh writer', 'CPU ms, mean (vs node -e 0)'],
      rows: [...rows, ...vis],
      notes: [
        `${flags.rounds} interleaved rounds after ${flags.warmup} warm-up rounds; ${flags.samples} visibility samples. Node ${m.node}, ${m.cpus} × ${m.cpu}, load ${m.load}.`,
        `Emitter vs \`node -e 0\`: ${fmt(emit.paired, 2)}× wall, ${fmt(emitCpu, 2)}× CPU (target ≤ ${EMIT_TARGET_RATIO}×: ${emit.paired <= EMIT_TARGET_RATIO ? 'met' : 'NOT met'} on wall time). ` +
          `With a line for the history (a state change): ${fmt(logged.paired, 2)}× (target ≤ ${EMIT_TARGET_RATIO}×: ${logged.paired <= EMIT_TARGET_RATIO ? 'met' : 'NOT met'}). ` +
          `Visible p95: ${fmt(p95(visible))} ms (target ≤ ${VISIBLE_TARGET_MS} ms: ${p95(visible) <= VISIBLE_TARGET_MS ? 'met' : 'NOT met'}).`,
      ],
      figures: {
        emitVsNode: emit.paired,
        emitCpuVsNode: emitCpu,
        emitVsNodeOfMedians: emit.ofMedians,
        emitWithHistoryVsNode: logged.paired,
        visibleP95: p95(visible),
        visibleMedian: median(visible),
      },
    },
  ]
}

await runIfMain(import.meta, run)
