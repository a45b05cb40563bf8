import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import {
  appendPrivate,
  checkOwnFolder,
  deriveFolderProblem,
  readRegularFile,
  readRegularIfExists,
  withRegularFile,
} from '../lib/fs/safe-file.js'
import { tempDir } from './helpers/emitter.js'

const isRoot = process.getuid?.() === 0

t.test('readRegularFile reads a regular file, and refuses everything else without blocking', async (t) => {
  const dir = tempDir(t)
  fs.writeFileSync(join(dir, 'plain'), 'hello')
  execFileSync('mkfifo', [join(dir, 'fifo')])
  fs.mkdirSync(join(dir, 'folder'))
  fs.symlinkSync(join(dir, 'plain'), join(dir, 'link'))
  fs.symlinkSync('/dev/zero', join(dir, 'zero'))
  const big = join(dir, 'big')
  fs.closeSync(fs.openSync(big, 'w'))
  fs.truncateSync(big, 2 * 1024 * 1024 * 1024)
  const cap = 1024
  t.match(readRegularFile(join(dir, 'plain'), { cap }), { ok: true, text: 'hello' })
  t.match(readRegularFile(join(dir, 'fifo'), { cap }), { ok: false, why: 'a FIFO, not a regular file', missing: false })
  t.match(readRegularFile(join(dir, 'folder'), { cap }), { ok: false, why: 'a folder, not a regular file' })
  t.match(readRegularFile(join(dir, 'link'), { cap }), { ok: false, why: 'a symlink, not followed' })
  t.match(readRegularFile(join(dir, 'link'), { cap, follow: true }), { ok: true, text: 'hello' }, 'a link is followed when asked')
  t.match(readRegularFile(join(dir, 'zero'), { cap, follow: true }), { ok: false, why: 'a character device, not a regular file' })
  t.match(readRegularFile(big, { cap }), { ok: false, why: /^larger than 1024 bytes/ })
  t.match(readRegularFile(join(dir, 'none'), { cap }), { ok: false, missing: true })
  t.equal(readRegularIfExists(join(dir, 'none'), { cap }), null)
  t.equal(readRegularIfExists(join(dir, 'plain'), { cap }), 'hello')
  t.match(readRegularIfExists(join(dir, 'fifo'), { cap }), { ok: false })
  t.equal(
    withRegularFile(join(dir, 'plain'), {}, (_fd, st) => st.size),
    5,
    'withRegularFile hands over the descriptor',
  )
})

t.test('ownOnly refuses a file of another user', { skip: isRoot ? false : 'needs root to make a file of another user' }, async (t) => {
  const dir = tempDir(t)
  fs.writeFileSync(join(dir, 'theirs'), '{}')
  fs.chownSync(join(dir, 'theirs'), 4242, 4242)
  t.match(readRegularFile(join(dir, 'theirs'), { cap: 10, ownOnly: true }), { ok: false, why: 'owned by another user (uid 4242)' })
  t.match(readRegularFile(join(dir, 'theirs'), { cap: 10 }), { ok: true }, 'without ownOnly it is read')
  fs.mkdirSync(join(dir, 'home'))
  fs.chownSync(join(dir, 'home'), 4242, 4242)
  t.match(checkOwnFolder(join(dir, 'home')), /belongs to another user \(uid 4242/)
})

t.test('appendPrivate never writes through a link or into a FIFO', async (t) => {
  const dir = tempDir(t)
  const log = join(dir, 'log')
  appendPrivate(log, 'one\n')
  appendPrivate(log, 'two\n')
  t.equal(fs.readFileSync(log, 'utf8'), 'one\ntwo\n')
  t.equal((fs.statSync(log).mode & 0o777).toString(8), '600')
  fs.writeFileSync(join(dir, 'victim'), 'original')
  fs.symlinkSync(join(dir, 'victim'), join(dir, 'link'))
  t.throws(() => appendPrivate(join(dir, 'link'), 'x'))
  t.equal(fs.readFileSync(join(dir, 'victim'), 'utf8'), 'original')
  execFileSync('mkfifo', [join(dir, 'fifo')])
  t.throws(() => appendPrivate(join(dir, 'fifo'), 'x'), 'a FIFO without a reader: refused at once, not blocked on')
})

t.test('checkOwnFolder: ours, missing, a file', async (t) => {
  const dir = tempDir(t)
  t.equal(checkOwnFolder(dir), null)
  t.equal(checkOwnFolder(join(dir, 'none')), null, 'a folder still to be made is fine')
  fs.writeFileSync(join(dir, 'f'), '')
  t.equal(checkOwnFolder(join(dir, 'f')), 'is not a folder')
  const st = { uid: 7, mode: 0o40700, isDirectory: () => true }
  t.equal(deriveFolderProblem(st, 7), null)
  t.match(deriveFolderProblem(st, 8), /another user \(uid 7, we are 8\)/)
})
