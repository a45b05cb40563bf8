// What the view (docs/design.md §12) costs the status line: `status` with a view present and
// already right (one lock, one list-panes, an empty plan) against `status` with no view (one
// file check), over the same 20 waits in 10 sessions of a real tmux server. Both read the same
// records from two homes; only one home's view.json names the server.
import { spawn, execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { CLI, emitEvent, fmt, interleave, median, ratio, runIfMain, scratch, sleep, timeSpawn } from './lib.mjs'

const SESSIONS = 10
const WAITS_PER_SESSION = 2

export const run = async (flags) => {
  const dir = scratch('tb-bench-view-')
  const socket = join(dir, 's')
  const tmux = (...args) => execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' }).trim()
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', '120', '-y', '30', 'sleep', '100000')
  const pid = tmux('display-message', '-p', '#{pid}')
  const client = spawn('tmux', ['-S', socket, '-C', 'attach-session', '-t', 'main'], { stdio: ['pipe', 'ignore', 'ignore'] })
  try {
    const homes = { plain: join(dir, 'plain'), view: join(dir, 'view') }
    for (const home of Object.values(homes)) fs.mkdirSync(home, { mode: 0o700 })
    let n = 0
    for (let s = 0; s < SESSIONS; s++) {
      tmux('new-session', '-d', '-s', `proj${s}`, 'sleep', '100000')
      for (let w = 0; w < WAITS_PER_SESSION; w++) {
        const pane =
          w === 0
            ? tmux('display-message', '-p', '-t', `proj${s}`, '#{pane_id}')
            : tmux('new-window', '-d', '-t', `proj${s}`, '-P', '-F', '#{pane_id}', 'sleep', '100000')
        const id = `view${String(n++).padStart(4, '0')}-0000-4000-8000-000000000000`
        for (const home of Object.values(homes))
          await emitEvent(
            { PATH: process.env.PATH, HOME: dir, TRAILBOSS_HOME: home, TMUX: `${socket},${pid},0`, TMUX_PANE: pane },
            {
              session_id: id,
              transcript_path: join(dir, `${id}.jsonl`),
              cwd: dir,
              hook_event_name: 'Stop',
              prompt_id: 'p',
              last_assistant_message: 'Done?',
            },
          )
      }
    }
    const env = (home) => ({ PATH: process.env.PATH, HOME: dir, TRAILBOSS_HOME: home })
    for (let i = 0; i < 50 && tmux('list-clients').length === 0; i++) await sleep(20)
    const name = tmux('list-clients', '-F', '#{client_name}')
    execFileSync(process.execPath, [CLI, 'view', '--client', name], { env: env(homes.view), stdio: 'ignore' })
    const linked = tmux('list-windows', '-t', '=trailboss-view:').split('\n').length - 1
    const { wall } = interleave(
      {
        'status, no view': () => timeSpawn(process.execPath, [CLI, 'status'], { env: env(homes.plain) }),
        'status, a view already right': () => timeSpawn(process.execPath, [CLI, 'status'], { env: env(homes.view) }),
      },
      flags,
    )
    const r = ratio(wall['status, a view already right'], wall['status, no view'])
    return {
      title: `status with a view present (${linked} windows linked) against status with none`,
      header: ['case', 'median ms', 'ratio to no view (paired median ± half IQR)'],
      rows: [
        ['status, no view', fmt(median(wall['status, no view'])), '1.00×'],
        [
          'status, a view already right',
          fmt(median(wall['status, a view already right'])),
          `${fmt(r.paired, 2)}× (±${fmt(r.spread / 2, 2)})`,
        ],
      ],
      notes: [
        'With a view, each status run takes the view lock, reads one list-panes and finds nothing to change; without one, it checks that view.json is absent.',
      ],
    }
  } finally {
    client.stdin.end()
    client.kill()
    try {
      tmux('kill-server')
    } catch {
      // already gone
    }
  }
}

await runIfMain(import.meta, run)
