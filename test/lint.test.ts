// The linter and the formatter's check as a test (`npm run lint` runs the same alone), beside the
// other test files rather than before them: see test/typecheck.test.ts.
import t from 'tap'
import { runTool } from './helpers/tool.js'

t.setTimeout(600_000)

t.test('eslint: no finding', async (t) => {
  const r = await runTool('eslint/bin/eslint.js', ['--cache', '--cache-location', 'node_modules/.cache/eslint/', '.'])
  t.equal(r.code, 0, r.output || 'eslint failed with no output')
})

t.test('prettier --check: every file laid out', async (t) => {
  const r = await runTool('prettier/bin/prettier.cjs', ['--cache', '--check', '.'])
  t.equal(r.code, 0, r.output)
})
