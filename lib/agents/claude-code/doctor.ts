// `doctor`'s checks of a Claude Code setup: the claude on PATH against the builds this version
// was tested with, our hooks in each settings scope (every event, async, running a program that
// is there), and the plugin route beside them. The verdicts are pure; claudeCodeDoctor gathers
// what they need.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import type { Scope } from '../../settings/scope.js'
import { findOnPath } from '../../fs/find-on-path.js'
import type { Env } from '../../paths.js'
import type { JsonObject } from '../../settings/json-value.js'
import { EMIT_BIN, INSTALL_PACKAGE, isEphemeralPath } from '../../settings/package-root.js'
import { readSettingsFile } from '../../settings/settings-file.js'
import { compareVersions } from '../compare-versions.js'
import type { AgentCheck, DoctorContext } from '../types.js'
import { FOREGROUND_EVENTS, HOOK_EVENTS, isPluginEnabled, listOurHooks, settingsFile } from './settings-hooks.js'
import { NEWEST_TESTED, OLDEST_SUPPORTED, parseClaudeVersion } from './versions.js'

/** Claude Code's settings scopes, as `--scope` names them, in the order doctor reports them. */
const SCOPES: readonly Scope[] = ['user', 'project', 'local']

/** `claude --version` is a native binary that answers in ~100 ms; longer is reported, not waited for. */
export const CLAUDE_VERSION_TIMEOUT_MS = 3000

/** One run of `claude --version`: where PATH found it and what it said. */
export interface ClaudeVersionRun {
  /** Where PATH found `claude`; null when it did not. */
  path: string | null
  code: number | null
  output: string
  timedOut: boolean
}

/** Pure: the Claude Code on PATH against the builds this version was tested with. */
export const checkClaudeVersion = (run: ClaudeVersionRun): AgentCheck => {
  const id = 'claude-code'
  const range = `tested with ${OLDEST_SUPPORTED} to ${NEWEST_TESTED}`
  if (run.path === null)
    return {
      id,
      status: 'warn',
      summary: 'Claude Code (claude) is not on PATH',
      fix: `install Claude Code (${range}), or put its folder on PATH`,
    }
  const version = run.code === 0 ? parseClaudeVersion(run.output) : null
  if (version === null) {
    const why = run.timedOut
      ? 'did not answer in time'
      : run.code !== 0
        ? `exited ${run.code ?? 'on a signal'}`
        : `said ${JSON.stringify(run.output.trim().slice(0, 80))}`
    return { id, status: 'warn', summary: `\`${run.path} --version\` ${why}`, fix: `check that it runs: ${run.path} --version` }
  }
  if (compareVersions(version, OLDEST_SUPPORTED) < 0) {
    return {
      id,
      status: 'warn',
      summary: `Claude Code ${version} (${run.path}) is older than the oldest supported, ${OLDEST_SUPPORTED}`,
      fix: 'update Claude Code (claude update): its hooks may not tell every wait',
    }
  }
  if (compareVersions(version, NEWEST_TESTED) > 0) {
    return {
      id,
      status: 'info',
      summary: `Claude Code ${version} (${run.path}) is newer than the newest tested, ${NEWEST_TESTED}`,
      fix: 'likely fine; if a wait shows wrong, trailboss show --screen tells what the pane shows (and the log names unknown notification types)',
    }
  }
  return { id, status: 'ok', summary: `Claude Code ${version} (${run.path}; ${range})`, fix: null }
}

/** What the checks may ask of the filesystem and PATH. */
export interface HookFacts {
  /** The path exists and can be run or read. */
  exists: (path: string) => boolean
  /** Where PATH finds this command, or null. */
  which: (name: string) => string | null
  /** Emitter paths known to be ours (this package's). */
  known: readonly string[]
}

export interface ScopeSettings {
  scope: Scope
  file: string
  settings: JsonObject | null
  error: string | null
}

const reinstall = (scope: Scope): string => `trailboss install${scope === 'user' ? '' : ` --scope ${scope}`}`

/**
 * The hook entries of one scope: present for every event, async, and pointing at an emitter
 * that exists (a Node upgrade under nvm or a cleaned npx cache breaks absolute paths).
 */
export const checkScopeHooks = (s: ScopeSettings, facts: HookFacts): AgentCheck => {
  const id = `hooks:${s.scope}`
  if (s.error)
    return { id, status: 'fail', summary: `${s.scope} settings: ${s.error}`, fix: `fix ${s.file} by hand (it must be one JSON object)` }
  const ours = s.settings ? listOurHooks(s.settings, facts.known) : []
  if (ours.length === 0) return { id, status: 'info', summary: `${s.scope} scope: no Trail Boss hooks in ${s.file}`, fix: null }
  const problems: string[] = []
  const fixes = new Set<string>()
  let worst: AgentCheck['status'] = 'ok'
  const raise = (status: 'warn' | 'fail', problem: string, fix: string): void => {
    problems.push(problem)
    fixes.add(fix)
    if (status === 'fail' || worst === 'ok') worst = status
  }
  if (s.settings?.disableAllHooks === true)
    raise('fail', `"disableAllHooks": true turns every hook off`, `remove "disableAllHooks" from ${s.file}`)
  const events = new Set(ours.map((o) => o.event))
  const missing = HOOK_EVENTS.filter((e) => !events.has(e))
  if (missing.length > 0) raise('warn', `no hook for ${missing.join(', ')}`, reinstall(s.scope))
  const seen = new Set<string>()
  for (const { hook } of ours) {
    const command = hook.command as string
    const args = Array.isArray(hook.args) ? hook.args.filter((a): a is string => typeof a === 'string') : []
    const key = JSON.stringify([command, args])
    if (seen.has(key)) continue
    seen.add(key)
    const words = args.length > 0 ? [command, ...args] : command.trim().split(/\s+/)
    for (const word of words) {
      if (isAbsolute(word)) {
        if (!facts.exists(word))
          raise('fail', `${word} does not exist (moved by a Node upgrade, or a cleaned npx cache?)`, reinstall(s.scope))
        else if (isEphemeralPath(word))
          raise('warn', `${word} is in npx's cache, which npm may clean`, `${INSTALL_PACKAGE}, then ${reinstall(s.scope)}`)
      } else if (facts.which(word) === null) {
        raise(
          'fail',
          `${word} is not on this PATH (Claude Code's PATH may differ, but check)`,
          word === EMIT_BIN ? INSTALL_PACKAGE : reinstall(s.scope),
        )
      }
    }
    if (s.scope === 'project' && args.length > 0)
      raise(
        'warn',
        `project scope is shared, but runs this machine's paths (${command} ${args.join(' ')})`,
        'trailboss install --scope project (it writes trailboss-emit from PATH)',
      )
  }
  for (const { event, hook } of ours) {
    if (hook.async !== true && !FOREGROUND_EVENTS.has(event))
      raise('warn', `the ${event} hook has no "async": true, so the agent waits for it`, reinstall(s.scope))
  }
  const count = `${events.size}/${HOOK_EVENTS.length} events`
  if (worst === 'ok') return { id, status: 'ok', summary: `${s.scope} scope: hooks for ${count} in ${s.file}`, fix: null }
  return {
    id,
    status: worst,
    summary: `${s.scope} scope: ${count} in ${s.file}, with problems`,
    fix: [...fixes].join('; '),
    details: problems,
  }
}

/** Scopes whose settings enable the Trail Boss plugin (`enabledPlugins: {"trailboss@…": true}`). */
export const listPluginEnables = (all: readonly ScopeSettings[]): Scope[] =>
  all.filter((s) => s.settings !== null && isPluginEnabled(s.settings)).map((s) => s.scope)

/**
 * The plugin route, and its clash with settings hooks: with both, every event runs the
 * emitter twice (harmless to the record, but twice the processes).
 */
/** The routes our hooks reach Claude Code by: the scopes whose settings enable the plugin, and those holding hooks of ours. */
export const listRoutes = (all: readonly ScopeSettings[], known: readonly string[]): { plugin: Scope[]; withHooks: Scope[] } => ({
  plugin: listPluginEnables(all),
  withHooks: all.filter((s) => s.settings && listOurHooks(s.settings, known).length > 0).map((s) => s.scope),
})

export const checkRoutes = (all: readonly ScopeSettings[], facts: HookFacts): AgentCheck[] => {
  const { plugin, withHooks } = listRoutes(all, facts.known)
  const out: AgentCheck[] = []
  if (plugin.length > 0) {
    out.push(
      facts.which(EMIT_BIN) === null
        ? {
            id: 'plugin',
            status: 'fail',
            summary: `the trailboss plugin is enabled (${plugin.join(', ')} settings), but ${EMIT_BIN} is not on PATH`,
            fix: `the plugin runs ${EMIT_BIN} from the npm package: ${INSTALL_PACKAGE}`,
          }
        : {
            id: 'plugin',
            status: 'ok',
            summary: `the trailboss plugin is enabled (${plugin.join(', ')} settings); ${EMIT_BIN} is on PATH`,
            fix: null,
          },
    )
  }
  if (plugin.length > 0 && withHooks.length > 0) {
    out.push({
      id: 'double-registration',
      status: 'warn',
      summary: `hooks are registered twice: by the plugin and in ${withHooks.join(', ')} settings; every event runs the emitter twice`,
      fix: `keep one: trailboss uninstall${withHooks.map((s) => (s === 'user' ? '' : ` --scope ${s}`)).join(' / ')}, or claude plugin uninstall trailboss`,
    })
  }
  if (plugin.length === 0 && withHooks.length === 0) {
    out.push({
      id: 'routes',
      status: 'fail',
      summary: 'no Trail Boss hooks are registered (no settings scope, no plugin)',
      fix: 'trailboss install',
    })
  }
  return out
}

/**
 * Runs `claude --version` from PATH, bounded by CLAUDE_VERSION_TIMEOUT_MS: at the bound the
 * answer is "did not answer", whether or not the process (or a child holding its output) ends.
 */
export const runClaudeVersion = (env: Env): Promise<ClaudeVersionRun> =>
  new Promise((resolve) => {
    const path = findOnPath('claude', env.PATH)
    if (path === null) return resolve({ path: null, code: null, output: '', timedOut: false })
    let output = ''
    let settled = false
    const done = (run: ClaudeVersionRun): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(run)
    }
    // No update check, no network: only the version.
    const child = spawn(path, ['--version'], { env: { ...env, DISABLE_AUTOUPDATER: '1' }, stdio: ['ignore', 'pipe', 'ignore'] })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      // A child of a wrapper script may still hold the pipe: let go of it, and of the process.
      child.stdout.destroy()
      child.unref()
      done({ path, code: null, output, timedOut: true })
    }, CLAUDE_VERSION_TIMEOUT_MS)
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', (err) => done({ path, code: null, output: err.message, timedOut: false }))
    child.on('close', (code) => done({ path, code, output, timedOut: false }))
  })

/** Each scope's settings file as read; in the home folder, project scope is the user's own file and is read once. */
export const readScopeSettings = (env: Env, cwd: string): ScopeSettings[] => {
  const files = new Set<string>()
  const scopes: ScopeSettings[] = []
  for (const scope of SCOPES) {
    const file = settingsFile(scope, env, cwd)
    if (files.has(file)) continue
    files.add(file)
    scopes.push({ scope, file, ...readSettingsFile(file) })
  }
  return scopes
}

/**
 * Pure: Claude Code is not on PATH and no settings scope or plugin holds a hook of ours. Most
 * people run one agent: a Codex or Gemini CLI user is not told to install Claude Code or its
 * hooks (doctor's core says so when no agent at all has our hooks).
 */
export const isNotSetUp = (
  run: Pick<ClaudeVersionRun, 'path'>,
  scopes: readonly ScopeSettings[],
  facts: Pick<HookFacts, 'known'>,
): boolean => {
  const { plugin, withHooks } = listRoutes(scopes, facts.known)
  return run.path === null && plugin.length === 0 && withHooks.length === 0
}

const NOT_SET_UP: AgentCheck = {
  id: 'claude-code',
  status: 'info',
  summary: 'Claude Code is not on PATH and no settings hold hooks of ours: not set up here',
  fix: null,
}

/** Claude Code's checks, in doctor's order: its version, the hooks of each scope, the routes. */
export const claudeCodeDoctor = async (ctx: DoctorContext): Promise<AgentCheck[]> => {
  const version = runClaudeVersion(ctx.env)
  const facts: HookFacts = { exists: existsSync, which: (name) => findOnPath(name, ctx.env.PATH), known: ctx.known }
  const scopes = readScopeSettings(ctx.env, ctx.cwd)
  const run = await version
  if (isNotSetUp(run, scopes, facts)) return [NOT_SET_UP]
  return [checkClaudeVersion(run), ...scopes.map((s) => checkScopeHooks(s, facts)), ...checkRoutes(scopes, facts)]
}
