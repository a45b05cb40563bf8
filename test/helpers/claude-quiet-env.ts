// The variables that keep a real Claude Code offline and quiet in tests (no updater, no
// telemetry, no error reports, no marketplace install). One JSON file, so that bench/mod.mjs,
// which is plain JavaScript, reads the same list.
import { readFileSync } from 'node:fs'

export const CLAUDE_QUIET_ENV: Readonly<Record<string, string>> = JSON.parse(
  readFileSync(new URL('../fixtures/claude-code-quiet-env.json', import.meta.url), 'utf8'),
)
