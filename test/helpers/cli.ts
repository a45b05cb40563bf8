// Runs the built CLI as a person or a script would: a child process, its own environment.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { ChildEnv } from './emitter.js'

export const CLI = fileURLToPath(new URL('../../dist/bin/trailboss.cjs', import.meta.url))

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the built CLI once; never rejects (a hung run is killed after 60 s). */
export const runCli = (args: readonly string[], env: ChildEnv, stdin = ''): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => err.push(c))
    child.stdin.on('error', () => {})
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }))
    child.stdin.end(stdin)
  })
