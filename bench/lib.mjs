// Timing helpers shared by the benchmarks. Every figure is a ratio against a baseline measured
// in the same run, with the candidates and the baseline interleaved round by round, so a noisy
// neighbour slows all of them alike instead of skewing one.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The built files the benchmarks run (`npm run build` first). */
export const CLI = fileURLToPath(new URL('../dist/bin/trailboss.cjs', import.meta.url))
export const EMITTER = fileURLToPath(new URL('../dist/hooks/emit.cjs', import.meta.url))

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** A hook's environment: a private home, our records under it, a session in tmux pane %1. */
export const hookEnv = (home, extra = {}) => ({
  PATH: process.env.PATH,
  HOME: home,
  TRAILBOSS_HOME: join(home, 'tb'),
  TMUX: '/tmp/tmux-1000/default,800,0',
  TMUX_PANE: '%1',
  ...extra,
})

/** One event through the built emitter, as an agent's hook sends it; rejects unless it exits 0. */
export const emitEvent = (env, payload) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EMITTER], { env, stdio: ['pipe', 'ignore', 'pipe'] })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`emitter exited ${code}`))))
    child.stdin.end(JSON.stringify(payload))
  })

export const median = (xs) => quantile(xs, 0.5)
export const p95 = (xs) => quantile(xs, 0.95)

/** Linear-interpolated quantile of a sample. */
export const quantile = (xs, q) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return s[lo] + (s[hi] - s[lo]) * (pos - lo)
}

/** Interquartile range: the spread of the middle half, insensitive to a few outliers. */
export const iqr = (xs) => quantile(xs, 0.75) - quantile(xs, 0.25)

/** Wall time in ms of one synchronous child process; throws if it failed. */
export const timeSpawn = (cmd, args, opts = {}) => {
  const t0 = performance.now()
  const r = spawnSync(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'], ...opts })
  const ms = performance.now() - t0
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr ?? '').slice(0, 300)}`)
  return ms
}

/**
 * Runs a command once and resolves to {output, exit}: ms until its stdout closed (what a reader
 * of its output waits for) and until the process exited; rejects unless it exits 0.
 */
export const timeOutputAndExit = (cmd, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    let output = null
    let exit = null
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'], ...opts })
    child.stdout.on('data', () => {})
    child.stdout.on('close', () => (output = performance.now() - t0))
    child.on('error', reject)
    child.on('exit', () => (exit = performance.now() - t0))
    // 'close' comes once the process has exited and its stdout closed, whichever was last.
    child.on('close', (code) => (code === 0 ? resolve({ output, exit }) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`))))
  })

/**
 * CPU time (user + system, ms) of this process's finished children, from /proc on Linux; null
 * elsewhere. It moves in clock ticks (10 ms), so only a mean over many runs means anything, but
 * unlike wall time it barely moves when the machine is busy.
 */
export const childCpuMs = () => {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted from 3 after the command name.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS
  } catch {
    return null
  }
}
const CLOCK_TICKS = 100

/**
 * Runs every case once per round, in a rotating order, after `warmup` untimed rounds.
 * `cases` is {name: () => ms}. Returns {wall: {name: ms[]}, cpu: {name: ms | null}} where cpu
 * is the mean CPU time per run of the children the case spawned.
 */
export const interleave = (cases, { rounds = 40, warmup = 5 } = {}) => {
  const names = Object.keys(cases)
  const wall = Object.fromEntries(names.map((n) => [n, []]))
  const cpuTotal = Object.fromEntries(names.map((n) => [n, 0]))
  let haveCpu = childCpuMs() !== null
  for (let r = -warmup; r < rounds; r++) {
    const offset = ((r % names.length) + names.length) % names.length
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + offset) % names.length]
      const c0 = childCpuMs()
      const ms = cases[name]()
      const c1 = childCpuMs()
      if (r < 0) continue
      wall[name].push(ms)
      if (c0 === null || c1 === null) haveCpu = false
      else cpuTotal[name] += c1 - c0
    }
  }
  const cpu = Object.fromEntries(names.map((n) => [n, haveCpu && rounds > 0 ? cpuTotal[n] / rounds : null]))
  return { wall, cpu }
}

/**
 * The ratio of a candidate to a baseline: the median of the per-round ratios (paired, so
 * slow rounds cancel out), with the ratio of medians beside it as a cross-check.
 */
export const ratio = (candidate, baseline) => {
  const paired = candidate.map((c, i) => c / baseline[i])
  return { paired: median(paired), ofMedians: median(candidate) / median(baseline), spread: iqr(paired) }
}

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-')

/** A markdown table from a header row and rows of cells. */
export const table = (header, rows) => {
  const lines = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`)
  return lines.join('\n')
}

/** A private scratch folder, removed when the process exits. */
export const scratch = (prefix = 'trailboss-bench-') => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Parses `--runs N --warmup N --quick` style flags shared by the benchmarks. */
export const parseFlags = (argv = process.argv.slice(2)) => {
  const flags = { rounds: 40, warmup: 5, samples: 100, only: null, json: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--rounds' || a === '--runs') flags.rounds = Number(argv[++i])
    else if (a === '--warmup') flags.warmup = Number(argv[++i])
    else if (a === '--samples') flags.samples = Number(argv[++i])
    else if (a === '--only') flags.only = argv[++i].split(',')
    else if (a === '--json') flags.json = true
    else if (a === '--quick') Object.assign(flags, { rounds: 10, warmup: 2, samples: 30 })
  }
  return flags
}

/** The machine the figures came from, for the report's first lines. */
export const machine = async () => {
  const os = await import('node:os')
  return {
    node: process.version,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    platform: `${os.platform()} ${os.release()}`,
  }
}

/**
 * A section a benchmark returns: a title, a table, and notes. run.mjs prints them in order;
 * each bench/<name>.mjs also prints its own when run alone.
 */
export const printSection = (section) => {
  console.log(`\n## ${section.title}\n`)
  console.log(table(section.header, section.rows))
  for (const n of section.notes ?? []) console.log(`\n${n}`)
}

/** Runs a bench module's `run` and prints it when the module is the entry point. */
export const runIfMain = async (meta, run) => {
  if (process.argv[1] && new URL(meta.url).pathname === (await import('node:fs')).realpathSync(process.argv[1])) {
    const flags = parseFlags()
    const sections = await run(flags)
    if (flags.json) console.log(JSON.stringify(sections, null, 2))
    else for (const s of [sections].flat()) printSection(s)
  }
}
