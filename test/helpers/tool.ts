// Runs a tool of this checkout's node_modules (tsc, eslint, prettier) under this Node, in the
// checkout's root: its whole output, and how it ended.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export const runTool = (script: string, args: readonly string[]): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL(`../../node_modules/${script}`, import.meta.url)), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => out.push(c))
    child.on('close', (code) => resolve({ code, output: Buffer.concat(out).toString('utf8') }))
  })
