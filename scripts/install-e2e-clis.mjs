// Installs the agent CLIs that the end-to-end suite drives, each pinned in its own folder under
// test/e2e/clis/ (its own package.json and lock file, so two builds of one CLI can sit side by side).
// A folder whose node_modules already matches its lock file is left alone: `npm ci` would delete and
// unpack some hundred megabytes again on every `npm test`.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const clis = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'e2e', 'clis')

const lockedPackages = (file) => {
  try {
    const { packages = {} } = JSON.parse(readFileSync(file, 'utf8'))
    return JSON.stringify(Object.entries(packages).filter(([k]) => k !== '').map(([k, v]) => [k, v.version, v.integrity]))
  } catch {
    return undefined
  }
}

let failed = 0
for (const name of readdirSync(clis).sort()) {
  const dir = join(clis, name)
  if (!existsSync(join(dir, 'package-lock.json'))) continue
  const wanted = lockedPackages(join(dir, 'package-lock.json'))
  if (wanted !== undefined && wanted === lockedPackages(join(dir, 'node_modules', '.package-lock.json'))) continue
  console.log(`e2e: installing ${name}`)
  const r = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'inherit' })
  if (r.status !== 0) {
    console.error(`e2e: npm ci failed in test/e2e/clis/${name}`)
    failed++
  }
}
process.exit(failed ? 1 : 0)
