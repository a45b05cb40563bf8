// Hosts for the remote tests: real sshd servers on loopback (ssh-host.ts), each with its own home,
// tmux and this checkout's trailboss on its PATH, and a local Trail Boss home whose hosts.json
// lists them. The hosts share this machine's file system, so a test sets up a host's panes and
// records directly (its own TMUX_TMPDIR and TRAILBOSS_HOME) and reads it only through ssh.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { closeMaster } from '../../lib/remote/ssh-run.js'
import { runCli, type CliResult } from './cli.js'
import type { ChildEnv } from './emitter.js'
import { startSshHost, trailbossBinDir, writeSshConfig, type SshHost } from './ssh-host.js'
import { waitFor } from './wait-for.js'

const STAND_IN = fileURLToPath(new URL('./agent-stand-in.cjs', import.meta.url))
const EMITTER = fileURLToPath(new URL('../../dist/hooks/emit.cjs', import.meta.url))
export const DIALOG_SCREEN = fileURLToPath(new URL('../fixtures/screens/03-permission-dialog.txt', import.meta.url))

export interface WaitSpec {
  sessionId: string
  /** The captured screen the pane shows (default: a permission dialog). */
  screen?: string
  /** The hook payload's fields over a PermissionRequest for `touch x` in `<home>/proj`. */
  event?: Record<string, unknown>
}

export interface RemoteLab {
  root: string
  /** The ssh client configuration every command gets as TRAILBOSS_SSH_CONFIG. */
  config: string
  hosts: Record<string, SshHost>
  /** The local side's environment: its own Trail Boss home, the test's ssh config, no ssh agent. */
  env: ChildEnv
  /** The local `trailboss` (built), with `env` and more. */
  run: (args: readonly string[], extra?: ChildEnv) => Promise<CliResult>
  /** tmux on a host's own default server. */
  tmuxOn: (host: string, ...args: string[]) => string
  /** A pane on the host whose agent stand-in waits (its hook ran); resolves with its pane id. */
  makeWait: (host: string, spec: WaitSpec) => Promise<string>
  /** The Trail Boss home on a host. */
  homeOf: (host: string) => string
}

export interface LabOptions {
  /** Add every host to the local hosts.json (default true). */
  list?: boolean
  /** A host's PATH before the usual one, by name: e.g. a folder whose `trailboss` misbehaves. */
  pathFirst?: Record<string, string>
  /** A host's whole PATH, by name, without this checkout's trailboss: the trap of a short non-interactive PATH. */
  pathOnly?: Record<string, string>
}

export const startRemoteLab = async (t: Test, names: readonly string[], opts: LabOptions = {}): Promise<RemoteLab> => {
  // A folder of its own: a test's testdir is the test's to fill (calling t.testdir() again empties it).
  const root = mkdtempSync(join(tmpdir(), 'tb-lab-'))
  const bin = trailbossBinDir(root)
  const hosts: Record<string, SshHost> = {}
  for (const name of names) {
    const first = opts.pathFirst?.[name]
    const path = opts.pathOnly?.[name] ?? `${first ? `${first}:` : ''}${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`
    const host = await startSshHost(join(root, name), name, { path })
    hosts[name] = host
  }
  const config = join(root, 'ssh_config')
  writeSshConfig(config, Object.values(hosts))
  const { SSH_AUTH_SOCK: _agent, TMUX: _tmux, TMUX_PANE: _pane, ...base } = process.env
  const localHome = join(root, 'local')
  mkdirSync(localHome, { mode: 0o700 })
  const env: ChildEnv = { ...base, TRAILBOSS_HOME: localHome, TRAILBOSS_SSH_CONFIG: config }
  const run = (args: readonly string[], extra: ChildEnv = {}): Promise<CliResult> => runCli(args, { ...env, ...extra })
  if (opts.list !== false)
    for (const name of names) {
      const r = await run(['hosts', 'add', name])
      if (r.code !== 0) throw new Error(`hosts add ${name}: ${r.stderr}`)
    }
  const hostEnv = (name: string): NodeJS.ProcessEnv => {
    const host = hosts[name]
    if (!host) throw new Error(`no host ${name}`)
    return { ...base, HOME: host.home, TMUX_TMPDIR: host.tmuxTmpdir, PATH: `${bin}:${process.env.PATH ?? ''}` }
  }
  const tmuxOn = (name: string, ...args: string[]): string =>
    execFileSync('tmux', args, { env: hostEnv(name), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const homeOf = (name: string): string => join(hosts[name]!.home, '.trailboss')
  const makeWait = async (name: string, spec: WaitSpec): Promise<string> => {
    const cwd = join(hosts[name]!.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const event = {
      session_id: spec.sessionId,
      transcript_path: join(cwd, 'none.jsonl'),
      cwd,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'touch x', description: 'Create x' },
      prompt_id: 'p1',
      ...spec.event,
    }
    const command = [process.execPath, STAND_IN, EMITTER, homeOf(name), spec.screen ?? DIALOG_SCREEN, JSON.stringify(event), cwd]
    let started: boolean
    try {
      tmuxOn(name, 'has-session', '-t', 'work')
      started = true
    } catch {
      started = false
    }
    const pane = (
      started
        ? tmuxOn(name, 'new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'work', ...command)
        : tmuxOn(name, 'new-session', '-d', '-P', '-F', '#{pane_id}', '-s', 'work', '-x', '160', '-y', '50', ...command)
    ).trim()
    const record = join(homeOf(name), 'sessions', `${spec.sessionId}.json`)
    await waitFor(() => existsSync(record), `the record of ${spec.sessionId} on ${name}`, 15_000)
    return pane
  }
  // One teardown, in order: masters, panes, servers, then the folder they lived in.
  t.teardown(async () => {
    for (const name of names) await closeMaster(env as Record<string, string>, name)
    for (const name of names)
      try {
        tmuxOn(name, 'kill-server')
      } catch {
        // No server was started on it.
      }
    for (const host of Object.values(hosts)) await host.stop()
    rmSync(root, { recursive: true, force: true })
  })
  return { root, config, hosts, env, run, tmuxOn, makeWait, homeOf }
}
