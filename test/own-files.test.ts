import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { isRealDir, listRealDir, removeOwnEmptyDir, removeOwnFile, removeOwnFolder } from '../lib/fs/own-files.js'
import { listTree, tempDir } from './helpers/emitter.js'

t.test('nothing is reached through a link, only regular files and empty folders go', async (t) => {
  const dir = tempDir(t)
  const outside = join(dir, 'outside')
  fs.mkdirSync(join(outside, 'sub'), { recursive: true })
  fs.writeFileSync(join(outside, 'a.json'), 'keep')
  fs.writeFileSync(join(outside, 'sub', 'b.json'), 'keep')
  fs.symlinkSync(outside, join(dir, 'link'))
  t.notOk(isRealDir(join(dir, 'link')))
  t.same(listRealDir(join(dir, 'link')), [], 'a linked folder lists nothing')
  t.notOk(removeOwnFolder(join(dir, 'link'), () => true))
  t.notOk(removeOwnFile(join(dir, 'link')), 'a link is not a regular file')
  t.notOk(removeOwnEmptyDir(outside), 'a folder with content stays')
  t.same(listTree(outside), ['a.json', 'sub/', 'sub/b.json'])

  const own = join(dir, 'own')
  fs.mkdirSync(own)
  fs.writeFileSync(join(own, '1.json'), '')
  fs.writeFileSync(join(own, 'notes.txt'), '')
  fs.symlinkSync(join(outside, 'a.json'), join(own, '2.json'))
  t.notOk(
    removeOwnFolder(own, (n) => n.endsWith('.json')),
    'a foreign name and a link keep the folder',
  )
  t.same(fs.readdirSync(own).sort(), ['2.json', 'notes.txt'])
  t.equal(fs.readFileSync(join(outside, 'a.json'), 'utf8'), 'keep')
  fs.rmSync(join(own, '2.json'))
  fs.rmSync(join(own, 'notes.txt'))
  t.ok(
    removeOwnFolder(own, () => true),
    'an emptied folder of ours goes',
  )
})
