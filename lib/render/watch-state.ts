// Pure: what `trailboss watch` does with each key, each new queue and each answer from what it
// started. `stepWatch(state, input)` gives the next state and the effects to perform, as data;
// lib/commands/watch.ts reads the keys, runs this, and performs them (draw, go, answer, ...).
import { isQueued, type QueueItem } from '../queue/derive.js'
import type { HostStatus } from './host-line.js'
import { deriveMove, deriveSelectedIndex, type WatchScreen } from './watch-screen.js'

/** With 10 or more waits, a first digit waits this long for a second one. */
export const DIGIT_WAIT_MS = 600

/** The queue as the view shows it: the waits, or every session with --all. */
export interface WatchQueue {
  items: readonly QueueItem[]
  queue: readonly QueueItem[]
  tmuxAvailable: boolean
}

export interface WatchState {
  /** `--all`: every session, not only the queue. */
  all: boolean
  /** In a display-popup, a jump that worked closes the view (the popup hides the pane). */
  popup: boolean
  queue: WatchQueue | null
  /** Session id of the selected row; null or unknown: the first row. */
  selected: string | null
  details: boolean
  /** One line of news at the bottom (where `go` went, or why it could not). */
  message: string | null
  /** Digits typed so far, while a number of two or more digits is being typed. */
  digits: string
  /** A jump or an answer is under way: another waits until it is done. */
  busy: boolean
  /** Each other host followed, and whether it answers (its waits are in `queue`, merged and numbered). */
  hosts: readonly HostStatus[]
}

export type WatchInput =
  | { type: 'key'; key: string }
  | { type: 'queue'; queue: WatchQueue }
  /** A host's follow answered, ended or started again. */
  | { type: 'hosts'; hosts: readonly HostStatus[] }
  | { type: 'tick' }
  | { type: 'resize' }
  | { type: 'digit-timeout' }
  | { type: 'error'; message: string }
  /** Something to tell on the message line (the digest of a return, docs/design.md §11.8). */
  | { type: 'note'; message: string }
  /** What `go` said (stdout and stderr), and its exit code. */
  | { type: 'went'; code: number; said: string }
  /** What `ok`/`no` said. */
  | { type: 'answered'; said: string }
  | { type: 'marked'; item: QueueItem; ok: boolean }

export type WatchEffect =
  | { type: 'draw'; force: boolean }
  | { type: 'quit' }
  | { type: 'go'; item: QueueItem }
  | { type: 'answer'; answer: 'allow' | 'deny'; item: QueueItem }
  | { type: 'mark-seen'; item: QueueItem }
  | { type: 'rescan' }
  /** (Re)start the timer that sends `digit-timeout` after `ms`. */
  | { type: 'digit-timer'; ms: number }
  | { type: 'clear-digit-timer' }

export interface WatchStep {
  state: WatchState
  effects: WatchEffect[]
}

export const initialWatchState = (all: boolean, popup: boolean): WatchState => ({
  all,
  popup,
  queue: null,
  selected: null,
  details: false,
  message: null,
  digits: '',
  busy: false,
  hosts: [],
})

const DRAW: WatchEffect = { type: 'draw', force: false }
const QUIT_KEYS = new Set(['q', '\u0003', '\u001b'])
const DOWN_KEYS = new Set(['j', '\u001b[B'])
const UP_KEYS = new Set(['k', '\u001b[A'])

/** The rows shown. */
export const shownItems = (s: Pick<WatchState, 'all' | 'queue'>): readonly QueueItem[] =>
  s.queue ? (s.all ? s.queue.items : s.queue.queue) : []

const selectedItem = (s: WatchState): QueueItem | undefined => {
  const items = shownItems(s)
  return items[deriveSelectedIndex(items, s.selected)]
}

/**
 * A chunk read from the terminal as keys: an arrow is one escape sequence, any other is dropped
 * (only a lone Esc quits); the rest key by key.
 */
export const splitKeys = (text: string): string[] => {
  if (text.length > 1 && text.startsWith('\u001b')) return /^\u001b\[[AB]$/.test(text) ? [text] : []
  return [...text]
}

/** The screen's facts that the state holds; the loop adds the time and the terminal's. */
export const screenOf = (s: WatchState, terminal: Pick<WatchScreen, 'now' | 'width' | 'height' | 'colour'>): WatchScreen => ({
  ...terminal,
  items: shownItems(s),
  selected: s.selected,
  details: s.details,
  message: s.message,
  tmuxAvailable: s.queue?.tmuxAvailable ?? true,
  digits: s.digits,
  all: s.all,
  hosts: s.hosts,
})

/** Go to `item`, unless there is none or a jump or answer is under way. */
const goTo = (s: WatchState, item: QueueItem | undefined, before: WatchEffect[] = []): WatchStep =>
  !item || s.busy ? { state: s, effects: before } : { state: { ...s, busy: true }, effects: [...before, { type: 'go', item }] }

/** The number typed is complete: go to the wait that holds it, or say there is none. */
const goNumber = (s: WatchState): WatchStep => {
  const n = Number(s.digits)
  const next = { ...s, digits: '' }
  const item = shownItems(s).find((i) => i.n === n)
  const clear: WatchEffect = { type: 'clear-digit-timer' }
  if (!item) return { state: { ...next, message: `no wait number ${n}` }, effects: [clear, DRAW] }
  return goTo(next, item, [clear])
}

const onDigit = (s: WatchState, key: string): WatchStep => {
  const next = { ...s, digits: s.digits + key }
  const count = Math.max(0, ...shownItems(s).map((i) => i.n ?? 0))
  // Go at once unless a longer number could still be meant.
  if (Number(next.digits) * 10 > count) return goNumber(next)
  return { state: next, effects: [{ type: 'digit-timer', ms: DIGIT_WAIT_MS }, DRAW] }
}

const answerSelected = (s: WatchState, answer: 'allow' | 'deny'): WatchStep => {
  const item = selectedItem(s)
  if (!item || s.busy) return { state: s, effects: [] }
  return { state: { ...s, busy: true }, effects: [{ type: 'answer', answer, item }] }
}

const onKey = (s: WatchState, key: string): WatchStep => {
  if (QUIT_KEYS.has(key)) return { state: s, effects: [{ type: 'quit' }] }
  if (/^[0-9]$/.test(key)) return onDigit(s, key)
  if (key === '\r' || key === '\n') return s.digits ? goNumber(s) : goTo(s, selectedItem(s))
  if (DOWN_KEYS.has(key)) return { state: { ...s, selected: deriveMove(shownItems(s), s.selected, 1) }, effects: [DRAW] }
  if (UP_KEYS.has(key)) return { state: { ...s, selected: deriveMove(shownItems(s), s.selected, -1) }, effects: [DRAW] }
  if (key === 'y') return answerSelected(s, 'allow')
  if (key === 'n') return answerSelected(s, 'deny')
  if (key === 's') return { state: { ...s, details: !s.details }, effects: [DRAW] }
  if (key === 'a') {
    // Acknowledge: the selected wait is seen, and leaves the view until its session waits again.
    const item = selectedItem(s)
    // A seen mark lives on the wait's own host: `go` there marks it.
    if (item?.remote) return { state: { ...s, message: `a wait on ${item.remote.destination} is marked seen there` }, effects: [DRAW] }
    return { state: s, effects: item && isQueued(item) ? [{ type: 'mark-seen', item }] : [DRAW] }
  }
  if (key === 'r') return { state: s, effects: [{ type: 'rescan' }, DRAW] }
  return { state: s, effects: [DRAW] }
}

/** The lines a command said, without blank ones. */
const saidLines = (said: string): string[] => said.trim().split('\n').filter(Boolean)

export const stepWatch = (s: WatchState, input: WatchInput): WatchStep => {
  switch (input.type) {
    case 'key':
      return onKey(s, input.key)
    case 'queue':
      return { state: { ...s, queue: input.queue }, effects: [DRAW] }
    case 'hosts':
      return { state: { ...s, hosts: input.hosts }, effects: [DRAW] }
    case 'tick':
      return { state: s, effects: [DRAW] }
    case 'resize':
      return { state: s, effects: [{ type: 'draw', force: true }] }
    case 'digit-timeout':
      return goNumber(s)
    case 'error':
    case 'note':
      return { state: { ...s, message: input.message }, effects: [DRAW] }
    case 'went': {
      const next = { ...s, busy: false }
      if (input.code === 0 && s.popup) return { state: next, effects: [{ type: 'quit' }] }
      // Its last line is the news: where it went, or why it could not.
      return { state: { ...next, message: saidLines(input.said).pop() ?? null }, effects: [{ type: 'rescan' }, DRAW] }
    }
    case 'answered':
      return { state: { ...s, busy: false, message: saidLines(input.said).join(' · ') || null }, effects: [{ type: 'rescan' }, DRAW] }
    case 'marked':
      return {
        state: { ...s, message: input.ok ? `seen: ${input.item.n ?? input.item.key}` : 'could not mark it seen' },
        effects: [{ type: 'rescan' }, DRAW],
      }
  }
}
