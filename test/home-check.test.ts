import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { deriveHomeProblem } from '../lib/fs/home-check.js'
import { tempDir } from './helpers/emitter.js'

const isRoot = process.getuid?.() === 0

t.test('a home of our own, or one still to be made, may be used', async (t) => {
  const dir = tempDir(t)
  t.equal(deriveHomeProblem({ TRAILBOSS_HOME: join(dir, 'tb') }), null, 'not made yet')
  fs.mkdirSync(join(dir, 'tb', 'sessions'), { recursive: true, mode: 0o777 })
  t.equal(deriveHomeProblem({ TRAILBOSS_HOME: join(dir, 'tb') }), null, 'ours, however loose (the writer tightens it)')
  fs.rmSync(join(dir, 'tb', 'sessions'), { recursive: true })
  fs.writeFileSync(join(dir, 'tb', 'sessions'), '')
  t.same(deriveHomeProblem({ TRAILBOSS_HOME: join(dir, 'tb') }), { folder: join(dir, 'tb', 'sessions'), why: 'is not a folder' })
})

t.test(
  'a home or sessions folder of another user may not',
  { skip: isRoot ? false : 'needs root to make a folder of another user' },
  async (t) => {
    const dir = tempDir(t)
    const tb = join(dir, 'tb')
    fs.mkdirSync(join(tb, 'sessions'), { recursive: true })
    fs.chownSync(join(tb, 'sessions'), 4242, 4242)
    t.match(deriveHomeProblem({ TRAILBOSS_HOME: tb }), { folder: join(tb, 'sessions'), why: /^belongs to another user \(uid 4242/ })
    fs.chownSync(tb, 4242, 4242)
    t.match(deriveHomeProblem({ TRAILBOSS_HOME: tb }), { folder: tb, why: /^belongs to another user/ })
    fs.symlinkSync(tb, join(dir, 'link'))
    t.match(deriveHomeProblem({ TRAILBOSS_HOME: join(dir, 'link') }), { why: /belongs to another user/ }, 'also through a link')
  },
)
