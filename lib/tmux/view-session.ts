// The names of Trail Boss's own tmux sessions (the view, docs/design.md §12): the tmux layer
// knows them so that a pane seen in two sessions (a linked window) is placed in the person's.

/** The view: links of the windows that hold waits. No person names a session this. */
export const VIEW_SESSION = 'trailboss-view'

/**
 * The keeper: every window the view links is linked here too, so no window is ever held by the
 * view alone, and killing the view by hand never kills one. A window whose only other link is
 * here (its own session was closed) is a rescued one; the keeper keeps it after the view ends.
 */
export const KEEP_SESSION = 'trailboss-keep'

/** Sessions of ours: a pane's place is never one of them when the person's session holds it too. */
export const isOwnSession = (name: string): boolean => name === VIEW_SESSION || name === KEEP_SESSION
