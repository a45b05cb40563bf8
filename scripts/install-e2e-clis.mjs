// Installs what the end-to-end suite drives: test/e2e's own pinned Claude Code, the agent CLIs and
// the other Node majors the built CLI is run under (node-22, node-24), each pinned in its own folder
// under test/e2e/clis/ (its own package.json and lock file, so two builds of one CLI can sit side by
// side). `npm test` runs it beside the typecheck and the build (package.json "pretest").
// A folder whose node_modules already matches its lock file is left alone: `npm ci` would delete and
// unpack some hundred megabytes again on every `npm test`. The others are installed at once, not one
// after another: each is mostly waiting on the network and the disk. Any failure fails the script.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const e2e = join(root, 'test', 'e2e')
const clis = join(e2e, 'clis')

const readPackages = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).packages ?? {}
  } catch {
    return undefined
  }
}

/** npm's own record of what it unpacked (node_modules/.package-lock.json) agrees with the lock
 *  file: every installed package is the locked one, and every package that is not optional (other
 *  platforms' binaries are) is installed. */
const upToDate = (dir) => {
  const locked = readPackages(join(dir, 'package-lock.json'))
  const installed = readPackages(join(dir, 'node_modules', '.package-lock.json'))
  if (!locked || !installed) return false
  const same = (a, b) => a !== undefined && b !== undefined && a.version === b.version && a.integrity === b.integrity
  return (
    Object.entries(installed).every(([k, v]) => same(v, locked[k])) &&
    Object.entries(locked).every(([k, v]) => k === '' || v.optional === true || same(v, installed[k]))
  )
}

/** `npm ci` in one folder; its output is printed whole when it ends, so parallel installs do not interleave. */
const install = (dir) =>
  new Promise((resolve) => {
    const name = relative(root, dir)
    console.log(`e2e: installing ${name}`)
    const child = spawn('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const out = []
    child.stdout.on('data', (c) => out.push(c))
    child.stderr.on('data', (c) => out.push(c))
    const done = (ok, why) => {
      process.stdout.write(Buffer.concat(out))
      if (!ok) console.error(`e2e: npm ci failed in ${name} (${why})`)
      resolve(ok)
    }
    child.on('error', (err) => done(false, err.message))
    child.on('close', (code, signal) => done(code === 0, signal ?? `exit ${code}`))
  })

const dirs = [
  e2e,
  ...readdirSync(clis)
    .sort()
    .map((name) => join(clis, name)),
].filter((dir) => existsSync(join(dir, 'package-lock.json')) && !upToDate(dir))
const results = await Promise.all(dirs.map(install))
process.exit(results.every(Boolean) ? 0 : 1)
