// The names of Trail Boss's own tmux sessions (the view, docs/design.md §12): the tmux layer
// knows them so that a pane seen in two sessions (a linked window) is placed in the person's.

/** The view: links of the windows that hold waits. No person names a session this. */
export const VIEW_SESSION = 'trailboss-view'

/** Where a window whose only link was in the view is kept, so it is never killed with the view. */
export const RESCUE_SESSION = 'trailboss-rescued'

/** Sessions of ours: a pane's place is never one of them when the person's session holds it too. */
export const isOwnSession = (name: string): boolean => name === VIEW_SESSION || name === RESCUE_SESSION
