// Installs the agent CLIs that the end-to-end suite drives, and the other Node majors the built CLI
// is run under (node-22, node-24), each pinned in its own folder under test/e2e/clis/ (its own
// package.json and lock file, so two builds of one CLI can sit side by side).
// A folder whose node_modules already matches its lock file is left alone: `npm ci` would delete and
// unpack some hundred megabytes again on every `npm test`.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const clis = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'e2e', 'clis')

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

let failed = 0
for (const name of readdirSync(clis).sort()) {
  const dir = join(clis, name)
  if (!existsSync(join(dir, 'package-lock.json'))) continue
  if (upToDate(dir)) continue
  console.log(`e2e: installing ${name}`)
  const r = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'inherit' })
  if (r.status !== 0) {
    console.error(`e2e: npm ci failed in test/e2e/clis/${name}`)
    failed++
  }
}
process.exit(failed ? 1 : 0)
