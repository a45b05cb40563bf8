// Which tmux servers hold a view ($TRAILBOSS_HOME/view.json): written by `view`, emptied by
// `view --off`. Every status line looks for this one file first, so with no view the view
// costs a status run one stat and no tmux call (docs/design.md §12).
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeHomeFile } from '../fs/home-file.js'
import { readTextIfExists } from '../fs/read-optional.js'
import { type Env, trailbossHome } from '../paths.js'

export const viewFile = (env: Env): string => join(trailbossHome(env), 'view.json')

/** Whether any view may exist: the one check a run makes before anything of the view loads. */
export const mayHaveView = (env: Env): boolean => existsSync(viewFile(env))

/** Pure: the sockets a marker names; none for a file that is not one of ours. */
export const parseViewSockets = (text: string): string[] => {
  try {
    const doc = JSON.parse(text) as { v?: unknown; sockets?: unknown }
    if (doc.v !== 1 || !Array.isArray(doc.sockets)) return []
    return doc.sockets.filter((s): s is string => typeof s === 'string' && s.startsWith('/'))
  } catch {
    return []
  }
}

export const readViewSockets = (env: Env): string[] => {
  try {
    return parseViewSockets(readTextIfExists(viewFile(env)) ?? '')
  } catch {
    return []
  }
}

/** Writes the list, or removes the file when it is empty (so no trace is left). */
export const writeViewSockets = (env: Env, sockets: readonly string[]): void => {
  const file = viewFile(env)
  if (sockets.length === 0) rmSync(file, { force: true })
  else writeHomeFile(env, trailbossHome(env), file, `${JSON.stringify({ v: 1, sockets: [...new Set(sockets)].sort() })}\n`, '.view')
}
