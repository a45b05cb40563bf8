// doctor's verdicts: pure functions from gathered facts to checks, each with what to do.
// lib/commands/doctor.ts gathers the facts (files, processes, tmux) and prints these.
import type { SessionRecord } from '../record/types.js'
import { formatVisible } from '../text/visible-text.js'
import type { CodeCacheState } from '../code-cache-state.js'
import { formatAge } from '../duration.js'
import { compareVersions } from '../agents/compare-versions.js'
import { INSTALL_PACKAGE } from '../settings/package-root.js'

export type CheckStatus = 'ok' | 'info' | 'warn' | 'fail'

export interface Check {
  id: string
  status: CheckStatus
  summary: string
  /** What to do about it; null when nothing needs doing. */
  fix: string | null
  details?: string[]
}

/** The oldest Node the package supports (package.json engines). */
export const MIN_NODE_VERSION = '20.19.0'
/** An emitter start slower than this costs the machine more than it should (a bare node is ~60 ms). */
export const EMIT_SLOW_MS = 500
/** Sessions whose last event is newer than this are checked against their panes. */
export const RECENT_SESSION_MS = 24 * 60 * 60 * 1000

export const checkNode = (version: string, execPath: string): Check =>
  compareVersions(version, MIN_NODE_VERSION) >= 0
    ? { id: 'node', status: 'ok', summary: `Node ${version} (${execPath})`, fix: null }
    : {
        id: 'node',
        status: 'fail',
        summary: `Node ${version} is older than ${MIN_NODE_VERSION}`,
        fix: `install Node ${MIN_NODE_VERSION} or newer, then run trailboss install again`,
      }

/** One timed run of an emitter with an empty event and TRAILBOSS_DISABLE=1 (nothing is written). */
export interface EmitterRun {
  label: string
  /** What ran; null when it could not be found. */
  path: string | null
  ms: number
  code: number | null
  output: string
}

export const checkEmitterRun = (run: EmitterRun, missingFix: string): Check => {
  const id = `emitter:${run.label}`
  if (run.path === null) return { id, status: 'fail', summary: `${run.label}: not found`, fix: missingFix }
  if (run.code !== 0 || run.output.trim() !== '') {
    return {
      id,
      status: 'fail',
      summary: `${run.label} (${run.path}) failed: exit ${run.code ?? 'signal'}${run.output.trim() ? `, printed ${JSON.stringify(run.output.trim().slice(0, 200))}` : ''}`,
      fix: `reinstall the package: ${INSTALL_PACKAGE}`,
    }
  }
  if (run.ms > EMIT_SLOW_MS) {
    return {
      id,
      status: 'warn',
      summary: `${run.label} (${run.path}) took ${Math.round(run.ms)} ms to start (expected well under ${EMIT_SLOW_MS} ms)`,
      fix: 'a busy or slow machine? hooks are async, so the agent does not wait, but each event costs this much CPU',
    }
  }
  return { id, status: 'ok', summary: `${run.label} runs (${run.path}, ${Math.round(run.ms)} ms)`, fix: null }
}

export interface HomeFacts {
  path: string
  /** null: the folder does not exist yet. */
  mode: number | null
  ownedByMe: boolean
  /** Why the home (or its sessions folder) is refused (lib/fs/home-check.ts), or null. */
  foreign?: string | null
  writable: boolean
  sessionsMode: number | null
}

export const checkHome = (h: HomeFacts): Check => {
  // Another user could have planted links (a `log` into one of your files) and records there; a
  // link to nothing is refused as well (docs/design.md §2.8), before "does not exist yet".
  if (h.foreign) {
    return {
      id: 'home',
      status: 'fail',
      summary: `${h.foreign}: Trail Boss reads no record from it and writes nothing there, not even its log (another user could plant links and records in it)`,
      fix: 'point TRAILBOSS_HOME at a folder of your own, or unset it for ~/.trailboss (made 0700 on the next event)',
    }
  }
  if (h.mode === null)
    return {
      id: 'home',
      status: 'info',
      summary: `${h.path} does not exist yet (no event recorded so far)`,
      fix: 'start an agent session after installing its hooks',
    }
  if (!h.ownedByMe || !h.writable)
    return {
      id: 'home',
      status: 'fail',
      summary: `${h.path} is not ${h.ownedByMe ? 'writable' : 'owned by you'}`,
      fix: `chown -R "$USER" ${h.path} && chmod 700 ${h.path}`,
    }
  const loose = [h.mode, h.sessionsMode].some((m) => m !== null && (m & 0o077) !== 0)
  if (loose)
    return {
      id: 'home',
      status: 'warn',
      summary: `${h.path} can be read by others (mode ${(h.mode & 0o777).toString(8)}${h.sessionsMode !== null ? `, sessions ${(h.sessionsMode & 0o777).toString(8)}` : ''}); records hold your agents' messages`,
      fix: `chmod 700 ${h.path} ${h.path}/sessions`,
    }
  return { id: 'home', status: 'ok', summary: `${h.path} is private to you`, fix: null }
}

export const checkRecords = (count: number, skipped: readonly { file: string; why: string }[], setAside: readonly string[]): Check[] => {
  const out: Check[] = []
  if (skipped.length === 0)
    out.push({
      id: 'records',
      status: 'ok',
      summary: `${count} session record${count === 1 ? '' : 's'} read, none failed the schema`,
      fix: null,
    })
  else {
    out.push({
      id: 'records',
      status: 'fail',
      summary: `${skipped.length} record file${skipped.length === 1 ? '' : 's'} failed the schema and ${skipped.length === 1 ? 'is' : 'are'} skipped`,
      fix: 'move them away (they are never deleted for you); a new event of that session writes a fresh record',
      details: skipped.map((s) => `${s.file}: ${s.why}`),
    })
  }
  if (setAside.length > 0) {
    out.push({
      id: 'records-set-aside',
      status: 'warn',
      summary: `${setAside.length} damaged record${setAside.length === 1 ? ' was' : 's were'} set aside by the emitter`,
      fix: 'look at them, then delete them',
      details: [...setAside],
    })
  }
  return out
}

/**
 * The ended index must only name ended sessions: a mark on a live one hides it from `ls`.
 * Removing a mark is always safe (readers then open the record), so the fix is plain `rm`.
 */
export const checkEndedIndex = (indexDir: string, marked: ReadonlySet<string>, records: readonly SessionRecord[]): Check => {
  const wrong = records.filter((r) => marked.has(r.sessionId) && r.state !== 'ended')
  if (wrong.length === 0)
    return {
      id: 'ended-index',
      status: 'ok',
      summary: `the ended index marks ${marked.size} session${marked.size === 1 ? '' : 's'}, none of them live`,
      fix: null,
    }
  return {
    id: 'ended-index',
    status: 'fail',
    summary: `the ended index marks ${wrong.length} live session${wrong.length === 1 ? '' : 's'}, which ls and status then miss`,
    fix: `remove the marks (always safe): rm ${wrong.map((r) => `${indexDir}/${r.sessionId}`).join(' ')}`,
    details: wrong.map((r) => `${r.sessionId}: ${r.state}`),
  }
}

/** How the executable loaded the CLI (bin/trailboss.cts); only speed rests on it. */
export const checkCodeCache = (state: CodeCacheState): Check =>
  state === 'used'
    ? { id: 'code-cache', status: 'ok', summary: 'the CLI starts from its V8 code cache', fix: null }
    : {
        id: 'code-cache',
        status: 'info',
        summary:
          state === 'refused'
            ? 'V8 refused the code cache (made by another Node version, or with other V8 flags): the CLI starts a few ms slower'
            : 'the package was built without a code cache: the CLI starts a few ms slower',
        fix: 'reinstall the package (npm install -g trailboss, or npm run build in a clone); V8 flags in NODE_OPTIONS also make V8 refuse it',
      }

export const checkTmux = (version: string | null): Check =>
  version === null
    ? {
        id: 'tmux',
        status: 'fail',
        summary: 'tmux is not installed or not on PATH',
        fix: 'install tmux (Trail Boss takes you to panes with it); from cron, put its folder on PATH',
      }
    : { id: 'tmux', status: 'ok', summary: version, fix: null }

/** An agent Trail Boss supports, and where PATH found its program (null: nowhere). */
export interface AgentOnPath {
  /** Its id, as `install --agent` takes it. */
  id: string
  label: string
  command: string
  path: string | null
}

/**
 * Pure: whether any supported agent is installed. None is a problem, not "all good": with no
 * agent, no hook ever runs and the queue stays empty whatever waits.
 */
export const checkAgentsInstalled = (agents: readonly AgentOnPath[]): Check => {
  const found = agents.filter((a) => a.path !== null)
  const names = agents.map((a) => `${a.label} (${a.command})`).join(', ')
  if (found.length === 0) {
    return {
      id: 'agents',
      status: 'fail',
      summary: `no supported agent is installed: none of ${names} is on PATH`,
      fix: `install one (or put its folder on PATH), then: trailboss install --agent <${agents.map((a) => a.id).join('|')}>`,
    }
  }
  return { id: 'agents', status: 'ok', summary: `agents on PATH: ${found.map((a) => `${a.label} (${a.path})`).join(', ')}`, fix: null }
}

/**
 * Pure: when no agent's own checks found anything of ours (each said nothing, or only that it is
 * not set up), nothing is recorded anywhere: one failure saying how to start. Null otherwise.
 */
export const checkAnyAgentSetUp = (perAgent: readonly (readonly Check[])[], ids: readonly string[]): Check | null =>
  perAgent.every((checks) => checks.every((c) => c.status === 'info'))
    ? {
        id: 'hooks',
        status: 'fail',
        summary: 'no agent has Trail Boss hooks: no session is recorded',
        fix: `trailboss install --agent <${ids.join('|')}>`,
      }
    : null

/** What a tmux server said about its panes: the pane ids, or why there are none. */
export type ServerAnswer = { status: 'ok'; panes: ReadonlySet<string> } | { status: 'no-server' } | { status: 'unknown'; why: string }

/**
 * The servers the recent sessions use: each reachable or not. A missing server means its
 * sessions are gone (not a fault); one that cannot be asked is a fault.
 */
export const checkServers = (servers: ReadonlyMap<string, ServerAnswer>): Check[] =>
  [...servers].map(([socket, a]) => {
    const id = `tmux-server:${socket}`
    switch (a.status) {
      case 'ok':
        return { id, status: 'ok', summary: `tmux server ${socket} answers (${a.panes.size} panes)`, fix: null }
      case 'no-server':
        return { id, status: 'info', summary: `tmux server ${socket} is not running; its sessions are gone`, fix: null }
      case 'unknown':
        return {
          id,
          status: 'fail',
          summary: `tmux server ${socket} cannot be asked: ${a.why}`,
          fix: `check it by hand: tmux -S ${socket} list-panes -a`,
        }
    }
  })

/** Recent, not-ended sessions with a pane: is the pane still there, and when was the last event. */
export const checkSessions = (records: readonly SessionRecord[], servers: ReadonlyMap<string, ServerAnswer>, now: number): Check[] =>
  records
    .filter((r) => now - r.lastEventAt <= RECENT_SESSION_MS)
    .sort((a, b) => b.lastEventAt - a.lastEventAt)
    .map((r) => {
      const label = `${r.project ?? r.cwd ?? '?'} ${r.sessionId.slice(0, 8)}`
      const last = `last event ${r.lastEvent} ${formatAge(now - r.lastEventAt)} ago, state ${r.state}`
      const id = `session:${r.sessionId}`
      if (r.headless) return { id, status: 'info', summary: `${label}: headless; ${last}`, fix: null }
      if (!r.tmux)
        return {
          id,
          status: 'info',
          summary: `${label}: no tmux pane recorded; ${last}`,
          fix: r.state === 'ended' ? null : 'run the agent inside tmux to be taken to it',
        }
      const a = servers.get(r.tmux.socket)
      const where = `pane ${r.tmux.pane}`
      if (!a || a.status === 'unknown')
        return { id, status: 'info', summary: `${label}: ${where} could not be checked; ${last}`, fix: null }
      const alive = a.status === 'ok' && a.panes.has(r.tmux.pane)
      if (alive) return { id, status: 'ok', summary: `${label}: ${where} is there; ${last}`, fix: null }
      return {
        id,
        status: r.state === 'ended' ? 'info' : 'warn',
        summary: `${label}: ${where} is gone; ${last}`,
        fix: r.state === 'ended' ? null : 'the session ended without SessionEnd (a crash?); trailboss gc retires it',
      }
    })

/** A session found without our hooks (lib/queue/discover.ts), as doctor reports it. */
export interface HooklessFacts {
  sessionId: string
  agent: string
  /** The agent's name for people ("Claude Code"). */
  label: string
  project: string | null
  pane: string | null
  via: 'registry' | 'pane'
  /** The setting that turns its hooks off, when one does. */
  hooksOff: string | null
  /** When a running session of the agent reads new hooks (lib/agents/types.ts InstallTarget). */
  hooksReadAt: 'next-event' | 'start'
  /** The command that resumes the session after a restart, or null. */
  resume: string | null
  /** The command that installs the agent's hooks. */
  install: string
  /** How a session with settings of its own gets our hooks, in the agent's terms. */
  ownSettings: string
}

/** Each session that runs without our hooks, and how to give it hooks: each agent's own way. */
export const checkHookless = (found: readonly HooklessFacts[]): Check[] =>
  found.map((f) => {
    const where = f.pane ? ` in pane ${f.pane}` : ''
    const by = f.via === 'registry' ? 'found in its session registry' : 'found by its process'
    const restart = `restart the session${f.resume ? ` (quit it, then ${f.resume} in its folder)` : ''}`
    const pickUp =
      f.hooksReadAt === 'start'
        ? `${f.install}, then ${restart}: ${f.label} reads its hooks only when a session starts`
        : `${f.install} (a running session picks the hooks up at its next event)`
    return {
      id: `hookless:${f.sessionId}`,
      status: 'warn',
      // The whole id: a name like `codex-pid-123` cut to 8 characters names nothing.
      summary: `${f.label} ${f.project ?? '?'} ${f.sessionId}${where} runs without our hooks (${by}); its state is a guess`,
      fix: f.hooksOff ? `hooks are turned off for it (${f.hooksOff}): remove that setting, then ${restart}` : `${pickUp}; ${f.ownSettings}`,
    }
  })

/** One lost event of the spool as doctor sees it. */
export interface LostEventFacts {
  name: string
  agent: string | null
  ageMs: number
}

/** How many lost events doctor names one by one (the newest). */
export const LOST_EVENTS_LISTED = 5

/**
 * The spool's lost events (kept aside by the fold as `<name>.lost`): how many, whose, how old,
 * where, and what to do. Each was one agent event that reached no record; the session went on.
 */
export const checkLostEvents = (dir: string, files: readonly LostEventFacts[], logPath: string, gcAfter: string): Check => {
  if (files.length === 0) return { id: 'spool:lost', status: 'ok', summary: 'no lost events in the spool', fix: null }
  const byAgent = new Map<string, number>()
  for (const f of files) byAgent.set(f.agent ?? 'no agent named', (byAgent.get(f.agent ?? 'no agent named') ?? 0) + 1)
  const agents = [...byAgent].map(([agent, n]) => `${agent} ${n}`).join(', ')
  const oldest = Math.max(...files.map((f) => f.ageMs))
  const newest = [...files].sort((a, b) => a.ageMs - b.ageMs).slice(0, LOST_EVENTS_LISTED)
  const more = files.length - newest.length
  return {
    id: 'spool:lost',
    status: 'warn',
    summary: `${files.length} lost event${files.length === 1 ? '' : 's'} in ${dir} (${agents}), the oldest ${formatAge(oldest)} old: ${files.length === 1 ? 'an agent event' : 'agent events'} that reached no session record`,
    fix: `${logPath} says why each was lost (its hook stopped half way, or its payload was not JSON); their sessions went on with their next events. Read a file if you need what the agent sent; trailboss gc removes them once older than ${gcAfter}, or now: rm ${dir}/*.ev.lost`,
    details: [
      ...newest.map((f) => `${f.name}: ${f.agent ?? 'no agent named'}, ${formatAge(f.ageMs)} old`),
      ...(more > 0 ? [`and ${more} older`] : []),
    ],
  }
}

/** Log lines that mean an event was lost or a write failed, as opposed to notes (a pending event). */
const LOG_PROBLEM = /\b(failed|gave up|compromised|not JSON|rejected|lost event)\b/
/** How many of the latest log lines doctor shows. */
export const LOG_LINES_SHOWN = 3

/** The problems log of the last RECENT_SESSION_MS: lost or failed events are worth a warning. */
export const checkLog = (path: string, text: string | null, now: number): Check => {
  const recent = (text ?? '').split('\n').filter((line) => {
    const at = Date.parse(line.slice(0, line.indexOf(' ')))
    return Number.isFinite(at) && now - at <= RECENT_SESSION_MS
  })
  if (recent.length === 0)
    return { id: 'log', status: 'ok', summary: `no problems logged in the last ${formatAge(RECENT_SESSION_MS)} (${path})`, fix: null }
  const problems = recent.filter((line) => LOG_PROBLEM.test(line))
  return {
    id: 'log',
    status: problems.length > 0 ? 'warn' : 'info',
    summary: `${recent.length} line${recent.length === 1 ? '' : 's'} in ${path} in the last ${formatAge(RECENT_SESSION_MS)}${problems.length ? `, ${problems.length} about failures` : ''}`,
    fix: problems.length > 0 ? `read ${path}; the lines say what failed` : null,
    details: (problems.length > 0 ? problems : recent).slice(-LOG_LINES_SHOWN),
  }
}

export interface DoctorReport {
  version: 1
  ok: boolean
  checks: Check[]
}

export const deriveReport = (checks: Check[]): DoctorReport => ({ version: 1, ok: !checks.some((c) => c.status === 'fail'), checks })

const MARK: Record<CheckStatus, string> = { ok: '✓', info: '·', warn: '!', fail: '✗' }
const COLOUR: Record<CheckStatus, string> = { ok: '\x1b[32m', info: '\x1b[2m', warn: '\x1b[33m', fail: '\x1b[31m' }

export const formatReport = (r: DoctorReport, colour: boolean): string => {
  const lines: string[] = []
  for (const c of r.checks) {
    const mark = colour ? `${COLOUR[c.status]}${MARK[c.status]}\x1b[0m` : MARK[c.status]
    // Checks quote file names, settings and log lines: shown visibly, never run by the terminal.
    lines.push(`${mark} ${formatVisible(c.summary)}`)
    for (const d of c.details ?? []) lines.push(`    ${formatVisible(d)}`)
    if (c.fix && c.status !== 'ok') lines.push(`    → ${formatVisible(c.fix)}`)
  }
  const fails = r.checks.filter((c) => c.status === 'fail').length
  const warns = r.checks.filter((c) => c.status === 'warn').length
  lines.push(
    fails === 0
      ? `all good${warns ? ` (${warns} warning${warns === 1 ? '' : 's'})` : ''}`
      : `${fails} problem${fails === 1 ? '' : 's'}${warns ? `, ${warns} warning${warns === 1 ? '' : 's'}` : ''}`,
  )
  return `${lines.join('\n')}\n`
}
