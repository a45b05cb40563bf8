// doctor: checks the whole chain (Node, emitter, each agent's own setup, $TRAILBOSS_HOME,
// records, tmux, panes, each remote host) and says what to do about each failure. Facts are
// gathered here; lib/doctor/checks.ts (host-checks.ts for the hosts) turns them into verdicts.
// What only one agent has (its hooks in its settings, its build, its spool) is that agent's
// `doctor` (lib/agents/<agent>/doctor.ts).
import { deriveHomeProblem } from '../fs/home-check.js'
import { isRefusal, readRange, withRegularFile } from '../fs/safe-file.js'
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { type DoctorArgs, GC_OPTIONS } from '../options/tables.js'
import { codeCacheState } from '../code-cache-state.js'
import {
  checkAgentsInstalled,
  checkAnyAgentSetUp,
  checkCodeCache,
  checkEmitterRun,
  checkEndedIndex,
  checkHookless,
  checkHome,
  checkLog,
  checkLostEvents,
  checkNode,
  checkRecords,
  checkServers,
  checkSessions,
  checkTmux,
  deriveReport,
  formatReport,
  RECENT_SESSION_MS,
  type Check,
  type EmitterRun,
  type ServerAnswer,
} from '../doctor/checks.js'
import { findOnPath } from '../fs/find-on-path.js'
import { endChildInput, useColour, type Io } from '../io.js'
import { endedIndexDir, type Env, hostsFile, logFile, sessionsDir, trailbossHome } from '../paths.js'
import { readEndedMarks } from '../record/ended-index.js'
import { spoolDir } from '../record/spool.js'
import { listLostSpool } from '../record/spool-lost.js'
import { installCommandFor, SETUPS } from '../agents/setup-registry.js'
import { agentFor } from '../agents/index.js'
import { hooksFor } from '../agents/hook-registry.js'
import { projectLabelIn } from '../record/hook-context.js'
import { formatCommand } from '../text/command-line.js'
import { EMIT_BIN, emitterPathIn, findPackageRoot, INSTALL_PACKAGE, packageVersion } from '../settings/package-root.js'
import { readHosts } from '../remote/hosts-file.js'
import { execTmuxIn, type TmuxExec, TmuxUnavailable } from '../tmux/exec.js'
import { listPanes } from '../tmux/panes.js'
import { callerSocket } from '../tmux/env.js'
import { checkView } from '../doctor/view-check.js'
import { readViewSockets } from '../view/marker.js'
import { readViewNow } from '../view/sync.js'
import { deriveRescued } from '../view/plan.js'
import { fileURLToPath } from 'node:url'
import { checkAnswerGuard } from '../doctor/answer-guard-check.js'
import { inputAllowed } from '../navigate/input-guard.js'
import { formatJson } from '../render/json-text.js'

export interface DoctorDeps {
  execPath?: string
  nodeVersion?: string
  /** A file inside the running package (to find its emitter). */
  selfFile?: string
  exec?: TmuxExec
}

/** An emitter run longer than this is killed and reported as failed. */
export const EMIT_RUN_TIMEOUT_MS = 5000

const exists = (path: string): boolean => fs.existsSync(path)

const projectOf = (env: Env, cwd: string | null): string | null => projectLabelIn(env)(undefined, cwd)

/** Runs of each emitter; the fastest counts, so one hiccup of a busy machine is not a verdict. */
export const EMIT_RUNS = 3

/** Runs an emitter the way a hook does, with an empty event and TRAILBOSS_DISABLE=1 so nothing is written. */
export const timeEmitter = async (label: string, command: string | null, args: string[], env: Env): Promise<EmitterRun> => {
  let best = await runEmitterOnce(label, command, args, env)
  for (let i = 1; i < EMIT_RUNS && best.path !== null && best.code === 0; i++) {
    const next = await runEmitterOnce(label, command, args, env)
    if (next.code !== 0 || next.output !== '') return next
    if (next.ms < best.ms) best = next
  }
  return best
}

const runEmitterOnce = (label: string, command: string | null, args: string[], env: Env): Promise<EmitterRun> =>
  new Promise((resolve) => {
    if (command === null) return resolve({ label, path: null, ms: 0, code: null, output: '' })
    const start = performance.now()
    let output = ''
    const child = spawn(command, args, {
      env: { ...env, TRAILBOSS_DISABLE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: EMIT_RUN_TIMEOUT_MS,
    })
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', (err) =>
      resolve({ label, path: [command, ...args].join(' '), ms: performance.now() - start, code: null, output: err.message }),
    )
    child.on('close', (code) => resolve({ label, path: [command, ...args].join(' '), ms: performance.now() - start, code, output }))
    // An emitter that refuses at once (a home it may not use) closes the pipe before reading.
    endChildInput(child.stdin, '{}')
  })

const modeOf = (path: string): fs.Stats | null => {
  try {
    return fs.statSync(path)
  } catch {
    return null
  }
}

/** The log is capped by the emitter; read at most its last bytes anyway. */
const LOG_TAIL_BYTES = 64 * 1024

const readLogTail = (file: string): string | null => {
  // Never blocks on a FIFO, never follows a link in its place.
  const got = withRegularFile(file, { ownOnly: true }, (fd, st) => {
    const length = Math.min(st.size, LOG_TAIL_BYTES)
    return readRange(fd, st.size - length, length).toString('utf8')
  })
  return isRefusal(got) ? null : got
}

const homeCheck = (env: Env): Check => {
  const path = trailbossHome(env)
  const st = modeOf(path)
  let writable: boolean
  try {
    fs.accessSync(path, fs.constants.W_OK)
    writable = true
  } catch {
    writable = false
  }
  const uid = process.getuid?.()
  return checkHome({
    path,
    mode: st ? st.mode & 0o777 : null,
    ownedByMe: !st || uid === undefined || st.uid === uid,
    writable,
    sessionsMode: modeOf(sessionsDir(env))?.mode ?? null,
    foreign: ((p) => (p ? `${p.folder} ${p.why}` : null))(deriveHomeProblem(env)),
  })
}

const readServers = async (sockets: readonly string[], exec: TmuxExec, tmuxThere: boolean): Promise<Map<string, ServerAnswer>> => {
  const out = new Map<string, ServerAnswer>()
  await Promise.all(
    sockets.map(async (socket) => {
      if (!tmuxThere) return out.set(socket, { status: 'unknown', why: 'tmux cannot be run' })
      try {
        const panes = await listPanes(socket, exec)
        out.set(socket, panes === 'no-server' ? { status: 'no-server' } : { status: 'ok', panes: new Set(panes.map((p) => p.paneId)) })
      } catch (err) {
        out.set(socket, { status: 'unknown', why: (err as Error).message })
      }
    }),
  )
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)))
}

/**
 * The hosts list, then every listed host at once (each bounded as a read is), then the socket
 * folder their connections made or used. Nothing without a hosts.json.
 */
const gatherHostChecks = async (env: Env, here: string): Promise<Check[]> => {
  const file = hostsFile(env)
  const { hosts, problem } = readHosts(env)
  if (!problem && hosts.length === 0 && !exists(file)) return []
  const { checkControlDir, checkHost, checkHostsFile } = await import('../doctor/host-checks.js')
  const { probeHosts, readControlDirFacts } = await import('../remote/host-probe.js')
  const checks = [checkHostsFile(file, hosts.length, problem)]
  if (hosts.length === 0) return checks
  const probes = await probeHosts(env, hosts)
  return [...checks, checkControlDir(readControlDirFacts(env)), ...probes.map((p) => checkHost(p, here))]
}

export const gatherChecks = async (io: Io, deps: DoctorDeps = {}): Promise<Check[]> => {
  const env = io.env
  const execPath = deps.execPath ?? process.execPath
  const exec = deps.exec ?? execTmuxIn(env)
  const checks: Check[] = [checkNode(deps.nodeVersion ?? process.versions.node, execPath)]
  const codeCache = codeCacheState()
  if (codeCache) checks.push(checkCodeCache(codeCache))

  const root = findPackageRoot(deps.selfFile ?? fileURLToPath(import.meta.url))
  const ownEmitter = root ? emitterPathIn(root) : null
  const pathEmitter = findOnPath(EMIT_BIN, env.PATH)
  const known = ownEmitter ? [ownEmitter] : []
  // Each agent's own checks (its hooks, its build, its spool), run beside the emitter's timing.
  const [ownRun, pathRun, agentChecks] = await Promise.all([
    timeEmitter("this package's emitter", ownEmitter && exists(ownEmitter) ? execPath : null, ownEmitter ? [ownEmitter] : [], env),
    timeEmitter(EMIT_BIN, pathEmitter, [], env),
    Promise.all(SETUPS.map(async (agent) => (await agent.doctor?.({ env, cwd: io.cwd, known, now: io.now() })) ?? [])),
  ])
  checks.push(checkEmitterRun(ownRun, root ? `build it: (cd ${root} && npm run build)` : 'reinstall: npm install -g trailboss'))
  checks.push(
    pathEmitter === null
      ? {
          id: `emitter:${EMIT_BIN}`,
          status: 'info',
          summary: `${EMIT_BIN} is not on PATH (the project scope and the plugin need it)`,
          fix: INSTALL_PACKAGE,
        }
      : checkEmitterRun(pathRun, ''),
  )

  checks.push(
    checkAgentsInstalled(
      SETUPS.map((a) => ({ id: a.id, label: a.install.label, command: a.command, path: findOnPath(a.command, env.PATH) })),
    ),
  )
  checks.push(...agentChecks.flat())
  // Started now, read last: the hosts answer while this machine's checks run.
  const hostChecks = gatherHostChecks(env, packageVersion(deps.selfFile ?? fileURLToPath(import.meta.url))).catch(
    (err: unknown): Check[] => [
      {
        id: 'hosts',
        status: 'fail',
        summary: `the remote hosts could not be checked: ${(err as Error).message}`,
        fix: 'trailboss hosts ls',
      },
    ],
  )
  const noneSetUp = checkAnyAgentSetUp(
    agentChecks,
    SETUPS.map((a) => a.id),
  )
  if (noneSetUp) checks.push(noneSetUp)
  checks.push(homeCheck(env))
  checks.push(checkLog(logFile(env), readLogTail(logFile(env)), io.now()))
  const lostDir = spoolDir(sessionsDir(env))
  const lost = listLostSpool(lostDir).map((f) => ({ name: f.name, agent: f.agent, ageMs: io.now() - f.mtimeMs }))
  checks.push(checkLostEvents(lostDir, lost, logFile(env), GC_OPTIONS['older-than'].default))

  const { readStore } = await import('../record/read.js')
  let records: Awaited<ReturnType<typeof readStore>>['records'] = []
  try {
    const store = await readStore(env, sessionsDir(env), { agents: hooksFor })
    records = store.records
    checks.push(...checkRecords(store.records.length, store.skipped, store.setAside))
    checks.push(checkEndedIndex(endedIndexDir(store.dir), readEndedMarks(store.dir), store.records))
  } catch (err) {
    checks.push({
      id: 'records',
      status: 'fail',
      summary: `cannot read ${sessionsDir(env)}: ${(err as Error).message}`,
      fix: `check the permissions of ${sessionsDir(env)}`,
    })
  }

  let tmuxVersion: string | null = null
  try {
    const r = await exec(['-V'])
    tmuxVersion = r.code === 0 ? r.stdout.trim() : null
  } catch (err) {
    if (!(err instanceof TmuxUnavailable)) throw err
  }
  checks.push(checkTmux(tmuxVersion))
  checks.push(checkAnswerGuard(inputAllowed(env)))
  const now = io.now()
  const recent = records.filter((r) => !r.headless && r.tmux && now - r.lastEventAt <= RECENT_SESSION_MS)
  const sockets = [...new Set(recent.map((r) => r.tmux?.socket).filter((s): s is string => !!s))]
  const servers = await readServers(sockets, exec, tmuxVersion !== null)
  checks.push(...checkServers(servers))
  checks.push(...checkSessions(records, servers, now))
  if (tmuxVersion !== null) checks.push(...(await viewChecks(env, [...sockets, ...(callerSocket(env.TMUX) ?? [])], exec)))
  // Sessions with no record at all: what ls finds on read (issue #16), and how to give them hooks.
  const { loadQueue } = await import('../queue/load.js')
  const view = await loadQueue(io, { exec, screens: false, skipEnded: true }).catch(() => null)
  checks.push(
    ...checkHookless(
      (view?.hookless ?? []).map((s) => {
        const install = SETUPS.find((a) => a.id === s.agent)?.install
        // A session not named yet (`<agent>-pid-<pid>`) has nothing to resume.
        const resume = s.sessionId.includes('-pid-') ? undefined : agentFor(s.agent)?.resumeCommand(s.sessionId)
        return {
          sessionId: s.sessionId,
          agent: s.agent,
          label: install?.label ?? s.agent,
          hooksReadAt: install?.hooksReadAt ?? 'start',
          ownSettings: install?.ownSettings ?? '',
          resume: resume ? formatCommand(resume) : null,
          install: installCommandFor(s.agent),
          project: projectOf(env, s.cwd),
          pane: s.tmux?.pane ?? null,
          via: s.via,
          hooksOff: agentFor(s.agent)?.discovery?.hooksOffIn?.(env, s.cwd) ?? null,
        }
      }),
    ),
  )
  checks.push(...(await hostChecks))
  return checks
}

/** The view on each server of ours (view.json's, the recent sessions', the caller's): left behind, out of step, or rescued windows. */
const viewChecks = async (env: Env, sockets: readonly string[], exec: TmuxExec): Promise<Check[]> => {
  const marked = readViewSockets(env)
  const checks: Check[] = []
  for (const socket of new Set([...marked, ...sockets])) {
    const now = await readViewNow(socket, exec).catch(() => 'no-server' as const)
    if (now === 'no-server') {
      if (marked.includes(socket)) checks.push(...checkView({ socket, marked: true, version: null, windows: 0, rescued: 0 }))
      continue
    }
    checks.push(
      ...checkView({
        socket,
        marked: marked.includes(socket),
        version: now.exists ? now.version : null,
        windows: now.windows.length,
        rescued: deriveRescued(now).length,
      }),
    )
  }
  return checks
}

export const runDoctor = async (args: DoctorArgs, io: Io, deps: DoctorDeps = {}): Promise<number> => {
  const report = deriveReport(await gatherChecks(io, deps))
  io.stdout.write(args.json ? `${formatJson(report, 2)}\n` : formatReport(report, useColour(io)))
  return report.ok ? 0 : 1
}
