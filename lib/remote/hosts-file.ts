// STUB (replaced by the real module at merge)
import { readFileSync } from 'node:fs'
import type { Env } from '../paths.js'
import { hostsFile } from '../paths.js'
export const readHosts = (env: Env): { hosts: string[]; problem: string | null } => {
  try {
    const d = JSON.parse(readFileSync(hostsFile(env), 'utf8')) as { hosts: { destination: string }[] }
    return { hosts: d.hosts.map((h) => h.destination), problem: null }
  } catch {
    return { hosts: [], problem: null }
  }
}
