// Loaded before every test file (package.json "tap"."node-arg"): the file and every process it
// starts see a machine of their own, never the person's. A private HOME (so ~/.claude, ~/.codex,
// ~/.gemini and ~/.trailboss are empty), a private TMUX_TMPDIR (so the "default" tmux server is
// none of theirs), no $TMUX, and a PATH on which a globally installed `trailboss` or
// `trailboss-emit` (`npm install -g .`, as the README says) is not found: doctor and the
// installers look commands up on PATH, and discovery reads live sessions under HOME.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'

const root = mkdtempSync(join(tmpdir(), 'tb-hermetic-'))
process.on('exit', () => rmSync(root, { recursive: true, force: true }))

const realHome = process.env.HOME
const home = join(root, 'home')
mkdirSync(home, { mode: 0o700 })
const tmuxTmp = join(root, 'tmux')
mkdirSync(tmuxTmp, { mode: 0o700 })

// npm's cache stays the person's: a test that installs the packed package must not download
// every dependency again into an empty home.
if (!process.env.npm_config_cache && realHome) process.env.npm_config_cache = join(realHome, '.npm')
process.env.HOME = home
// Node reads NODE_EXTRA_CA_CERTS at every start-up (~90 ms per process on a machine whose bundle
// is large), and the tests start thousands of node processes that only talk to 127.0.0.1. The
// value is kept aside for the one test that runs npm against the registry (packed-install).
if (process.env.NODE_EXTRA_CA_CERTS) {
  process.env.TRAILBOSS_TEST_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS
  delete process.env.NODE_EXTRA_CA_CERTS
}
process.env.TMUX_TMPDIR = tmuxTmp
for (const name of [
  'TMUX',
  'TMUX_PANE',
  'TRAILBOSS_HOME',
  'TRAILBOSS_ALLOW_SEND',
  'TRAILBOSS_DISABLE',
  'TRAILBOSS_SSH_CONFIG',
  'TRAILBOSS_SSH_PERSIST',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_CODE_ENTRYPOINT',
  'CODEX_HOME',
  'GEMINI_CLI_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
]) {
  delete process.env[name]
}

// tap's process-info module hooks every spawn of this process (through process-on-spawn's shared
// state) to load itself into each child node process, for coverage and `--changed`, neither of
// which this suite uses. The children here are the programs under test: the hook made every one
// of them ~150 ms slower to start (the emitter 200 ms instead of 50), which both slowed the suite
// and measured the emitter under a weight it never carries. The test file itself keeps it.
const spawnHooks = globalThis[Symbol.for('process-on-spawn@*:singletonId')]
if (spawnHooks && Array.isArray(spawnHooks.listeners)) spawnHooks.listeners.length = 0
// The same preload also sits in this process's NODE_OPTIONS, which every child spawned without an
// env of its own inherits: 317 node children of one run loaded it (its .tap/processinfo files),
// each ~180 ms of CPU more to start. Only that preload goes; a NODE_OPTIONS of the person's stays.
if (process.env.NODE_OPTIONS) {
  const kept = process.env.NODE_OPTIONS.replace(/"?--(?:import|loader)[= ]"?[^\s"]*@tapjs\/processinfo[^\s"]*"?/g, '').trim()
  if (kept) process.env.NODE_OPTIONS = kept
  else delete process.env.NODE_OPTIONS
}

const OURS = new Set(['trailboss', 'trailboss-emit'])
const repo = resolve(new URL('../..', import.meta.url).pathname)

/**
 * A folder on PATH that holds a `trailboss` of another install is replaced by a folder of links
 * to everything else in it (node and npm often live beside a global install).
 */
const shadow = (dir, i) => {
  const copy = join(root, `path-${i}`)
  mkdirSync(copy)
  for (const name of readdirSync(dir)) {
    if (!OURS.has(name)) symlinkSync(join(dir, name), join(copy, name))
  }
  return copy
}

process.env.PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir, i) => {
    if (!dir || resolve(dir).startsWith(repo)) return dir
    try {
      return [...OURS].some((name) => existsSync(join(dir, name))) ? shadow(dir, i) : dir
    } catch {
      return dir
    }
  })
  .join(delimiter)
