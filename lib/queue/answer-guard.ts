// Pure: whether `ok` / `no` may press a permission dialog's key. Only when, right before the key
// goes in, the pane still shows that very dialog for that very tool input, in the agent process
// that asked: a key pressed into anything else could approve what the person never read.
import { basename } from 'node:path'
import type { PermissionDialog } from '../agents/dialog.js'
import { dialogShows } from '../agents/dialog.js'
import type { ScreenVerdict } from '../agents/types.js'
import { jsonEqual } from '../json-equal.js'
import { truncate } from '../render/queue-table.js'
import { formatVisible } from '../render/visible-text.js'
import type { QueueItem } from './derive.js'

export type Answer = 'allow' | 'deny'

/** What the pane showed right before the key: the agent's verdict and its reading of the dialog. */
export interface AnswerScreen {
  verdict: ScreenVerdict
  dialog: PermissionDialog | null
}

/**
 * The part of a tool's input its dialog must show: a command, else the file's name (dialogs
 * show a path relative to the project, or only its name); null when the input has neither.
 */
export const toolNeedle = (input: unknown): string | null => {
  if (typeof input !== 'object' || input === null) return null
  const obj = input as Record<string, unknown>
  if (typeof obj.command === 'string' && obj.command.trim()) return obj.command
  const path = [obj.file_path, obj.path, obj.absolute_path].find((p): p is string => typeof p === 'string' && p.trim() !== '')
  return path ? basename(path) : null
}

/**
 * Why the key must not be pressed, or null when it may: the wait read first (`before`), the
 * same session read again (`after`), whether its pane still runs the agent process that asked
 * (null: the record does not say), and what the pane showed right before the key.
 */
export const deriveAnswerRefusal = (
  before: QueueItem,
  after: QueueItem | undefined,
  screen: AnswerScreen | null,
  sameAgent: boolean | null,
  answer: Answer,
  canRead = true,
): string | null => {
  if (!before.tmux) return 'it does not run in tmux'
  if (before.state !== 'permission') return `it does not wait on a permission dialog (${before.kind ?? before.state})`
  if (before.kind === 'question') return 'it asks a question: answer it in its pane (trailboss go)'
  if (!before.ask.tool) return 'its record does not say which tool the dialog is for'
  if (!canRead) return `Trail Boss cannot read ${before.agent}'s dialogs`
  if (!after || after.state !== 'permission' || after.since !== before.since || after.ask.tool !== before.ask.tool || !jsonEqual(after.ask.input, before.ask.input)) {
    return 'the dialog changed (it was answered, or another one is up)'
  }
  if (after.tmux?.pane !== before.tmux.pane || after.tmux.socket !== before.tmux.socket || after.tmux.alive === false) return 'its pane is gone'
  if (sameAgent === null) return 'its record does not say which process asked (recorded by an older trailboss-emit; its next event will)'
  if (!sameAgent) return 'its pane no longer runs the agent that asked'
  if (screen === null) return 'its pane could not be read'
  if (screen.verdict !== 'permission' || !screen.dialog) return `its pane does not show a permission dialog (${screen.verdict === 'permission' ? 'another dialog' : screen.verdict})`
  const needle = toolNeedle(before.ask.input)
  if (needle === null) return `cannot tell from ${before.ask.tool}'s input whether the dialog is its own`
  if (!dialogShows(screen.dialog.text, needle)) return `its pane shows a dialog for something else (not ${before.ask.tool}: ${truncate(formatVisible(needle), 60)})`
  if (!(answer === 'allow' ? screen.dialog.allow : screen.dialog.deny)) return `its dialog shows no ${answer === 'allow' ? '"allow once"' : '"no"'} choice to press`
  return null
}
