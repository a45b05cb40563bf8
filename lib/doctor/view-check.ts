// doctor's verdict on the view (docs/design.md §12): one per tmux server that holds a view, a
// keeper, or an entry in view.json. Pure: lib/commands/doctor.ts gathers the facts.
import type { Check } from './checks.js'
import { VIEW_VERSION } from '../view/plan.js'
import { KEEP_SESSION, VIEW_SESSION } from '../tmux/view-session.js'

export interface ViewFacts {
  socket: string
  /** Listed in view.json (so the runs that show the queue keep it in step). */
  marked: boolean
  /** The view session's `@trailboss-view`; null: no view session there. */
  version: string | null
  /** Windows the view links. */
  windows: number
  /** Windows no session of the person's holds, kept by the keeper (their own session was closed while in the view). */
  rescued: number
}

export const checkView = (f: ViewFacts): Check[] => {
  const id = `view:${f.socket}`
  const out: Check[] = []
  if (f.version !== null && f.version !== VIEW_VERSION)
    out.push({
      id,
      status: 'warn',
      summary: `a view left by another trailboss version (${VIEW_SESSION}, version ${f.version || 'none'}) on ${f.socket}`,
      fix: 'trailboss view --off, then trailboss view to make it again',
    })
  else if (f.version !== null && !f.marked)
    out.push({
      id,
      status: 'warn',
      summary: `the view on ${f.socket} is not kept in step (view.json does not list it)`,
      fix: 'trailboss view to take it up again, or trailboss view --off',
    })
  else if (f.version !== null)
    out.push({ id, status: 'ok', summary: `the view on ${f.socket} links ${f.windows} window${f.windows === 1 ? '' : 's'}`, fix: null })
  else if (f.marked)
    out.push({
      id,
      status: 'info',
      summary: `no view on ${f.socket} any more (its session was killed); the next status run forgets it`,
      fix: null,
    })
  if (f.rescued > 0)
    out.push({
      id: `view-rescued:${f.socket}`,
      status: 'info',
      summary: `${f.rescued} window${f.rescued === 1 ? '' : 's'} whose session was closed while in the view kept in ${KEEP_SESSION}`,
      fix: `see them with: tmux -S ${f.socket} attach -t ${KEEP_SESSION}; close them there when done`,
    })
  return out
}
