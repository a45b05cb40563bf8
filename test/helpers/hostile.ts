// Shared by the hostile-input suites (issue #13): a private home's environment, FIFOs where files
// belong, a lab with one session waiting, and the check that a bounded run did not hang.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { BoundedResult } from './bounded.js'
import { tempDir, type ChildEnv } from './emitter.js'
import { line, startLab, type Lab } from './session-lab.js'

/** A person's environment with everything of ours under `home` (and no colour in the output). */
export const homeEnv = (home: string): ChildEnv => ({
  PATH: process.env.PATH,
  TMUX_TMPDIR: process.env.TMUX_TMPDIR,
  HOME: home,
  TRAILBOSS_HOME: join(home, 'tb'),
  CLAUDE_CONFIG_DIR: join(home, 'claude'),
  NO_COLOR: '1',
})

export const mkfifo = (path: string): void => {
  execFileSync('mkfifo', ['-m', '600', path])
}

/** Passes when the run finished within its bound; a hung run fails with how long it was given. */
export const finished = (t: Test, r: BoundedResult, what: string): void => {
  t.notOk(r.hung, r.hung ? `${what} hung (killed after ${Math.round(r.ms)} ms)` : `${what} finishes`)
}

/** A lab with one session (`waiting1-aa`) at a finished turn in a live pane; `dir` is its sessions folder. */
export const labWithWait = async (t: Test): Promise<{ lab: Lab; dir: string }> => {
  const lab = startLab(tempDir(t))
  t.teardown(lab.close)
  const pane = lab.newPane()
  lab.appendTranscript('waiting1-aa', line.prompt('p1', 'hello'))
  await lab.emit('waiting1-aa', 'UserPromptSubmit', { prompt_id: 'p1' }, { pane })
  await lab.emit('waiting1-aa', 'Stop', { prompt_id: 'p1', last_assistant_message: 'done here' }, { pane })
  return { lab, dir: join(String(lab.env.TRAILBOSS_HOME), 'sessions') }
}
