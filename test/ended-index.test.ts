// The ended index (sessions/.ended/<id>): readers that never show ended sessions skip opening
// the records it marks, so it must only ever mark ended ones. These tests hold the writers to
// that rule, with the real emitter and with random event sequences, and show that the reader
// really does rely on it (a marked record is not opened).
import fc from 'fast-check'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { HookEvent } from '../lib/record/types.js'
import { endedIndexDir, recordFile, sessionsDir } from '../lib/paths.js'
import { readEndedMarks, unmarkEnded } from '../lib/record/ended-index.js'
import { writePendingEvent } from '../lib/record/pending-events.js'
import { recordEvent } from '../lib/record/write.js'
import { readStore, type StoreContents } from '../lib/record/read.js'
import { runInProcess } from './helpers/cli.js'
import { tempDir } from './helpers/emitter.js'
import { startLab, type Lab } from './helpers/session-lab.js'
import { hookEvent } from './helpers/hook-event.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

interface LsJson {
  queue: { sessionId: string; state: string }[]
  skipped: { file: string; why: string }[]
}

const tempDirRoot = fs.mkdtempSync(join(tmpdir(), 'trailboss-ended-'))
t.teardown(() => fs.rmSync(tempDirRoot, { recursive: true, force: true }))

const sessionsOf = (env: Record<string, string | undefined>): string => join(String(env.TRAILBOSS_HOME), 'sessions')

/** A lab (private tmux server, real emitter) with one agent pane, and its sessions folder. */
const openLab = (t: Test): { lab: Lab; pane: string; dir: string } => {
  const lab = startLab(tempDir(t))
  t.teardown(lab.close)
  return { lab, pane: lab.newPane(), dir: sessionsOf(lab.env) }
}

/** The session ids in `trailboss ls --json`, in queue order. */
const queueIds = async (lab: Lab): Promise<string[]> =>
  (JSON.parse((await runInProcess(['ls', '--json'], lab.env)).stdout) as LsJson).queue.map((i) => i.sessionId)

t.test('the real emitter marks a session when it ends and unmarks it when it comes back', async (t) => {
  const { lab, pane, dir } = openLab(t)
  const id = 'resumed0-1'
  const marked = (): boolean => readEndedMarks(dir).has(id)
  await lab.emit(id, 'SessionStart', { source: 'startup' }, { pane })
  await lab.emit(id, 'Stop', { prompt_id: 'p1', last_assistant_message: 'Done.' }, { pane })
  t.notOk(marked(), 'a live session has no mark')
  await lab.emit(id, 'SessionEnd', { reason: 'other' }, { pane })
  t.ok(marked(), 'SessionEnd marks it')
  t.equal(fs.statSync(join(endedIndexDir(dir), id)).mode & 0o777, 0o600)
  t.equal(fs.statSync(endedIndexDir(dir)).mode & 0o777, 0o700)
  t.same(await queueIds(lab), [])

  await lab.emit(id, 'SessionStart', { source: 'resume' }, { pane })
  t.notOk(marked(), '--resume keeps the id, and the mark goes')
  await lab.emit(id, 'Stop', { prompt_id: 'p2', last_assistant_message: 'Back. Next?' }, { pane })
  const ls = JSON.parse((await runInProcess(['ls', '--json'], lab.env)).stdout) as LsJson
  t.same(
    ls.queue.map((i) => [i.sessionId, i.state]),
    [[id, 'waiting']],
    'the resumed session waits in the queue',
  )
  await lab.emit(id, 'SessionEnd', { reason: 'exit' }, { pane })
  t.ok(marked(), 'and ends again')
})

t.test('a mark left behind by a removed record never hides the new one', async (t) => {
  const { lab, pane, dir } = openLab(t)
  await lab.emit('reborn00-1', 'SessionEnd', { reason: 'other' }, { pane })
  // The record removed by hand, its mark left: the next first event must not inherit it.
  fs.rmSync(recordFile(dir, 'reborn00-1'))
  t.ok(readEndedMarks(dir).has('reborn00-1'))
  await lab.emit('reborn00-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'Done.' }, { pane })
  t.notOk(readEndedMarks(dir).has('reborn00-1'))
  t.same(await queueIds(lab), ['reborn00-1'])
})

t.test('ls does not open marked records; ls --all does', async (t) => {
  const { lab, pane, dir } = openLab(t)
  await lab.emit('marked00-1', 'SessionEnd', { reason: 'other' }, { pane })
  await lab.emit('waiting0-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'Done.' }, { pane })
  // Damaged after it was marked: only a reader that opens the file can notice.
  fs.writeFileSync(recordFile(dir, 'marked00-1'), '{"v":1,')
  const ls = await runInProcess(['ls', '--json'], lab.env)
  t.equal(ls.stderr, '', 'the marked record was not opened')
  t.same(
    (JSON.parse(ls.stdout) as LsJson).queue.map((i) => i.sessionId),
    ['waiting0-1'],
  )
  const all = await runInProcess(['ls', '--json', '--all'], lab.env)
  t.match(all.stderr, /skipped .*marked00-1\.json: not valid JSON/)
  const keys = (JSON.parse(ls.stdout) as { queue: { key: string }[] }).queue.map((i) => i.key)
  t.same(keys, ['waiting0'], 'keys still count the marked session (unique at 8 characters)')
  // Without its mark the same read opens the file and says so.
  unmarkEnded(dir, 'marked00-1')
  t.match((await runInProcess(['ls', '--json'], lab.env)).stderr, /skipped .*marked00-1\.json: not valid JSON/)
})

t.test('something else where the index belongs: nothing fails, nothing is deleted', async (t) => {
  const { lab, pane, dir } = openLab(t)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(endedIndexDir(dir), 'not ours')
  await lab.emit('foreign0-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'Done.' }, { pane })
  await lab.emit('foreign0-2', 'SessionEnd', { reason: 'other' }, { pane })
  const ls = await runInProcess(['ls', '--json'], lab.env)
  t.equal(ls.code, 0, ls.stderr)
  t.same(
    (JSON.parse(ls.stdout) as LsJson).queue.map((i) => i.sessionId),
    ['foreign0-1'],
    'the ended session is read and left out',
  )
  t.equal(fs.readFileSync(endedIndexDir(dir), 'utf8'), 'not ours')
  t.match(fs.readFileSync(join(String(lab.env.TRAILBOSS_HOME), 'log'), 'utf8'), /could not mark foreign0-2 ended in the index/)
})

t.test('a link planted where a mark goes is not followed', async (t) => {
  const { lab, pane, dir } = openLab(t)
  const target = join(lab.root, 'elsewhere')
  fs.mkdirSync(endedIndexDir(dir), { recursive: true })
  fs.symlinkSync(target, join(endedIndexDir(dir), 'linked00-1'))
  await lab.emit('linked00-1', 'SessionEnd', { reason: 'other' }, { pane })
  t.notOk(fs.existsSync(target), 'nothing created through the link')
  t.match(fs.readFileSync(join(String(lab.env.TRAILBOSS_HOME), 'log'), 'utf8'), /could not mark linked00-1 ended in the index/)
  t.equal((await runInProcess(['ls', '--json', '--all'], lab.env)).code, 0)
})

t.test('doctor fails a mark on a live session and gives the safe fix', async (t) => {
  const { lab, pane, dir } = openLab(t)
  await lab.emit('hidden00-1', 'Stop', { prompt_id: 'p', last_assistant_message: 'Done.' }, { pane })
  // What no writer of ours does: a mark on a live session hides it.
  fs.mkdirSync(endedIndexDir(dir), { recursive: true })
  fs.writeFileSync(join(endedIndexDir(dir), 'hidden00-1'), '')
  t.same(await queueIds(lab), [], 'the reader trusts the index')
  const doctor = JSON.parse((await runInProcess(['doctor', '--json'], lab.env)).stdout) as {
    checks: { id: string; status: string; fix: string | null }[]
  }
  const check = doctor.checks.find((c) => c.id === 'ended-index')
  t.equal(check?.status, 'fail')
  t.match(check?.fix, `rm ${join(endedIndexDir(dir), 'hidden00-1')}`)
  fs.rmSync(join(endedIndexDir(dir), 'hidden00-1'))
  t.same(await queueIds(lab), ['hidden00-1'])
})

const event = (sessionId: string, name: string, stamp: number, extra: Partial<HookEvent> = {}): HookEvent =>
  hookEvent({ stamp, name, sessionId, promptId: `p${stamp}`, message: 'Done.', ...extra })

/** What ls without --all can see: the live records, and which sessions are ended. */
const partition = (s: StoreContents): { live: unknown[]; ended: string[] } => ({
  live: s.records.filter((r) => r.state !== 'ended').sort((a, b) => a.sessionId.localeCompare(b.sessionId)),
  ended: [...s.endedIds, ...s.records.filter((r) => r.state === 'ended').map((r) => r.sessionId)].sort(),
})

t.test('random sequences: a mark only ever names an ended record, and the light read equals the full one', async (t) => {
  const ids = ['s1', 's2', 's3']
  const step = fc.record({
    id: fc.constantFrom(...ids),
    op: fc.constantFrom(
      'SessionStart',
      'UserPromptSubmit',
      'Stop',
      'PermissionRequest',
      'SessionEnd',
      'SessionEnd',
      'pending',
      'remove',
      'stale-mark',
    ),
    late: fc.boolean(),
  })
  let runs = 0
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      runs++
      const home = fs.mkdtempSync(join(tempDirRoot, 'run-'))
      const dir = join(home, 'sessions')
      fs.mkdirSync(dir, { recursive: true })
      const env = { TRAILBOSS_HOME: home }
      let stamp = 1000
      try {
        for (const s of steps) {
          stamp += 1
          // A late event (stamped before the last one) must not move the state, nor the index.
          const at = s.late ? stamp - 500 : stamp
          if (s.op === 'remove')
            fs.rmSync(recordFile(dir, s.id), { force: true }) // gc or a person
          else if (s.op === 'stale-mark') {
            if (!fs.existsSync(recordFile(dir, s.id))) {
              fs.mkdirSync(endedIndexDir(dir), { recursive: true })
              fs.writeFileSync(join(endedIndexDir(dir), s.id), '')
            }
          } else if (s.op === 'pending') writePendingEvent(dir, event(s.id, 'SessionStart', at, { source: 'resume' }))
          else await recordEvent(dir, event(s.id, s.op, at, s.op === 'SessionStart' ? { source: 'resume' } : {}), { agents: hooksFor })
          for (const id of readEndedMarks(dir)) {
            const text = fs.existsSync(recordFile(dir, id)) ? fs.readFileSync(recordFile(dir, id), 'utf8') : null
            if (text !== null && (JSON.parse(text) as { state: string }).state !== 'ended')
              throw new Error(`${id} is marked but its record says ${text}`)
          }
          const light = partition(await readStore(env, sessionsDir(env), { agents: hooksFor, skipEnded: true }))
          const full = partition(await readStore(env, sessionsDir(env), { agents: hooksFor }))
          if (JSON.stringify(light) !== JSON.stringify(full))
            throw new Error(`light read ${JSON.stringify(light)} != full read ${JSON.stringify(full)}`)
        }
      } finally {
        fs.rmSync(home, { recursive: true, force: true })
      }
    }),
    { numRuns: 60 },
  )
  t.equal(runs, 60)
})
