// install / uninstall: merge our hook entries into an agent's settings, or take exactly them
// out again. The merge is pure (the agent's install target, lib/agents/<id>/); this shell finds
// the paths, runs the guarded update (lib/settings/settings-file.ts), and says what it did.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTwoFilesPatch } from 'diff'
import { type InstallArgs } from '../options/tables.js'
import { type Scope, SCOPES } from '../settings/scope.js'
import { EXIT_USAGE, formatError, TrailbossError } from '../errors.js'
import type { Io } from '../io.js'
import { SETUPS, setupFor } from '../agents/setup-registry.js'
import { DEFAULT_AGENT } from '../agents/hook-registry.js'
import type { AgentSetup, InstallOption, OwnFile } from '../agents/types.js'
import {
  deriveEmitterCommand,
  EMIT_BIN,
  type EmitterCommand,
  emitterPathIn,
  findOurEmitterFiles,
  findPackageRoot,
  findStableNode,
  isEphemeralPath,
  spoolPathFor,
} from '../settings/package-root.js'
import {
  parseSettings,
  readSettingsFile,
  removeEmptyFolders,
  resolveSettingsTarget,
  type SettingsUpdate,
  updateSettingsFile,
  updateTextFile,
} from '../settings/settings-file.js'
import type { JsonObject } from '../settings/json-value.js'
import { deriveEmptyHooks, type EmptyHooks } from '../settings/empty-hooks.js'
import { type InstallNote, readInstallNote, writeInstallNote } from '../settings/install-note.js'
import { jsonEqual } from '../json-equal.js'
import { formatVisible } from '../text/visible-text.js'

export interface InstallDeps {
  /** The running Node binary (process.execPath). */
  execPath?: string
  /** A file inside the running package; its package root holds dist/hooks/emit.cjs. */
  selfFile?: string
}

/** The emitter of the package this code runs from, and the Node that runs it. */
export const locateEmitter = (io: Io, deps: InstallDeps = {}): { node: string; emitter: string } => {
  const self = deps.selfFile ?? fileURLToPath(import.meta.url)
  const root = findPackageRoot(self)
  if (!root) throw new TrailbossError(`cannot find the trailboss package around ${self}`, 'reinstall it: npm install -g trailboss')
  const emitter = emitterPathIn(root)
  if (!existsSync(emitter)) throw new TrailbossError(`the emitter ${emitter} is missing`, `build it first: (cd ${root} && npm run build)`)
  return { node: findStableNode(deps.execPath ?? process.execPath, io.env.PATH), emitter }
}

const formatDiff = (u: SettingsUpdate): string =>
  createTwoFilesPatch(
    u.file,
    u.file,
    u.before ?? '',
    u.after,
    u.before === null ? '(new file)' : 'current',
    u.removed ? '(removed)' : 'after',
  )

const report = (io: Io, u: SettingsUpdate, dryRun: boolean, done: string, same: string): void => {
  if (dryRun) {
    io.stdout.write(u.changed ? formatDiff(u) : `${same} ${u.file}; nothing would change\n`)
    return
  }
  if (!u.changed) {
    io.stdout.write(`${same} ${u.file}; nothing changed\n`)
    return
  }
  io.stdout.write(`${done} ${u.file}${u.target !== u.file ? ` (through its symlink to ${u.target})` : ''}\n`)
  if (u.removed) io.stdout.write(`removed ${u.target}: install had created it, and nothing else was in it\n`)
  if (u.backup) io.stdout.write(`backup of the previous file: ${u.backup}\n`)
}

/**
 * A refusal is an answer, not a crash: say it as one line and return its exit code here, so
 * the file-untouched contract does not hang on how the CLI wiring maps thrown errors.
 */
const answering = async (io: Io, body: () => Promise<number>): Promise<number> => {
  try {
    return await body()
  } catch (err) {
    if (!(err instanceof TrailbossError)) throw err
    io.stderr.write(`${formatError(err)}\n`)
    return err.exitCode
  }
}

export const runInstall = (args: InstallArgs, io: Io, deps: InstallDeps = {}): Promise<number> =>
  answering(io, () => install(args, io, deps))
export const runUninstall = (args: InstallArgs, io: Io, deps: InstallDeps = {}): Promise<number> =>
  answering(io, () => uninstall(args, io, deps))

/** The agent `--agent` names; yargs checked it, a direct call may not have. */
const adapterOf = (args: InstallArgs): AgentSetup => {
  const id = args.agent ?? DEFAULT_AGENT
  const agent = setupFor(id)
  if (!agent) throw new TrailbossError(`no agent named ${id}`, `one of: ${SETUPS.map((a) => a.id).join(', ')}`, EXIT_USAGE)
  return agent
}

/** The emitter's command for an agent: the default agent's names none, as installs before `--agent` did. */
const forAgent = (cmd: EmitterCommand, agent: AgentSetup): EmitterCommand =>
  agent.id === DEFAULT_AGENT ? cmd : { command: cmd.command, args: [...(cmd.args ?? []), '--agent', agent.id] }

/** The settings text a SettingsUpdate holds, parsed (null: no file, or nothing parseable). */
const parsedOrNull = (text: string | null, file: string): JsonObject | null => {
  if (text === null || text === '') return null
  try {
    return parseSettings(text, file)
  } catch {
    return null
  }
}

/**
 * Brings the target's companion file (Codex's config.toml) in step with the settings file's
 * change; on uninstall, `restoreIfEmpty` is what its install note says it held.
 */
const followCompanion = async (
  agent: AgentSetup,
  u: SettingsUpdate,
  known: readonly string[],
  io: Io,
  opts: { dryRun: boolean; restoreIfEmpty?: string | null },
): Promise<SettingsUpdate | null> => {
  const companion = agent.install.companion
  if (!companion) return null
  const before = parsedOrNull(u.before, u.file)
  const after = parsedOrNull(u.after, u.file) ?? {}
  const file = companion.file(io.env)
  return updateTextFile(file, io.env, (text) => companion.update(text, { settingsFile: u.file, file, before, after, known }), opts)
}

/** What the file held when it held nothing (no file, blank text), else undefined. */
const heldNothing = (u: SettingsUpdate): string | null | undefined =>
  u.before === null ? null : u.before.trim() === '' ? u.before : undefined

/** What a first install found, for uninstall: the empty containers, an empty file or none, the folders it made. */
const noteOf = (u: SettingsUpdate, empties: EmptyHooks | null): InstallNote => {
  const held = heldNothing(u)
  return { empties, dirs: u.createdDirs, ...(held !== undefined ? { held } : {}) }
}

/** The refusal of a file in our file's place that we did not write. */
const notOurs = (file: string): TrailbossError =>
  new TrailbossError(`${file} is not ours; left it untouched`, 'move it away if it is no longer needed, then run this again')

/** An agent that loads a file of ours (InstallTarget.ownFile): the file written whole. */
const installOwnFile = async (
  agent: AgentSetup,
  own: OwnFile,
  file: string,
  args: InstallArgs,
  io: Io,
  deps: InstallDeps,
): Promise<number> => {
  let cmd: EmitterCommand = { command: EMIT_BIN }
  if (args.scope !== 'project') {
    const { node, emitter } = locateEmitter(io, deps)
    cmd = deriveEmitterCommand(args.scope, node, emitter)
  }
  const text = own.text(cmd)
  const u = await updateTextFile(
    file,
    io.env,
    (before) => {
      if (before !== null && !own.isOurs(before)) throw notOurs(file)
      return text
    },
    { dryRun: args.dryRun },
  )
  if (!args.dryRun && u.changed && u.before === null) writeInstallNote(io.env, u.target, noteOf(u, null))
  report(io, u, args.dryRun, `installed ours (${args.scope} scope) in`, `already installed (${args.scope} scope) in`)
  if (!args.dryRun) {
    io.stdout.write(`it runs: ${[cmd.command, ...(cmd.args ?? [])].join(' ')}\n`)
    if (args.scope === 'project')
      io.stdout.write(`teammates need trailboss-emit on their PATH too (npm install -g trailboss); check with: trailboss doctor\n`)
    io.stdout.write(`${agent.install.label} sessions started from now on load it; restart the ones already running\n`)
  }
  return 0
}

const uninstallOwnFile = async (own: OwnFile, file: string, args: InstallArgs, io: Io): Promise<number> => {
  const note = readInstallNote(io.env, resolveSettingsTarget(file))
  const u = await updateTextFile(
    file,
    io.env,
    (before) => {
      if (before === null) return null
      if (!own.isOurs(before)) throw notOurs(file)
      return ''
    },
    { dryRun: args.dryRun, restoreIfEmpty: null },
  )
  if (!args.dryRun && note && u.changed) writeInstallNote(io.env, u.target, null)
  report(io, u, args.dryRun, `removed ours (${args.scope} scope):`, `nothing of ours (${args.scope} scope) at`)
  if (!args.dryRun && u.removed && note) removeEmptyFolders(note.dirs)
  return 0
}

const install = async (args: InstallArgs, io: Io, deps: InstallDeps): Promise<number> => {
  const agent = adapterOf(args)
  const target = agent.install
  const scope: Scope = args.scope
  const file = target.settingsFile(scope, io.env, io.cwd)
  if (target.ownFile) {
    if (args.statusline === true) statusLineOf(agent)
    return installOwnFile(agent, target.ownFile, file, args, io, deps)
  }
  const known: string[] = []
  let cmd: EmitterCommand = { command: EMIT_BIN }
  if (target.runner === 'spool') {
    // The agent waits for every hook: a POSIX sh spool, which starts the emitter detached.
    const { node, emitter } = locateEmitter(io, deps)
    const spool = spoolPathFor(emitter)
    if (!existsSync(spool)) throw new TrailbossError(`the spool hook ${spool} is missing`, `build it first: npm run build`)
    // The emitter too: an install of an earlier version may have had this agent run it.
    known.push(spool, emitter)
    cmd = { command: '/bin/sh', args: [spool, agent.id, node] }
  } else if (scope === 'project') {
    try {
      known.push(locateEmitter(io, deps).emitter)
    } catch {
      // Project scope runs trailboss-emit from PATH; our own paths only help recognise old entries.
    }
  } else {
    const { node, emitter } = locateEmitter(io, deps)
    known.push(emitter)
    cmd = deriveEmitterCommand(scope, node, emitter)
    if (isEphemeralPath(emitter)) {
      io.stderr.write(
        `trailboss: warning: ${emitter} is in npx's cache, which npm may clean — install the package for good: npm install -g trailboss\n`,
      )
    }
  }
  if (target.runner !== 'spool') cmd = forAgent(cmd, agent)
  const statusLine = args.statusline === true ? statusLineOf(agent) : null
  const cli = statusLine ? cliCommand(scope, io, deps) : []
  // The empty containers the file holds before our first install (a later one finds ours there
  // and keeps the note it made).
  const first: { empties?: EmptyHooks | null } = {}
  const change = (s: JsonObject): JsonObject => {
    const ours = [...known, ...findOurEmitterFiles(s)]
    if (jsonEqual(target.unmerge(s, ours), s)) first.empties = deriveEmptyHooks(s)
    else delete first.empties
    const merged = target.merge(s, cmd, ours)
    return statusLine ? statusLine.merge(merged, cli) : merged
  }
  // Both files or neither: a companion whose edit is refused leaves the settings file untouched too.
  if (agent.install.companion)
    await followCompanion(agent, await updateSettingsFile(file, io.env, change, { dryRun: true }), known, io, { dryRun: true })
  const u = await updateSettingsFile(file, io.env, change, { dryRun: args.dryRun })
  if (!args.dryRun && u.changed && first.empties !== undefined) writeInstallNote(io.env, u.target, noteOf(u, first.empties))
  report(
    io,
    u,
    args.dryRun,
    `installed hooks for ${target.events.length} events (${scope} scope) in`,
    `hooks already installed (${scope} scope) in`,
  )
  const c = await followCompanion(agent, u, known, io, { dryRun: args.dryRun })
  // A companion this install created or filled is noted; one that held settings keeps any note it has.
  if (c && !args.dryRun && c.changed && heldNothing(c) !== undefined) writeInstallNote(io.env, c.target, noteOf(c, null))
  if (c) report(io, c, args.dryRun, `trusted our hooks in`, `our hooks already trusted in`)
  if (!args.dryRun) {
    io.stdout.write(`each runs: ${[cmd.command, ...(cmd.args ?? [])].join(' ')}\n`)
    if (statusLine) io.stdout.write(`${statusLine.report(cli)}\n`)
    const plugin = target.plugin
    const enabledIn = SCOPES.filter((sc) => {
      const { settings } = plugin ? readSettingsFile(target.settingsFile(sc, io.env, io.cwd)) : { settings: null }
      return settings !== null && plugin?.isEnabledIn(settings) === true
    })
    if (plugin && enabledIn.length > 0) {
      io.stderr.write(
        `trailboss: warning: the trailboss plugin is enabled too (${enabledIn.join(', ')} settings), so every event runs the emitter twice — keep one: trailboss uninstall${scope === 'user' ? '' : ` --scope ${scope}`}, or ${plugin.uninstall}\n`,
      )
    }
    if (scope === 'project')
      io.stdout.write(`teammates need trailboss-emit on their PATH too (npm install -g trailboss); check with: trailboss doctor\n`)
    io.stdout.write(`${target.label} sessions started from now on use these hooks; restart the ones already running\n`)
  }
  return 0
}

const uninstall = async (args: InstallArgs, io: Io, deps: InstallDeps): Promise<number> => {
  const agent = adapterOf(args)
  const target = agent.install
  const file = target.settingsFile(args.scope, io.env, io.cwd)
  if (target.ownFile) return uninstallOwnFile(target.ownFile, file, args, io)
  const known: string[] = []
  try {
    const { emitter } = locateEmitter(io, deps)
    // Both: an agent on the spool hook may have run the emitter under an earlier version.
    known.push(spoolPathFor(emitter), emitter)
  } catch {
    // A broken or moved package: npm-installed entries of ours are still recognised by their paths.
  }
  // Our status line goes too, whether or not --statusline is given: it is ours, and the
  // person's own command it wrapped comes back in its place.
  const statusLine = target.statusLine?.unmerge ?? ((s: JsonObject) => s)
  // Containers that were empty before install stay, empty (settings/empty-hooks.ts); a file
  // install created goes when nothing but ours was in it, and so do the folders it made; a
  // blank one gets its blank text back.
  const note = readInstallNote(io.env, resolveSettingsTarget(file))
  const change = (s: JsonObject): JsonObject => statusLine(target.unmerge(s, [...known, ...findOurEmitterFiles(s)], note?.empties))
  const companion = agent.install.companion
  const companionNote = companion ? readInstallNote(io.env, resolveSettingsTarget(companion.file(io.env))) : null
  // Both files or neither, as on install.
  if (companion)
    await followCompanion(agent, await updateSettingsFile(file, io.env, change, { dryRun: true, restoreIfEmpty: note?.held }), known, io, {
      dryRun: true,
      restoreIfEmpty: companionNote?.held,
    })
  const u = await updateSettingsFile(file, io.env, change, { dryRun: args.dryRun, restoreIfEmpty: note?.held })
  if (!args.dryRun && note && u.changed) writeInstallNote(io.env, u.target, null)
  report(io, u, args.dryRun, `removed Trail Boss's hooks (${args.scope} scope) from`, `no Trail Boss hooks (${args.scope} scope) in`)
  const c = await followCompanion(agent, u, known, io, { dryRun: args.dryRun, restoreIfEmpty: companionNote?.held })
  if (c && !args.dryRun && companionNote && c.changed) writeInstallNote(io.env, c.target, null)
  if (c) report(io, c, args.dryRun, `removed our trust entries from`, `no trust entries of ours in`)
  if (!args.dryRun) {
    if (c?.removed && companionNote) removeEmptyFolders(companionNote.dirs)
    if (u.removed && note) removeEmptyFolders(note.dirs)
    // Leaving: the hosts' shared connections (the one process of ours that outlives a command) go now.
    const { closeHostMasters } = await import('../remote/close-masters.js')
    for (const d of await closeHostMasters(io.env)) io.stdout.write(`closed the ssh connection to ${formatVisible(d)}\n`)
  }
  return 0
}

/** The agent's status line setting; an agent that offers none refuses `--statusline`, naming those that do. */
const statusLineOf = (agent: AgentSetup): InstallOption => {
  if (agent.install.statusLine) return agent.install.statusLine
  const offered = SETUPS.filter((a) => a.install.statusLine).map((a) => a.install.label)
  throw new TrailbossError(`--statusline is for ${offered.join(' and ')} only, not ${agent.install.label}`, 'leave it out', EXIT_USAGE)
}

/**
 * How a setting of ours (a status line) runs the CLI: the Node and the CLI file by absolute path
 * (as the hooks in user and local scope, for a GUI-started agent's short PATH), or `trailboss`
 * from PATH in the shared project file.
 */
const cliCommand = (scope: Scope, io: Io, deps: InstallDeps): string[] => {
  if (scope === 'project') return ['trailboss']
  const { node, emitter } = locateEmitter(io, deps)
  return [node, join(emitter, '..', '..', 'bin', 'trailboss.cjs')]
}
