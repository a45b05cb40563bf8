// The digest an interactive command shows once when the person comes back after a quiet stretch
// (docs/design.md §11.8): the return is taken from history/activity.ts, what arrived meanwhile
// from the history, the oldest open wait from the queue the command read anyway.
import type { Io } from '../io.js'
import { takeReturn } from '../history/activity.js'
import { type Digest, deriveDigest, formatDigestLine, formatDigestText, isEmptyDigest, type OpenWait } from '../history/digest.js'
import { readHistorySpan } from '../history/read.js'
import type { QueueItem } from '../queue/derive.js'
import type { TmuxExec } from '../tmux/exec.js'
import { callerSocket } from '../tmux/env.js'

/** A digest as `ls --json --return-digest` gives it (docs/ls.schema.json): moments as ISO dates, as the rest of the document. */
export interface JsonReturnDigest {
  since: string
  until: string
  /** The digest on one line, visible text: what a toast or a message line shows. */
  line: string
  waits: Digest['waits']
  done: number
  errors: number
  oldest: (Omit<NonNullable<Digest['oldest']>, 'since'> & { since: string }) | null
}

/** Pure: a return's digest as `ls --json` carries it. */
export const toJsonReturnDigest = (d: Digest): JsonReturnDigest => ({
  since: new Date(d.since).toISOString(),
  until: new Date(d.until).toISOString(),
  line: formatDigestLine(d),
  waits: d.waits,
  done: d.done,
  errors: d.errors,
  oldest: d.oldest ? { ...d.oldest, since: new Date(d.oldest.since).toISOString() } : null,
})

/** How long the digest stays on a tmux client's message line: longer than a move's word. */
export const DIGEST_MESSAGE_MS = 15_000

/** Pure: the waits of a queue that block on the person, as the digest tells them (by number, as `go` takes them). */
export const deriveOpenWaits = (queue: readonly QueueItem[]): OpenWait[] =>
  queue
    .filter((i) => i.needsYou)
    .map((i) => ({ key: i.n === null ? i.key : String(i.n), agent: i.agent, project: i.project, kind: i.kind, since: i.since }))

/** The digest of what arrived in a span, with the queue's open waits; null when nothing arrived. */
export const readDigest = (io: Pick<Io, 'env'>, queue: readonly QueueItem[], span: { since: number; until: number }): Digest | null => {
  const { entries } = readHistorySpan(io.env, span.since, span.until)
  const digest = deriveDigest(entries, deriveOpenWaits(queue), span)
  return isEmptyDigest(digest) ? null : digest
}

/**
 * An interactive command ran: the digest of the return it ends, for it alone (a second command
 * racing it gets null), or null when there was no quiet stretch or nothing arrived in it.
 */
export const takeReturnDigest = (io: Pick<Io, 'env' | 'now'>, queue: readonly QueueItem[]): Digest | null => {
  const now = io.now()
  const span = takeReturn(io.env, now)
  if (span === null) return null
  try {
    return readDigest(io, queue, { since: span.since, until: now })
  } catch {
    // The history unreadable: the command's own work matters more than the digest.
    return null
  }
}

/** Shows a digest on a tmux client's message line (a key binding's `run-shell` has no terminal). */
export const tellClientDigest = async (client: string, socket: string, digest: Digest, exec: TmuxExec): Promise<boolean> => {
  // Messages are format-expanded by tmux: a literal # is written ##.
  const text = formatDigestLine(digest).replaceAll('#', '##')
  const r = await exec(['display-message', '-c', client, '-d', String(DIGEST_MESSAGE_MS), text], { socket }).catch(() => null)
  return r?.code === 0
}

/**
 * Where a command's digest goes: a key binding (`--client`, run by tmux with no terminal for
 * stderr) gets the client's message line, once the command's own word is said; any other
 * command, stderr at once (its stdout is data). Returns what shows the deferred one.
 */
export const sayReturnDigest = (
  digest: Digest | null,
  way: { client?: string | undefined },
  io: Io,
  exec: TmuxExec,
): (() => Promise<void>) => {
  const socket = callerSocket(io.env.TMUX)
  if (digest === null) return async () => {}
  if (way.client !== undefined && io.stderr.isTTY !== true && socket !== null) {
    const client = way.client
    return async () => {
      await tellClientDigest(client, socket, digest, exec)
    }
  }
  io.stderr.write(formatDigestText(digest))
  return async () => {}
}
