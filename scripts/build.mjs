// Builds the two executables with esbuild. Type checking is `npm run typecheck` (tsc --noEmit).
// - dist/hooks/emit.cjs: one CommonJS file with no imports beyond node builtins, because it
//   starts on every agent event and module resolution is most of a Node start-up.
// - dist/bin/trailboss.cjs: the entry with the fast path of ls and status in one file;
//   dist/bin/full/: the yargs wiring and every other command, split into chunks loaded on
//   demand, so each command's heavy modules (chokidar, yargs, diff) load only when it runs.
import { build } from 'esbuild'
import { chmod, rename, rm } from 'node:fs/promises'

// Minified: parsing is a visible part of a short command's start-up.
const common = { bundle: true, minify: true, platform: 'node', target: 'node20', logLevel: 'warning', legalComments: 'none' }
/** Keeps the yargs wiring out of the entry bundle: the entry imports it from ./full/ at run time. */
const fullCliExternal = {
  name: 'full-cli-external',
  setup(b) {
    b.onResolve({ filter: /\/cli-full\.js$/ }, () => ({ path: './full/cli-full.js', external: true }))
    // zod is needed only for a record the compiled validator refuses (lib/record-check.ts).
    b.onResolve({ filter: /^\.\/record\.js$/ }, (args) => (args.importer.endsWith('record-check.ts') ? { path: './full/record.js', external: true } : undefined))
  },
}
// Bundled CommonJS dependencies (proper-lockfile, jsonc-parser) call require() for node builtins.
const requireBanner = { js: "import { createRequire as __tbCreateRequire } from 'node:module'; const require = __tbCreateRequire(import.meta.url);" }

await rm('dist/bin.next', { recursive: true, force: true })
await Promise.all([
  // graceful-fs (proper-lockfile's fs) patches all of fs at load, for retries on EMFILE that a
  // one-event process never meets: the emitter's lock uses node:fs itself.
  build({ ...common, entryPoints: ['hooks/emit.cts'], outfile: 'dist/hooks/emit.cjs', format: 'cjs', alias: { 'graceful-fs': 'node:fs' } }),
  // The entry, with ls and status inside: one file, because every module a start-up resolves
  // and loads is a visible part of a 30 ms command.
  build({
    ...common,
    entryPoints: ['bin/trailboss.ts'],
    // CommonJS: Node loads it without the ESM loader's resolution and async reads (~5 ms).
    outfile: 'dist/bin.next/trailboss.cjs',
    format: 'cjs',
    plugins: [fullCliExternal],
  }),
  // Every other command: yargs and each command's modules in chunks loaded on demand.
  build({
    ...common,
    entryPoints: { 'cli-full': 'lib/cli-full.ts', record: 'lib/record.ts' },
    outdir: 'dist/bin.next/full',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    banner: requireBanner,
  }),
])
// Swapped in whole, so stale chunks never pile up, and tests running beside a build only ever
// see a complete dist/bin (the two renames are microseconds apart).
await chmod('dist/bin.next/trailboss.cjs', 0o755)
await rm('dist/bin.old', { recursive: true, force: true })
await rename('dist/bin', 'dist/bin.old').catch((err) => {
  if (err.code !== 'ENOENT') throw err
})
await rename('dist/bin.next', 'dist/bin')
await rm('dist/bin.old', { recursive: true, force: true })
await chmod('dist/hooks/emit.cjs', 0o755)
