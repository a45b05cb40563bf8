// Issue #13, gc follows symlinks: cleaning removes only regular files (or our own empty
// folders) named as ours, found with lstat, inside the sessions folder. Links planted where
// our folders belong (.ended, .tmp, <id>.pending) lead nowhere.
import * as fs from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { cliBounded } from './helpers/bounded.js'
import { listTree, tempDir } from './helpers/emitter.js'
import { startLab, type Lab } from './helpers/session-lab.js'

const aged = (path: string): void => {
  const old = new Date(Date.now() - 3600_000)
  fs.lutimesSync(path, old, old)
}

/** A lab with one session that ended in a live pane; `dir` is its sessions folder. */
const labWithEnded = async (t: Test, sid: string): Promise<{ lab: Lab; dir: string }> => {
  const lab = startLab(tempDir(t))
  t.teardown(lab.close)
  await lab.emit(sid, 'SessionEnd', { reason: 'other' }, { pane: lab.newPane() })
  return { lab, dir: join(String(lab.env.TRAILBOSS_HOME), 'sessions') }
}

t.test('gc never deletes through a planted link, nor anything not ours', async (t) => {
  const { lab, dir } = await labWithEnded(t, 'ended000-1')
  const outside = join(lab.root, 'precious')
  // Named like marks, temp files and locks, with old mtimes: what gc would take if it followed.
  fs.mkdirSync(join(outside, 'ended-index'), { recursive: true })
  fs.writeFileSync(join(outside, 'ended-index', 'orphan00-1'), 'keep me')
  fs.writeFileSync(join(outside, 'ended-index', 'notes.txt'), 'keep me')
  fs.mkdirSync(join(outside, 'temp', 'work.tmp'), { recursive: true })
  fs.writeFileSync(join(outside, 'temp', 'work.tmp', 'inside'), 'keep me')
  fs.writeFileSync(join(outside, 'temp', 'a.1.aa.tmp'), 'keep me')
  fs.mkdirSync(join(outside, 'pending'))
  fs.writeFileSync(join(outside, 'pending', '0001-1-a.json'), 'keep me')
  for (const p of [join(outside, 'temp', 'work.tmp'), join(outside, 'temp', 'a.1.aa.tmp'), join(outside, 'ended-index', 'orphan00-1')])
    aged(p)
  fs.rmSync(join(dir, '.ended'), { recursive: true, force: true })
  fs.symlinkSync(join(outside, 'ended-index'), join(dir, '.ended'))
  fs.rmSync(join(dir, '.tmp'), { recursive: true, force: true })
  fs.symlinkSync(join(outside, 'temp'), join(dir, '.tmp'))
  fs.symlinkSync(join(outside, 'pending'), join(dir, 'ended000-1.pending'))
  // A folder named like a lock that holds something is not a lock of ours.
  fs.mkdirSync(join(dir, 'other000-1.json.lock'))
  fs.writeFileSync(join(dir, 'other000-1.json.lock', 'data'), 'keep me')
  aged(join(dir, 'other000-1.json.lock'))
  const before = listTree(outside)

  const r = await cliBounded(['gc', '--older-than', '0s'], lab.env)
  t.notOk(r.hung, 'gc finishes')
  t.equal(r.code, 0, r.stderr)
  t.same(listTree(outside), before, 'nothing outside the sessions folder is removed')
  for (const f of ['ended-index/orphan00-1', 'temp/a.1.aa.tmp', 'temp/work.tmp/inside', 'pending/0001-1-a.json'])
    t.equal(fs.readFileSync(join(outside, f), 'utf8'), 'keep me', f)
  t.ok(fs.existsSync(join(dir, 'other000-1.json.lock', 'data')), 'a lock-named folder with content stays')
  t.match(r.stdout, /removed ended000/, 'the ended session itself is retired')
  t.notOk(fs.existsSync(join(dir, 'ended000-1.json')))
})

t.test('gc leaves a FIFO named like a temp file alone', async (t) => {
  const { lab, dir } = await labWithEnded(t, 'ended000-2')
  // Named as our leftover, but not a regular file: not ours to remove.
  fs.mkdirSync(join(dir, '.tmp'), { recursive: true })
  const fifo = join(dir, '.tmp', 'ended000-2.1.bb.tmp')
  const { execFileSync } = await import('node:child_process')
  execFileSync('mkfifo', [fifo])
  aged(fifo)
  const r = await cliBounded(['gc', '--older-than', '0s'], lab.env)
  t.notOk(r.hung, 'gc finishes')
  t.equal(r.code, 0, r.stderr)
  t.ok(fs.lstatSync(fifo).isFIFO(), 'a FIFO named like a temp file is not ours to remove')
})
