// What a run that shows the queue to the person calls after reading it: nothing but a stat when
// no view exists; else the view's sync (lib/view/sync.ts, loaded only then) under its lock.
import type { Io } from '../io.js'
import type { QueueItem } from '../queue/derive.js'
import type { TmuxExec } from '../tmux/exec.js'
import { mayHaveView } from './marker.js'

/**
 * Keeps every view in step with the default queue (`queue`); never throws, never runs tmux
 * without a view. `everyHost`: the run read every host, so its list of the waits elsewhere is whole.
 */
export const keepViewInStep = async (io: Pick<Io, 'env'>, queue: readonly QueueItem[], exec: TmuxExec, everyHost = true): Promise<void> => {
  if (!mayHaveView(io.env)) return
  try {
    await (await import('./sync.js')).syncViews(io.env, queue, exec, everyHost)
  } catch {
    // The view is a convenience: the run it rides on never fails for it.
  }
}
