// Where a process runs in tmux, told by its environment: the /proc reader gives the block, the
// tmux parser (./env.ts) reads $TMUX and $TMUX_PANE out of it.
import { readEnviron } from '../proc/process-table.js'
import type { TmuxLocation } from '../record/types.js'
import { parseTmuxEnv } from './env.js'

/** Pure: the tmux pane an environment block (/proc/<pid>/environ) names. */
export const parseEnvironTmux = (text: string): TmuxLocation | null => {
  let tmux: string | undefined
  let pane: string | undefined
  for (const pair of text.split('\0')) {
    if (pair.startsWith('TMUX=')) tmux = pair.slice(5)
    else if (pair.startsWith('TMUX_PANE=')) pane = pair.slice(10)
  }
  return parseTmuxEnv(tmux, pane)
}

/** Where a process runs in tmux, by its environment (our own user's processes only). */
export const readTmuxOf = (pid: number): TmuxLocation | null => {
  const environ = readEnviron(pid)
  return environ === null ? null : parseEnvironTmux(environ)
}
