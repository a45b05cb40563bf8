// Issue #13, files that are not regular files: a FIFO, a device behind a symlink, a huge sparse
// file or a folder where a record, a pending event, a transcript, a settings file or a state
// file belongs. Every command must finish (a hang fails the bounded run), skip the file and say
// why, and the emitter must keep its deadline and leave no lock.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { cliBounded, emitBounded, type BoundedResult } from './helpers/bounded.js'
import { payload } from './helpers/emitter.js'
import { finished, labWithWait, mkfifo } from './helpers/hostile.js'

interface Skipped {
  file: string
  why: string
}

const skippedOf = (r: BoundedResult): Skipped[] => {
  try {
    return (JSON.parse(r.stdout) as { skipped: Skipped[] }).skipped
  } catch {
    return []
  }
}

t.test('a FIFO named like a record: every reading command finishes and skips it', async (t) => {
  const { lab, dir } = await labWithWait(t)
  mkfifo(join(dir, 'fifo0000-1.json'))
  const ls = await cliBounded(['ls', '--json'], lab.env)
  finished(t, ls, 'ls --json')
  t.equal(ls.code, 0, ls.stderr)
  t.match(skippedOf(ls), [{ file: /fifo0000-1\.json$/, why: /FIFO/ }], 'ls --json reports it skipped, with why')
  t.match(ls.stdout, /waiting1-aa/, 'the other sessions are there')
  // All at once: each is bounded on its own.
  const runs = [
    ['ls'],
    ['ls', '--plain'],
    ['status'],
    ['show', 'waiting1'],
    ['gc', '--dry-run'],
    ['notify', '--exec', 'cat', '--dry-run'],
    ['doctor'],
  ]
  const results = await Promise.all(runs.map((args) => cliBounded(args, lab.env)))
  runs.forEach((args, i) => {
    const r = results[i] as BoundedResult
    finished(t, r, args.join(' '))
    if (args[0] !== 'doctor') t.equal(r.code, 0, `${args.join(' ')} exits 0: ${r.stderr}`)
  })
  t.ok(fs.lstatSync(join(dir, 'fifo0000-1.json')).isFIFO(), 'the FIFO is left alone')
})

t.test('a FIFO as a pending event, and as an ended mark', async (t) => {
  const { lab, dir } = await labWithWait(t)
  fs.mkdirSync(join(dir, 'waiting1-aa.pending'), { mode: 0o700 })
  mkfifo(join(dir, 'waiting1-aa.pending', '000001700000000.000-1-x.json'))
  fs.mkdirSync(join(dir, '.ended'), { recursive: true, mode: 0o700 })
  mkfifo(join(dir, '.ended', 'waiting1-aa'))
  const runs = [['ls', '--json'], ['ls', '--all'], ['status'], ['show', 'waiting1']]
  const results = await Promise.all(runs.map((args) => cliBounded(args, lab.env)))
  runs.forEach((args, i) => {
    const r = results[i] as BoundedResult
    finished(t, r, args.join(' '))
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
  })
  // The emitter folds pending events under the lock: it must keep its deadline and unlock.
  const r = await emitBounded(JSON.stringify(payload('waiting1-aa', 'UserPromptSubmit', { prompt_id: 'p2' })), lab.env)
  finished(t, r, 'the emitter')
  t.equal(r.code, 0)
  t.notOk(fs.existsSync(join(dir, 'waiting1-aa.json.lock')), 'no lock left behind')
})

t.test('a FIFO where a transcript belongs: ls and show finish', async (t) => {
  const { lab } = await labWithWait(t)
  const transcript = lab.transcript('waiting1-aa')
  fs.rmSync(transcript)
  mkfifo(transcript)
  for (const args of [['ls', '--json'], ['show', 'waiting1'], ['status']]) {
    const r = await cliBounded(args, lab.env)
    finished(t, r, args.join(' '))
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
  }
})

t.test('a folder named like a transcript: show says it is not readable, not EISDIR', async (t) => {
  const { lab } = await labWithWait(t)
  const transcript = lab.transcript('waiting1-aa')
  fs.rmSync(transcript)
  fs.mkdirSync(transcript)
  const r = await cliBounded(['show', 'waiting1'], lab.env)
  finished(t, r, 'show')
  t.equal(r.code, 0, r.stderr)
  t.notMatch(r.stderr, /EISDIR/)
  t.match(r.stdout, /Transcript: not readable/)
})

t.test('a record that is a symlink to /dev/zero, and a 2 GB sparse record: skipped unread', async (t) => {
  const { lab, dir } = await labWithWait(t)
  fs.symlinkSync('/dev/zero', join(dir, 'zero0000-1.json'))
  const sparse = join(dir, 'sparse00-1.json')
  fs.closeSync(fs.openSync(sparse, 'w', 0o600))
  fs.truncateSync(sparse, 2 * 1024 * 1024 * 1024)
  const ls = await cliBounded(['ls', '--json'], lab.env)
  finished(t, ls, 'ls --json')
  t.equal(ls.code, 0, ls.stderr)
  const skipped = skippedOf(ls)
  t.match(
    skipped.find((s) => s.file.endsWith('zero0000-1.json')),
    { why: /symlink/ },
    'the link is not followed',
  )
  t.match(
    skipped.find((s) => s.file.endsWith('sparse00-1.json')),
    { why: /larger than/ },
    'the big file is not read',
  )
  const status = await cliBounded(['status'], lab.env)
  finished(t, status, 'status')
  t.equal(status.code, 0, status.stderr)
})
