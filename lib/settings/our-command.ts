// Pure: which hook commands are ours. Only the exact commands our install writes, or wrote in
// an earlier version, count: a command that merely contains our name (another tool's
// `…/trailboss-slack/dist/hooks/emit.cjs`, `python3 /opt/tools/trailboss-emit`) is not ours,
// and uninstall must never take it out. Shared by every agent's settings file.

/** The emitter's name on PATH (package.json `bin`). */
const EMIT_BIN = 'trailboss-emit'

/**
 * Every command form our installs have written, for docs and doctor. Exec form since 0.1.0;
 * `--agent <id>` since agents other than Claude Code (its absence means claude-code).
 */
export const OUR_COMMAND_FORMS = [
  '<node> <package>/dist/hooks/emit.cjs [--agent <id>]  (user and local scope)',
  'trailboss-emit [--agent <id>]  (project scope, the plugin)',
  '/bin/sh <package>/dist/hooks/spool.sh <id> <node>  (agents that wait for every hook: Codex, Gemini CLI)',
] as const

/** The emitter inside an npm-installed package named exactly `trailboss` (a prefix or npx's cache). */
const NPM_EMITTER = /(?:^|[\\/])node_modules[\\/]trailboss[\\/]dist[\\/]hooks[\\/]emit\.cjs$/
/** An emitter file of some package: ours only if `known` (checked on disk) says so. */
const ANY_EMITTER = /[\\/]dist[\\/]hooks[\\/]emit\.cjs$/
const NODE_BIN = /(?:^|[\\/])node(?:\.exe)?$/
const AGENT_ID = /^[a-z][a-z0-9-]{0,31}$/

/** The spool hook inside an npm-installed package named exactly `trailboss`. */
const NPM_SPOOL = /(?:^|[\\/])node_modules[\\/]trailboss[\\/]dist[\\/]hooks[\\/]spool\.sh$/

/** True for our spool hook (hooks/spool.sh): an npm-installed `trailboss`, or a path `known` to be ours. */
export const isOurSpoolFile = (path: string, known: readonly string[] = []): boolean => known.includes(path) || NPM_SPOOL.test(path)

/** True for our emitter file: an npm-installed `trailboss`, or a path `known` to be ours. */
export const isOurEmitterFile = (path: string, known: readonly string[] = []): boolean => known.includes(path) || NPM_EMITTER.test(path)

/** What may follow the emitter in our command: nothing, or the agent it records for. */
const namesAgentOnly = (rest: readonly unknown[]): boolean =>
  rest.length === 0 || (rest.length === 2 && rest[0] === '--agent' && typeof rest[1] === 'string' && AGENT_ID.test(rest[1]))

/**
 * A hook's command (and its exec-form arguments) is ours when it is exactly one our install
 * writes: a Node binary running our emitter file, or `trailboss-emit` (as one string or in
 * exec form), each optionally with
 * `--agent <id>`. `known` lists emitter files found on disk to belong to a `trailboss` package
 * (the running one, a clone of any folder name).
 */
export const isOurCommand = (command: unknown, args: unknown, known: readonly string[] = []): boolean => {
  if (typeof command !== 'string') return false
  if (Array.isArray(args) && args.length > 0) {
    if (command === EMIT_BIN) return namesAgentOnly(args)
    const [file, ...rest] = args as unknown[]
    if (command === '/bin/sh') {
      const [id, node, ...more] = rest
      return (
        typeof file === 'string' &&
        isOurSpoolFile(file, known) &&
        typeof id === 'string' &&
        AGENT_ID.test(id) &&
        typeof node === 'string' &&
        NODE_BIN.test(node) &&
        more.length === 0
      )
    }
    return NODE_BIN.test(command) && typeof file === 'string' && isOurEmitterFile(file, known) && namesAgentOnly(rest)
  }
  if (args !== undefined && !Array.isArray(args)) return false
  const [first, ...rest] = command.split(' ')
  return first === EMIT_BIN && namesAgentOnly(rest)
}

/**
 * Emitter files named anywhere in a settings file that may be ours (any package's
 * `dist/hooks/emit.cjs`, in any agent's layout): the caller checks each on disk and passes
 * the ours as `known`.
 */
export const listEmitterFiles = (settings: unknown): string[] => {
  const out = new Set<string>()
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (ANY_EMITTER.test(v) && !NPM_EMITTER.test(v)) out.add(v)
    } else if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk)
  }
  walk(settings)
  return [...out]
}
