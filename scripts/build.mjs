// Builds the two executables with esbuild. Type checking is `npm run typecheck` (tsc --noEmit).
// - dist/hooks/emit.cjs: one CommonJS file with no imports beyond node builtins, because it
//   starts on every agent event and module resolution is most of a Node start-up.
// - dist/bin/trailboss.js: the CLI as ESM with code splitting, so each command's heavy
//   modules (zod, chokidar, yargs) load only when that command runs.
import { build } from 'esbuild'
import { chmod } from 'node:fs/promises'

// Minified: parsing is a visible part of a short command's start-up.
const common = { bundle: true, minify: true, platform: 'node', target: 'node20', logLevel: 'warning', legalComments: 'none' }
await Promise.all([
  build({ ...common, entryPoints: ['hooks/emit.cts'], outfile: 'dist/hooks/emit.cjs', format: 'cjs' }),
  build({
    ...common,
    entryPoints: { trailboss: 'bin/trailboss.ts' },
    outdir: 'dist/bin',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // Bundled CommonJS dependencies (proper-lockfile) call require() for node builtins.
    banner: { js: "import { createRequire as __tbCreateRequire } from 'node:module'; const require = __tbCreateRequire(import.meta.url);" },
  }),
])
await chmod('dist/hooks/emit.cjs', 0o755)
await chmod('dist/bin/trailboss.js', 0o755)
