// `status --format '{blocked}'` (agent time blocked today, docs/design.md §11.7) over a day of
// 50,000 history lines, against `status` without it: with the daily summary up to date (what a
// status line running every few seconds meets; a few lines appended before each run) and
// without one (the first run of the day: the whole day read). Ratios are paired, interleaved.
import * as fs from 'node:fs'
import { join } from 'node:path'
import { CLI, fmt, interleave, median, ratio, runIfMain, scratch, timeSpawn } from './lib.mjs'

export const LINES = 50_000
const SESSIONS = 200
const CYCLE = [
  ['working', null],
  ['permission', 'permission'],
  ['working', null],
  ['waiting', 'done'],
]

const line = (i, at) => {
  const [to, kind] = CYCLE[Math.floor(i / SESSIONS) % CYCLE.length]
  const [from] = CYCLE[(Math.floor(i / SESSIONS) + CYCLE.length - 1) % CYCLE.length]
  const e = {
    v: 1,
    at,
    sessionId: `bench-${i % SESSIONS}`,
    agent: 'claude-code',
    project: `p${i % 7}`,
    host: 'local',
    from,
    to,
    kind,
    by: 'hook',
  }
  if (kind) e.ask = 'Bash: npm test -- --grep "a command of ordinary length for the ask field"'
  return `${JSON.stringify(e)}\n`
}

const makeDay = () => {
  const root = scratch('tb-bench-blocked-')
  const home = join(root, 'tb')
  const dir = join(home, 'history')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const now = Date.now()
  const dayStart = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`)
  const from = Math.max(dayStart, now - 12 * 3_600_000)
  const step = (now - 1000 - from) / LINES
  const file = join(dir, `${new Date(now).toISOString().slice(0, 10)}.jsonl`)
  let text = ''
  for (let i = 0; i < LINES; i++) text += line(i, Math.round(from + i * step))
  fs.writeFileSync(file, text, { mode: 0o600 })
  // UTC: the local day is the file's day.
  const env = { PATH: process.env.PATH, HOME: root, TRAILBOSS_HOME: home, TZ: 'UTC' }
  let n = LINES
  return {
    env,
    file,
    summary: join(dir, '.today.json'),
    bytes: text.length,
    more: () => fs.appendFileSync(file, line(n++, Date.now() - 500)),
  }
}

export const run = async (flags) => {
  const day = makeDay()
  const status = (args) => () => timeSpawn(process.execPath, [CLI, 'status', ...args], { env: day.env })
  const blocked = ['--format', '{count} · {blocked}']
  const { wall } = interleave(
    {
      'node -e 0': () => timeSpawn(process.execPath, ['-e', '0'], { env: day.env }),
      status: status([]),
      "status --format '{blocked}', summary up to date": () => {
        for (let i = 0; i < 5; i++) day.more()
        return status(blocked)()
      },
      "status --format '{blocked}', no summary (the day read whole)": () => {
        fs.rmSync(day.summary, { force: true })
        return status(blocked)()
      },
    },
    flags,
  )
  const base = wall.status
  const rows = Object.entries(wall).map(([name, xs]) => [
    name,
    fmt(median(xs)),
    `${fmt(ratio(xs, base).paired, 2)}×`,
    `${fmt(ratio(xs, wall['node -e 0']).paired, 2)}×`,
  ])
  const warm = ratio(wall["status --format '{blocked}', summary up to date"], base).paired
  const cold = ratio(wall["status --format '{blocked}', no summary (the day read whole)"], base).paired
  return [
    {
      title: `status {blocked} over a day of ${LINES.toLocaleString('en-US')} history lines`,
      header: ['what', 'median ms', 'vs status', 'vs node -e 0'],
      rows,
      notes: [
        `${flags.rounds} interleaved rounds after ${flags.warmup} warm-up rounds; a day file of ${(day.bytes / 1e6).toFixed(1)} MB, ${SESSIONS} sessions.`,
        `{blocked} vs status: ${fmt(warm, 2)}× with the summary up to date, ${fmt(cold, 2)}× when the day is read whole (once a day, or after a line out of order).`,
      ],
      figures: { blockedVsStatus: warm, blockedColdVsStatus: cold },
    },
  ]
}

await runIfMain(import.meta, run)
