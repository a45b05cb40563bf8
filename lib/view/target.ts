// A pane's target for switch-client while a view exists. A linked window is in two sessions,
// and tmux resolves a bare `%pane` to the most recently active of them, which is often the view:
// so a move names the session too (the view's only when the client is in the view already).
import type { Env } from '../paths.js'
import type { TmuxExec } from '../tmux/exec.js'
import { FIELD_SEP } from '../tmux/panes.js'
import { isOwnSession, VIEW_SESSION } from '../tmux/view-session.js'
import { mayHaveView } from './marker.js'

export interface PaneSession {
  sessionId: string
  sessionName: string
  windowId: string
}

/**
 * Pure: where a client goes for `pane`: in the view when it is there now and the view holds the
 * pane, else the person's own session that holds it; null: the bare pane will do.
 */
export const deriveTarget = (pane: string, holders: readonly PaneSession[], clientSession: string | null): string | null => {
  const inView = holders.find((h) => h.sessionName === VIEW_SESSION)
  if (inView && clientSession === VIEW_SESSION) return `${inView.sessionId}:${inView.windowId}.${pane}`
  const own = holders.find((h) => !isOwnSession(h.sessionName)) ?? holders.find((h) => h.sessionName !== VIEW_SESSION)
  return own ? `${own.sessionId}:${own.windowId}.${pane}` : null
}

export const parseHolders = (text: string): PaneSession[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('$'))
    .map((l) => {
      const [sessionId = '', windowId = '', ...name] = l.split(FIELD_SEP)
      return { sessionId, windowId, sessionName: name.join(FIELD_SEP) }
    })

/** The target for `pane` (the bare pane when no view exists: one stat, no tmux call). */
export const paneTarget = async (env: Env, socket: string, pane: string, clientSession: string | null, exec: TmuxExec): Promise<string> => {
  if (!mayHaveView(env)) return pane
  const r = await exec(
    ['list-panes', '-a', '-f', `#{==:#{pane_id},${pane}}`, '-F', ['#{session_id}', '#{window_id}', '#{session_name}'].join(FIELD_SEP)],
    {
      socket,
    },
  )
  if (r.code !== 0) return pane
  return deriveTarget(pane, parseHolders(r.stdout), clientSession) ?? pane
}
