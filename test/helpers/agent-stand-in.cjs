// An agent stand-in for a tmux pane: shows a captured Claude Code screen, runs the emitter as
// the agent's hook would (a child of this process, with the pane's $TMUX and $TMUX_PANE), then
// echoes what is typed, line by line, as `cat` does.
// argv: <emitter> <TRAILBOSS_HOME> <screen file> <payload JSON> [CLAUDE_PROJECT_DIR]
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')

const [emitter, home, screen, payload, projectDir] = process.argv.slice(2)
// Blank lines inside the screen stay: a dialog's command block is set apart by them.
const shown = fs.readFileSync(screen, 'utf8').replace(/^\s*\n|\s+$/g, '')
process.stdout.write(`${shown}\n`)
const r = spawnSync(process.execPath, [emitter], {
  input: payload,
  env: { ...process.env, TRAILBOSS_HOME: home, ...(projectDir ? { CLAUDE_PROJECT_DIR: projectDir } : {}) },
  encoding: 'utf8',
  timeout: 10000,
})
if (r.status !== 0) process.stdout.write(`emitter failed: ${r.status}\n`)
process.stdin.on('data', (d) => process.stdout.write(d))
