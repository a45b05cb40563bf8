// Pure: whether `ok` / `no` may press a permission dialog's key. Only when, right before the key
// goes in, the pane still shows that very dialog in the agent process that asked, and the dialog's
// own block of what it asks, taken whole, is exactly the tool input the person read in `show`:
// not a longer command that contains it, not a description that mentions it, not a cut one.
import { isAbsolute, relative } from 'node:path'
import type { DialogKeys, PermissionDialog, Reading } from '../agents/dialog.js'
import type { ScreenVerdict } from '../agents/types.js'
import { jsonEqual } from '../json-equal.js'
import { CONTEXT_CAP, TRUNCATION_MARKER } from '../record/context-cap.js'
import type { QueueItem } from './derive.js'

export type Answer = 'allow' | 'deny'

/** The rule `ok` / `no` enforce, named in `doctor --json` for hosts that ask (docs/navigation.md). */
export const ANSWER_GUARD = 'exact-match'

/** What the pane showed right before the key: the agent's verdict and its reading of the dialog. */
export interface AnswerScreen {
  verdict: ScreenVerdict
  dialog: PermissionDialog | null
}

/**
 * What the person read, from the record's tool input: a command (with its description, which
 * some dialogs show under it), or a new file and its content; else why it cannot be compared.
 */
export const readingOf = (input: unknown): Reading | string => {
  if (typeof input === 'string' && input.endsWith(TRUNCATION_MARKER)) {
    return `its record holds the tool's input cut at ${CONTEXT_CAP / 1024} KB (${TRUNCATION_MARKER}): the whole of it cannot be compared with the dialog`
  }
  if (typeof input !== 'object' || input === null) return 'its record holds no tool input to compare with the dialog'
  const obj = input as Record<string, unknown>
  if (typeof obj.command === 'string' && obj.command.trim()) {
    return {
      kind: 'command',
      command: obj.command,
      description: typeof obj.description === 'string' && obj.description.trim() ? obj.description : null,
    }
  }
  const path = [obj.file_path, obj.path, obj.absolute_path].find((p): p is string => typeof p === 'string' && p.trim() !== '')
  if (path && typeof obj.content === 'string') return { kind: 'file', path, content: obj.content }
  return 'its input is neither a command nor a new file, whose dialogs Trail Boss compares whole'
}

/** Whether the file a dialog names is the record's: the same path, or the same relative to the session's folder. */
const sameFile = (shown: string, path: string, cwd: string | null): boolean =>
  shown === path || (cwd !== null && isAbsolute(path) && relative(cwd, path) === shown)

/** Why the dialog's block is not exactly what the person read, or null when it is. */
export const deriveDialogMismatch = (dialog: PermissionDialog, reading: Reading, cwd: string | null): string | null => {
  const block = dialog.block
  if (block === null) return 'its dialog shows no command'
  if (block.kind === 'unread') return block.why
  const cut = block.rows.some((r) => /…\s*$/.test(r)) ? ' (the dialog cuts it: …)' : ''
  if (block.kind === 'command') {
    if (reading.kind !== 'command') return 'its dialog asks to run a command, not to write the file the record names'
    const layouts = block.layouts(reading)
    if (layouts.length === 0)
      return 'the command holds what Trail Boss cannot lay out as the dialog does (a tab, a control or wide character, or lines this agent was not seen to wrap)'
    return layouts.some((l) => jsonEqual(l, block.rows)) ? null : `its dialog's command is not exactly the one in the record${cut}`
  }
  if (reading.kind !== 'file') return 'its dialog asks to write a file, not to run the command the record names'
  if (!sameFile(block.file, reading.path, cwd)) return `its dialog writes another file (${block.file})`
  const layouts = block.layouts(reading)
  if (layouts.length === 0) return 'the content holds what Trail Boss cannot lay out as the dialog does'
  return layouts.some((l) => jsonEqual(l, block.rows)) ? null : `its dialog's content is not exactly the one in the record${cut}`
}

/**
 * The keys for `answer` on this screen, or why none may go in. A dialog that shows no command
 * (auto mode's notice) only takes keys that approve nothing; every other dialog must show
 * exactly the record's input, for `no` as for `ok`.
 */
export const deriveDialogKeys = (screen: AnswerScreen, reading: Reading, answer: Answer, cwd: string | null): DialogKeys | string => {
  if (screen.verdict !== 'permission' || !screen.dialog)
    return `its pane does not show a permission dialog (${screen.verdict === 'permission' ? 'another dialog' : screen.verdict})`
  const dialog = screen.dialog
  const keys = answer === 'allow' ? dialog.allow : dialog.deny
  const mismatch = dialog.block === null ? null : deriveDialogMismatch(dialog, reading, cwd)
  if (mismatch) return mismatch
  if (!keys) return `its dialog shows no ${answer === 'allow' ? '"allow once"' : '"no"'} choice to press`
  if (dialog.block === null && answer === 'allow' && keys.then === 'answers') return 'its dialog shows no command to compare'
  return keys
}

/**
 * Why a wait younger than `minAgeMs` (`--older-than`) is not answered, or null. Another host asks
 * for it: a wait that began after that host's read cannot be the one the person named there.
 */
export const deriveTooYoung = (item: Pick<QueueItem, 'since'>, now: number, minAgeMs: number | null): string | null => {
  if (minAgeMs === null || now - item.since >= minAgeMs) return null
  return `it began ${Math.max(0, Math.floor((now - item.since) / 1000))} s ago, under the ${minAgeMs / 1000} s asked (--older-than)`
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
  if (
    !after ||
    after.state !== 'permission' ||
    after.since !== before.since ||
    after.ask.tool !== before.ask.tool ||
    !jsonEqual(after.ask.input, before.ask.input)
  ) {
    return 'the dialog changed (it was answered, or another one is up)'
  }
  if (after.tmux?.pane !== before.tmux.pane || after.tmux.socket !== before.tmux.socket || after.tmux.alive === false)
    return 'its pane is gone'
  if (sameAgent === null) return 'its record does not say which process asked (recorded by an older trailboss-emit; its next event will)'
  if (!sameAgent) return 'its pane no longer runs the agent that asked'
  const reading = readingOf(before.ask.input)
  if (typeof reading === 'string') return reading
  if (screen === null) return 'its pane could not be read'
  const keys = deriveDialogKeys(screen, reading, answer, before.cwd)
  return typeof keys === 'string' ? keys : null
}
