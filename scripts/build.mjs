// Builds the two executables with esbuild. Type checking is `npm run typecheck` (tsc --noEmit).
// - dist/hooks/spool.sh: hooks/spool.sh with each agent's spooled variables written in, the
//   hook of agents that wait for every hook.
// - dist/hooks/emitter.cjs: one CommonJS file with no imports beyond node builtins, because it
//   starts on every agent event and module resolution is most of a Node start-up;
//   dist/hooks/emit.v8, V8's code cache for it; dist/hooks/emit.cjs, the file hooks run,
//   loads the one with the other (dist/hooks/spool.sh starts it too).
// - dist/bin/main.cjs: the CLI with the fast path of ls and status in one file, and
//   dist/bin/main.v8, V8's code cache for it; dist/bin/trailboss.cjs, the executable, loads
//   the one with the other;
//   dist/bin/full/: the yargs wiring and every other command, split into chunks loaded on
//   demand, so each command's heavy modules (chokidar, yargs, diff) load only when it runs.
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// The version goes into the bundles: installed, they are far from a package.json yargs could find.
const { version } = JSON.parse(await readFile('package.json', 'utf8'))
// Minified: parsing is a visible part of a short command's start-up.
const common = {
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
  define: { __TRAILBOSS_VERSION__: JSON.stringify(version) },
}
/** Keeps the yargs wiring out of the entry bundle: the entry imports it from ./full/ at run time. */
const fullCliExternal = {
  name: 'full-cli-external',
  setup(b) {
    // The bundle keeps its old name (full/cli-full.js): the entry must hold no "yargs" text at all.
    b.onResolve({ filter: /\/yargs-wiring\.js$/ }, () => ({ path: './full/cli-full.js', external: true }))
    // zod is needed only for a record the compiled validator refuses (lib/record/check.ts).
    // fast-glob is needed only when discovery looks for an agent's transcript (lib/fs/find-recent.ts).
    b.onResolve({ filter: /\/fs\/find-recent\.js$/ }, () => ({ path: './full/find-recent.js', external: true }))
    // proper-lockfile is needed only when a run's waits changed and their numbers are written (lib/queue/numbers-write.ts).
    b.onResolve({ filter: /(^|\/)numbers-write\.js$/ }, () => ({ path: './full/numbers-write.cjs', external: true }))
    // zod checks another host's answer only when the compiled check refused it (lib/remote/answer.ts).
    b.onResolve({ filter: /\/schemas\/contract\.js$/ }, () => ({ path: './full/contract.js', external: true }))
    // Each host's cache (status, statusline) is in the entry; its refresh lock, proper-lockfile, is not.
    b.onResolve({ filter: /\/fs\/lock-now\.js$/ }, (args) =>
      args.importer.endsWith('remote/cached-fleet.ts') ? { path: './full/remote-lock.cjs', external: true } : undefined,
    )
    // The view's sync (proper-lockfile, the planner) loads only when view.json exists (lib/view/step.ts).
    b.onResolve({ filter: /^\.\/sync\.js$/ }, (args) =>
      args.importer.endsWith('view/step.ts') ? { path: './full/view-sync.cjs', external: true } : undefined,
    )
    // `ls --until-change` runs from the entry bundle; only the file watcher is loaded apart.
    b.onResolve({ filter: /^chokidar$/ }, () => ({ path: './full/chokidar.js', external: true }))
    b.onResolve({ filter: /^\.\/schema\.js$/ }, (args) =>
      args.importer.endsWith('record/check.ts') ? { path: './full/record-schema.js', external: true } : undefined,
    )
  },
}
// Bundled CommonJS dependencies (proper-lockfile, jsonc-parser) call require() for node builtins.
const requireBanner = {
  js: "import { createRequire as __tbCreateRequire } from 'node:module'; const require = __tbCreateRequire(import.meta.url);",
}

/**
 * A tmux server of the warm-up's own: the records name its first pane, and a second pane runs a
 * program no record owns, so what `ls` does with tmux's answer (the pane parsers, the pane
 * checks, the search for sessions without hooks) is in the cache too. Null without tmux.
 */
const startWarmServer = (root) => {
  const socket = join(root, 'tmux.sock')
  const tmux = (...args) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  try {
    tmux('-f', '/dev/null', 'new-session', '-d', 'sleep', '600', ';', 'new-window', '-d', 'sleep', '600')
    const [serverPid, pane] = tmux('list-panes', '-a', '-F', '#{pid} #{pane_id}').split('\n')[0].split(' ')
    return {
      env: { TMUX: `${socket},${serverPid},0`, TMUX_PANE: pane },
      stop: () => {
        try {
          tmux('kill-server')
        } catch {
          // Gone already.
        }
      },
    }
  } catch {
    return null
  }
}

/**
 * Fills dist/bin/main.v8: the loader runs the common commands over a few records (made by
 * the emitter just built, in a pane of a tmux server of its own) and keeps what V8 compiled.
 * The same Node, with no flags, as people run it; a Node or flags that differ make V8 refuse
 * the cache, nothing worse.
 */
const warmCodeCache = async (binDir, hooksDir) => {
  const root = mkdtempSync(join(tmpdir(), 'trailboss-build-'))
  const tmux = startWarmServer(root)
  try {
    const projects = join(root, 'claude', 'projects', '-warm')
    const env = { PATH: process.env.PATH ?? '', HOME: root, TRAILBOSS_HOME: join(root, 'tb'), CLAUDE_CONFIG_DIR: join(root, 'claude') }
    const emit = (id, name, extra) => {
      const transcript = join(projects, `${id}.jsonl`)
      execFileSync(process.execPath, [join(hooksDir, 'emit.cjs')], {
        env: { ...env, CLAUDE_CODE_ENTRYPOINT: 'cli', ...tmux?.env },
        input: JSON.stringify({ session_id: id, transcript_path: transcript, cwd: root, hook_event_name: name, prompt_id: 'p1', ...extra }),
      })
    }
    mkdirSync(projects, { recursive: true })
    const line = (o) => `${JSON.stringify(o)}\n`
    writeFileSync(
      join(projects, 'warm-wait.jsonl'),
      line({ type: 'user', promptId: 'p1', message: { role: 'user', content: 'go' } }) +
        line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done?' }] } }),
    )
    emit('warm-wait', 'Stop', { last_assistant_message: 'Done. Anything else?' })
    emit('warm-perm', 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'npm test' } })
    emit('warm-work', 'UserPromptSubmit', { prompt: 'go' })
    emit('warm-done', 'SessionEnd', { reason: 'other' })
    // A remote host of the warm-up's own, so that what reads another host (its answer checked
    // and kept by `ls`, read back from its cache by `status`) is in the cache too: the `ssh` on
    // the warm-up's PATH prints this machine's own queue, as a host's `trailboss` would.
    const cli = (...args) =>
      execFileSync(process.execPath, [join(binDir, 'trailboss.cjs'), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    const answer = join(root, 'answer.json')
    writeFileSync(answer, cli('ls', '--json', '--local'))
    const stubBin = join(root, 'bin')
    mkdirSync(stubBin)
    writeFileSync(join(stubBin, 'ssh'), '#!/bin/sh\nexec cat "$TRAILBOSS_WARM_ANSWER"\n', { mode: 0o755 })
    cli('hosts', 'add', 'warm-host')
    execFileSync(process.execPath, [join(binDir, 'trailboss.cjs')], {
      env: { ...env, PATH: `${stubBin}:${env.PATH}`, TRAILBOSS_WARM_ANSWER: answer, TRAILBOSS_WARM_CODE_CACHE: join(binDir, 'main.v8') },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
  } finally {
    tmux?.stop()
    await rm(root, { recursive: true, force: true })
  }
}

/**
 * Fills dist/hooks/emit.v8 as warmCodeCache fills main.v8: the emitter records one event, then
 * updates that record with the next (what most events do), and the second run keeps what V8
 * compiled for it.
 */
const warmEmitterCache = async (hooksDir) => {
  const root = mkdtempSync(join(tmpdir(), 'trailboss-build-'))
  try {
    const env = { PATH: process.env.PATH ?? '', HOME: root, TRAILBOSS_HOME: join(root, 'tb'), CLAUDE_CODE_ENTRYPOINT: 'cli' }
    const event = (command) =>
      JSON.stringify({
        session_id: 'warm',
        transcript_path: join(root, 'warm.jsonl'),
        cwd: root,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
      })
    execFileSync(process.execPath, [join(hooksDir, 'emit.cjs')], { env, input: event('npm ci') })
    execFileSync(process.execPath, [join(hooksDir, 'emit.cjs')], {
      env: { ...env, TRAILBOSS_WARM_CODE_CACHE: join(hooksDir, 'emit.v8') },
      input: event('npm test'),
    })
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

/** hooks/spool.sh with each agent's variables written in, by lib/agents/spool-env.ts bundled and loaded here. */
const spoolWithEnv = async (script) => {
  const out = await build({ ...common, entryPoints: ['lib/agents/spool-env.ts'], write: false, format: 'esm', outfile: 'spool-env.mjs' })
  const { writeSpoolEnv } = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`)
  return writeSpoolEnv(script)
}

await rm('dist/bin.next', { recursive: true, force: true })
await rm('dist/hooks.next', { recursive: true, force: true })
await Promise.all([
  // graceful-fs (proper-lockfile's fs) patches all of fs at load, for retries on EMFILE that a
  // one-event process never meets: the emitter's lock uses node:fs itself. signal-exit's one
  // assert.equal gets hooks/assert-equal.ts instead of node:assert, which is slow to load.
  build({
    ...common,
    entryPoints: ['hooks/emit.ts'],
    outfile: 'dist/hooks.next/emitter.cjs',
    format: 'cjs',
    alias: { 'graceful-fs': 'node:fs', assert: './hooks/assert-equal.ts' },
  }),
  // The file hooks run (trailboss-emit): starts emitter.cjs from its V8 code cache, emit.v8.
  build({ ...common, entryPoints: ['hooks/emit-loader.cts'], outfile: 'dist/hooks.next/emit.cjs', format: 'cjs' }),
  // The CLI with ls and status inside: one file, because every module a start-up resolves
  // and loads is a visible part of a 30 ms command. Its imports of dist/bin/full/ go through
  // the loader (see below).
  build({
    ...common,
    entryPoints: ['bin/main.ts'],
    // CommonJS: Node loads it without the ESM loader's resolution and async reads (~5 ms).
    outfile: 'dist/bin.next/main.cjs',
    format: 'cjs',
    plugins: [fullCliExternal],
  }),
  // The loader (the `trailboss` executable): runs main.cjs from V8's code cache.
  build({ ...common, entryPoints: ['bin/trailboss.cts'], outfile: 'dist/bin.next/trailboss.cjs', format: 'cjs' }),
  // The numbers book's writer, loaded by `ls` and `status` when their waits changed: a CommonJS
  // file of its own (an ES module's `import` of node:fs reads every export, the lazy stream
  // classes too), with proper-lockfile on plain node:fs as in the emitter (graceful-fs loads them).
  build({
    ...common,
    entryPoints: ['lib/queue/numbers-write.ts'],
    outfile: 'dist/bin.next/full/numbers-write.cjs',
    format: 'cjs',
    alias: { 'graceful-fs': 'node:fs', assert: './hooks/assert-equal.ts' },
  }),
  // The lock of a host's cache refresh (status, statusline, every 10 s per host at most): CommonJS
  // with proper-lockfile on plain node:fs, as the numbers book's writer.
  build({
    ...common,
    entryPoints: ['lib/fs/lock-now.ts'],
    outfile: 'dist/bin.next/full/remote-lock.cjs',
    format: 'cjs',
    alias: { 'graceful-fs': 'node:fs', assert: './hooks/assert-equal.ts' },
  }),
  // The view's sync, loaded by `status`, `ls` and the rest when view.json exists: CommonJS with
  // proper-lockfile on plain node:fs, as the numbers book's writer above.
  build({
    ...common,
    entryPoints: ['lib/view/sync.ts'],
    outfile: 'dist/bin.next/full/view-sync.cjs',
    format: 'cjs',
    alias: { 'graceful-fs': 'node:fs', assert: './hooks/assert-equal.ts' },
  }),
  // Every other command: yargs and each command's modules in chunks loaded on demand.
  build({
    ...common,
    entryPoints: {
      'cli-full': 'lib/cli/yargs-wiring.ts',
      'record-schema': 'lib/record/schema.ts',
      'find-recent': 'lib/fs/find-recent.ts',
      contract: 'lib/schemas/contract.ts',
      chokidar: 'chokidar',
    },
    outdir: 'dist/bin.next/full',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    banner: requireBanner,
  }),
])
// The loader wraps the emitter in a function: no hashbang line inside it.
const emitterFile = 'dist/hooks.next/emitter.cjs'
await writeFile(emitterFile, (await readFile(emitterFile, 'utf8')).replace(/^#!.*\n/, ''))
await chmod('dist/hooks.next/emit.cjs', 0o755)
// spool.sh with the variables each agent's spooled events keep written in: they are declared
// in TypeScript (lib/agents/spool-env.ts), which a shell script cannot import.
await writeFile('dist/hooks.next/spool.sh', await spoolWithEnv(await readFile('hooks/spool.sh', 'utf8')), { mode: 0o755 })
await chmod('dist/hooks.next/spool.sh', 0o755)
try {
  await warmEmitterCache('dist/hooks.next')
  // Written under the emitter's umask (077): readable to all, as the rest of dist/.
  await chmod('dist/hooks.next/emit.v8', 0o644)
} catch (err) {
  // The emitter runs without the cache, only a few ms slower: a build never fails for it.
  await rm('dist/hooks.next/emit.v8', { force: true })
  console.warn(`build: no code cache for dist/hooks/emitter.cjs (${err.message.split('\n')[0]})`)
}
// V8 loses the dynamic-import callback of a script compiled from a code cache: main.cjs asks
// the loader for the modules in full/ instead (bin/trailboss.cts passes __tbImport).
const mainFile = 'dist/bin.next/main.cjs'
const mainText = await readFile(mainFile, 'utf8')
const fullImports = mainText.split('import("./full/').length - 1
if (fullImports === 0 || /\bimport\((?!"\.\/full\/)/.test(mainText)) throw new Error('main.cjs: expected dynamic imports of ./full/ only')
await writeFile(mainFile, mainText.replaceAll('import("./full/', '__tbImport("./full/'))
try {
  await warmCodeCache('dist/bin.next', 'dist/hooks.next')
} catch (err) {
  // The CLI runs without the cache, only a few ms slower: a build never fails for it.
  await rm('dist/bin.next/main.v8', { force: true })
  console.warn(`build: no code cache for dist/bin/main.cjs (${err.message.split('\n')[0]})`)
}

// Swapped in whole, so stale chunks never pile up, and tests and hooks running beside a build
// only ever see a complete dist/bin and dist/hooks (the two renames are microseconds apart).
await chmod('dist/bin.next/trailboss.cjs', 0o755)
const swapIn = async (dir) => {
  await rm(`${dir}.old`, { recursive: true, force: true })
  await rename(dir, `${dir}.old`).catch((err) => {
    if (err.code !== 'ENOENT') throw err
  })
  await rename(`${dir}.next`, dir)
  await rm(`${dir}.old`, { recursive: true, force: true })
}
await swapIn('dist/bin')
await swapIn('dist/hooks')
