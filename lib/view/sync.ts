// The view's tmux side: reads one server's panes, runs a plan (lib/view/plan.ts) as one tmux
// command sequence, and keeps every view in step with a queue under one lock, so two runs
// (two status lines) never plan from the same state. Loaded only when view.json exists.
import type { QueueItem } from '../queue/derive.js'
import type { Env } from '../paths.js'
import { lockNow, shortLockOptions } from '../fs/lock-now.js'
import { type TmuxExec } from '../tmux/exec.js'
import { isNoServer } from '../tmux/panes.js'
import { deriveViewNow, deriveWant, parseViewPanes, planOff, planView, VIEW_PANE_FORMAT, type ViewNow } from './plan.js'
import { readViewSockets, viewFile, writeViewSockets } from './marker.js'

/** A status line never waits long on another run's sync: the next one does it. */
export const VIEW_LOCK_BUDGET_MS = 300
/** A holder that died leaves its lock; after this it is taken over. */
export const VIEW_LOCK_STALE_MS = 5000

/** One server's view and panes, or 'no-server'. Throws on any other tmux failure. */
export const readViewNow = async (socket: string, exec: TmuxExec): Promise<ViewNow | 'no-server'> => {
  const r = await exec(['list-panes', '-a', '-F', VIEW_PANE_FORMAT], { socket })
  if (r.code === 0) return deriveViewNow(parseViewPanes(r.stdout))
  if (isNoServer(r.stderr)) return 'no-server'
  throw new Error(`tmux list-panes failed: ${r.stderr.trim() || `exit ${r.code}`}`)
}

/** Pure: the commands as one tmux argument list, `;` between them (tmux stops at the first that fails). */
export const sequenceArgs = (cmds: readonly (readonly string[])[]): string[] => cmds.flatMap((c, i) => (i === 0 ? [...c] : [';', ...c]))

/** Runs the commands in one tmux process; throws with tmux's words when one failed. */
export const runSequence = async (socket: string, cmds: readonly (readonly string[])[], exec: TmuxExec): Promise<void> => {
  if (cmds.length === 0) return
  const r = await exec(sequenceArgs(cmds), { socket })
  if (r.code !== 0) throw new Error(`tmux: ${r.stderr.trim() || `exit ${r.code}`}`)
}

/** Runs `fn` under the view's lock; null when another run held it past the budget. */
export const underViewLock = async <T>(env: Env, fn: () => Promise<T>): Promise<T | null> => {
  let release: () => Promise<void>
  try {
    release = await lockNow(viewFile(env), shortLockOptions(VIEW_LOCK_BUDGET_MS, VIEW_LOCK_STALE_MS))
  } catch {
    return null
  }
  try {
    return await fn()
  } finally {
    await release().catch(() => {})
  }
}

/**
 * Brings every view in line with the default queue: what `status`, `ls`, `watch`, `go`, `next`
 * and `back` call after reading it (never `--json` or `--plain`). A server whose view is gone
 * (killed by hand, or the server ended) is struck from view.json, its keeper left holding only
 * the rescued windows. Never throws: a view that cannot be brought in line now is brought in line
 * by the next run.
 */
export const syncViews = async (env: Env, queue: readonly QueueItem[], exec: TmuxExec, everyHost = true): Promise<void> => {
  await underViewLock(env, async () => {
    const sockets = readViewSockets(env)
    const kept: string[] = []
    for (const socket of sockets) {
      try {
        const now = await readViewNow(socket, exec)
        if (now === 'no-server') continue
        if (!now.exists) {
          // Killed by hand: the keeper lets go of the windows the person's sessions hold.
          await runSequence(socket, planOff(now), exec).catch(() => {})
          continue
        }
        kept.push(socket)
        await runSequence(socket, planView(now, deriveWant(queue, socket, now.paneWindow, everyHost)), exec)
      } catch {
        kept.push(socket)
      }
    }
    if (kept.length !== sockets.length) writeViewSockets(env, kept)
  }).catch(() => null)
}
