// The spool's lost events, for a person: the fold keeps them aside as `<name>.lost`, `doctor`
// lists them and `gc` removes them past its threshold. Real spool.sh and fold processes, doctor
// and gc in-process, on real files. Run `npm run build` first.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkLostEvents, LOST_EVENTS_LISTED } from '../lib/doctor/checks.js'
import { findOnPath } from '../lib/fs/find-on-path.js'
import { listSpool, parseSpoolAgent, SPOOL_LOST_MS, spoolDir } from '../lib/record/spool.js'
import { listLostSpool } from '../lib/record/spool-lost.js'
import { runInProcess } from './helpers/cli.js'
import { baseEnv, BUILT_EMITTER, tempDir } from './helpers/emitter.js'

const DIST_SPOOL = new URL('../dist/hooks/spool.sh', import.meta.url).pathname
const DAY = 86_400_000

t.test('checkLostEvents: how many, whose, the oldest, where, and what to do', async (t) => {
  t.match(checkLostEvents('/h/sessions/.spool', [], '/h/log', '7d'), { id: 'spool:lost', status: 'ok' })
  const files = Array.from({ length: LOST_EVENTS_LISTED + 2 }, (_, i) => ({
    name: `${i}-1.ev.lost`,
    agent: i === 0 ? null : i % 2 ? 'codex' : 'gemini',
    ageMs: (i + 1) * DAY,
  }))
  const c = checkLostEvents('/h/sessions/.spool', files, '/h/log', '7d')
  t.equal(c.status, 'warn')
  t.equal(
    c.summary,
    '7 lost events in /h/sessions/.spool (no agent named 1, codex 3, gemini 3), the oldest 7d old: agent events that reached no session record',
  )
  t.match(
    c.fix,
    /^\/h\/log says why each was lost .*trailboss gc removes them once older than 7d, or now: rm \/h\/sessions\/\.spool\/\*\.ev\.lost$/,
  )
  t.match(
    checkLostEvents('/s', [files[1]!], '/l', '7d').summary,
    /^1 lost event in \/s \(codex 1\), the oldest 2d old: an agent event that reached/,
  )
  t.same(
    c.details,
    [
      '0-1.ev.lost: no agent named, 1d old',
      '1-1.ev.lost: codex, 2d old',
      '2-1.ev.lost: gemini, 3d old',
      '3-1.ev.lost: codex, 4d old',
      '4-1.ev.lost: gemini, 5d old',
      'and 2 older',
    ],
    'the newest, named',
  )
  t.equal(parseSpoolAgent('trailboss-spool 1\nagent gemini\nenv TMUX=x\n'), 'gemini')
  t.equal(parseSpoolAgent('trailboss-spool 1\nage'), null, 'cut before its agent')
  t.equal(parseSpoolAgent('something else\nagent codex\n'), null)
})

t.test('lost events: kept aside by the fold, listed by doctor, removed by gc past its threshold only', async (t) => {
  const root = tempDir(t)
  const env = baseEnv(root)
  fs.mkdirSync(join(root, 'home'), { recursive: true })
  const sdir = spoolDir(join(root, 'tb', 'sessions'))
  const spool = (agent: string, input: string): string => {
    const before = new Set(listSpool(sdir).map((f) => f.name))
    t.equal(spawnSync('/bin/sh', [DIST_SPOOL, agent], { input, env }).status, 0, `spool.sh ${agent} exits 0`)
    return listSpool(sdir).find((f) => !before.has(f.name))?.name ?? ''
  }
  // Whole, but not JSON; and a payload cut short, its hook gone 31 s ago.
  const notJson = spool('codex', 'not JSON at all {')
  const cut = spool('gemini', '{"session_id":"g1","hook_event_name":"AfterAg')
  const old = (Date.now() - SPOOL_LOST_MS - 1000) / 1000
  fs.utimesSync(join(sdir, cut), old, old)
  t.equal(spawnSync(process.execPath, [BUILT_EMITTER, '--fold-spool'], { env }).status, 0, 'a fold')
  t.same(listSpool(sdir), [], 'both out of the spool')
  t.same(
    listLostSpool(sdir)
      .map((f) => [f.name, f.agent])
      .sort(),
    [
      [`${cut}.lost`, 'gemini'],
      [`${notJson}.lost`, 'codex'],
    ].sort(),
    'kept aside, with their agents',
  )
  // The not-JSON one came 8 days ago: past gc's default threshold (7d).
  const lostOld = join(sdir, `${notJson}.lost`)
  const eightDays = (Date.now() - 8 * DAY) / 1000
  fs.utimesSync(lostOld, eightDays, eightDays)
  // Not ours to remove: a link named as a lost event (to a file elsewhere), and a foreign name.
  const elsewhere = join(root, 'elsewhere')
  fs.writeFileSync(elsewhere, 'keep me')
  fs.symlinkSync(elsewhere, join(sdir, '9-9.ev.lost'))
  fs.writeFileSync(join(sdir, 'notes.lost'), 'mine')
  fs.utimesSync(join(sdir, 'notes.lost'), eightDays, eightDays)

  // doctor with tmux on PATH and no agent: quick, and its other checks say nothing of the spool.
  const bin = join(root, 'bin')
  fs.mkdirSync(bin)
  const tmux = findOnPath('tmux', process.env.PATH)
  if (tmux) fs.symlinkSync(tmux, join(bin, 'tmux'))
  const doctorEnv = { ...env, PATH: bin }
  const doctor = JSON.parse((await runInProcess(['doctor', '--json'], doctorEnv)).stdout) as {
    checks: { id: string; status: string; summary: string; fix: string | null; details?: string[] }[]
  }
  const check = doctor.checks.find((c) => c.id === 'spool:lost')
  t.match(check, {
    status: 'warn',
    summary: `2 lost events in ${sdir} (codex 1, gemini 1), the oldest 8d old: agent events that reached no session record`,
  })
  t.match(check?.fix, `${join(root, 'tb', 'log')} says why each was lost`)
  t.match(
    check?.details,
    [new RegExp(`^${cut.replace('.', '\\.')}\\.lost: gemini, (3[1-9]|[4-9]\\d)s old$`), `${notJson}.lost: codex, 8d old`],
    'each named, newest first',
  )
  const logCheck = doctor.checks.find((c) => c.id === 'log')
  t.equal(logCheck?.status, 'warn', 'the log check counts the fold’s lines as problems')
  t.match(logCheck?.details?.join('\n'), new RegExp(`lost event: spool file ${notJson.replace('.', '\\.')}.*payload is not JSON`))
  t.match(logCheck?.details?.join('\n'), new RegExp(`lost event: spool file ${cut.replace('.', '\\.')}.*payload ends before its JSON does`))

  const dry = await runInProcess(['gc', '--dry-run'], env)
  t.equal(dry.code, 0, dry.stderr)
  t.match(dry.stdout, `would remove lost event ${lostOld} (codex, 8d old)\n`)
  t.match(dry.stdout, 'would remove 1 lost spool event older than 7d\n')
  t.ok(fs.existsSync(lostOld), 'a dry run removes nothing')

  const gc = await runInProcess(['gc'], env)
  t.equal(gc.code, 0, gc.stderr)
  t.match(gc.stdout, `removed lost event ${lostOld} (codex, 8d old)\n`)
  t.match(gc.stdout, 'removed 1 lost spool event older than 7d\n')
  t.notOk(fs.existsSync(lostOld), 'the old one is gone')
  t.same(
    listLostSpool(sdir).map((f) => f.name),
    [`${cut}.lost`],
    'the young one stays',
  )
  t.ok(fs.lstatSync(join(sdir, '9-9.ev.lost')).isSymbolicLink(), 'a link named as one stays')
  t.equal(fs.readFileSync(elsewhere, 'utf8'), 'keep me', 'and what it points to')
  t.ok(fs.existsSync(join(sdir, 'notes.lost')), 'a foreign name stays')
  t.match(
    fs.readFileSync(join(root, 'tb', 'log'), 'utf8'),
    new RegExp(`gc\\[\\d+\\] removed ${lostOld.replace(/\./g, '\\.')} \\(kept aside from the spool, codex, 8d old\\)`),
    'said in the log',
  )

  const again = await runInProcess(['gc'], env)
  t.notMatch(again.stdout, /lost/, 'nothing more to say')
})
