// Builds the two executables with esbuild. Type checking is `npm run typecheck` (tsc --noEmit).
// - dist/hooks/emit.cjs: one CommonJS file with no imports beyond node builtins, because it
//   starts on every agent event and module resolution is most of a Node start-up.
// - dist/bin/trailboss.js: the CLI as ESM with code splitting, so each command's heavy
//   modules (zod, chokidar, yargs) load only when that command runs.
import { build } from 'esbuild'
import { chmod, rename, rm } from 'node:fs/promises'

// Minified: parsing is a visible part of a short command's start-up.
const common = { bundle: true, minify: true, platform: 'node', target: 'node20', logLevel: 'warning', legalComments: 'none' }
await rm('dist/bin.next', { recursive: true, force: true })
await Promise.all([
  build({ ...common, entryPoints: ['hooks/emit.cts'], outfile: 'dist/hooks/emit.cjs', format: 'cjs' }),
  build({
    ...common,
    entryPoints: { trailboss: 'bin/trailboss.ts' },
    outdir: 'dist/bin.next',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // Bundled CommonJS dependencies (proper-lockfile) call require() for node builtins.
    banner: { js: "import { createRequire as __tbCreateRequire } from 'node:module'; const require = __tbCreateRequire(import.meta.url);" },
  }),
])
// Swapped in whole, so stale chunks never pile up, and tests running beside a build only ever
// see a complete dist/bin (the two renames are microseconds apart).
await chmod('dist/bin.next/trailboss.js', 0o755)
await rm('dist/bin.old', { recursive: true, force: true })
await rename('dist/bin', 'dist/bin.old').catch((err) => {
  if (err.code !== 'ENOENT') throw err
})
await rename('dist/bin.next', 'dist/bin')
await rm('dist/bin.old', { recursive: true, force: true })
await chmod('dist/hooks/emit.cjs', 0o755)
