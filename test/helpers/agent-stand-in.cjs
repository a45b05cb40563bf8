// An agent stand-in for a tmux pane: shows a captured Claude Code screen, runs the emitter as
// the agent's hook would (a child of this process, with the pane's $TMUX and $TMUX_PANE), then
// echoes what is typed, line by line, as `cat` does. SIGUSR1 fires the event again (below).
// argv: <emitter> <TRAILBOSS_HOME> <screen file> <payload JSON> [CLAUDE_PROJECT_DIR]
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')

const [emitter, home, screen, payload, projectDir] = process.argv.slice(2)
// Blank lines inside the screen stay: a dialog's command block is set apart by them.
const shown = fs.readFileSync(screen, 'utf8').replace(/^\s*\n|\s+$/g, '')
process.stdout.write(`${shown}\n`)
const emit = (input) => {
  const r = spawnSync(process.execPath, [emitter], {
    input,
    env: { ...process.env, TRAILBOSS_HOME: home, ...(projectDir ? { CLAUDE_PROJECT_DIR: projectDir } : {}) },
    encoding: 'utf8',
    timeout: 10000,
  })
  if (r.status !== 0) process.stdout.write(`emitter failed: ${r.status}\n`)
}
emit(payload)
// SIGUSR1: the same dialog again under a new prompt id, so a new wait begins now (a test that
// needs a young wait asks for one at the moment it needs it, whatever the machine's load).
let again = 0
process.on('SIGUSR1', () => {
  const event = JSON.parse(payload)
  emit(JSON.stringify({ ...event, prompt_id: `${event.prompt_id ?? 'p'}-again-${++again}` }))
})
process.stdin.on('data', (d) => process.stdout.write(d))
