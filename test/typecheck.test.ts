// The typecheck as a test: tsc over lib, bin, hooks, test and bench (tsconfig.json), run beside
// the other test files rather than before all of them, so its minute of one core overlaps the
// suites that wait on tmux, ssh and the agents. `npm run typecheck` runs the same alone.
import t from 'tap'
import { runTool } from './helpers/tool.js'

t.setTimeout(600_000)

t.test('tsc --noEmit finds no error', async (t) => {
  const r = await runTool('typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit'])
  t.equal(r.code, 0, r.output || 'tsc failed with no output')
})
