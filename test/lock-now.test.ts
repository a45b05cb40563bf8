import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { describeWriteError, lockNow } from '../lib/fs/lock-now.js'
import { tempDir } from './helpers/emitter.js'

/** node:fs, counting proper-lockfile's attempts to make its lock folder (the first one is synchronous). */
const countingFs = (): { fs: typeof fs; attempts: () => number } => {
  let n = 0
  const wrapped = {
    ...fs,
    mkdir: (...args: Parameters<typeof fs.mkdir>) => {
      n++
      return fs.mkdir(...args)
    },
    mkdirSync: (...args: Parameters<typeof fs.mkdirSync>) => {
      n++
      return fs.mkdirSync(...args)
    },
  } as typeof fs
  return { fs: wrapped, attempts: () => n }
}

const LONG_RETRIES = { retries: 1000, minTimeout: 10, maxTimeout: 50, maxRetryTime: 60_000 }

t.test('a lock that cannot be made fails on the first attempt, whatever the retry budget', async (t) => {
  const dir = tempDir(t)
  const c = countingFs()
  await t.rejects(lockNow(join(dir, 'no-such-folder', 'f'), { realpath: false, retries: LONG_RETRIES, fs: c.fs }), { code: 'ENOENT' })
  t.equal(c.attempts(), 1, 'tried once, not for a minute')
})

t.test('a lock another holder has is waited for', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, 'f')
  const first = await lockNow(file, { realpath: false })
  const c = countingFs()
  const second = lockNow(file, { realpath: false, retries: LONG_RETRIES, fs: c.fs })
  setTimeout(() => void first(), 100)
  const release = await second
  t.ok(c.attempts() > 1, `retried while it was held (${c.attempts()} attempts)`)
  await release()
  t.notOk(fs.existsSync(`${file}.lock`))
})

t.test('describeWriteError says why in words', async (t) => {
  const e = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code })
  t.equal(describeWriteError(e('EROFS')), 'read-only file system')
  t.equal(describeWriteError(e('EACCES')), 'permission denied')
  t.equal(describeWriteError(e('EXYZ')), 'EXYZ')
})
