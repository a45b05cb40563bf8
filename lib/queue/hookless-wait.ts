// A session found without hooks keeps its wait when its first hook fires (docs/queue.md §5).
// Claude Code picks hooks up at its next event: a session already waiting gets its first record
// from a hook that only repeats the wait (idle_prompt, permission_prompt), stamped when it fires.
// Discovery remembers the last wait it gave each hook-less session (discovery.json `waits`); a
// record whose very first event set that same wait, with no prompt in the transcript since,
// continues it: the earlier `since`, and the kind discovery read (idle_prompt cannot tell a
// question from a finished turn).
import type { SessionRecord } from '../record/types.js'
import type { WaitMemo } from './discovery-cache.js'

/** Pure: what discovery remembers of a hook-less session's wait; the same wait keeps its first `since`. */
export const deriveWaitMemo = (rec: SessionRecord, old: WaitMemo | undefined, size: number): WaitMemo => {
  const same = old !== undefined && old.state === rec.state && old.kind === rec.kind
  return { state: rec.state, kind: rec.kind, since: same ? Math.min(old.since, rec.since) : rec.since, size }
}

/**
 * Pure: whether a record may continue the hook-less wait `memo`: a wait of the same state, set
 * by the record's first event (no earlier event of it shows a turn), begun after discovery's.
 * The caller still checks the transcript for a prompt in between.
 */
export const mayContinueWait = (rec: SessionRecord, memo: WaitMemo): boolean =>
  (rec.state === 'waiting' || rec.state === 'permission') &&
  rec.state === memo.state &&
  rec.since === rec.firstEventAt &&
  memo.since <= rec.since

/** Pure: the record as the continuation of the hook-less wait: its `since`, and for a finished turn its kind. */
export const deriveContinuedWait = (rec: SessionRecord, memo: WaitMemo): SessionRecord => ({
  ...rec,
  since: memo.since,
  // A permission hook names its dialog better than a screen; a repeated idle_prompt says only "done".
  kind: rec.state === 'waiting' ? memo.kind : rec.kind,
})

/**
 * Pure: the record that stands for the transcript check "did the person prompt since the
 * hook-less wait began": every prompt after `memo.size` (its transcript size then) counts.
 */
export const deriveSincePrompt = (rec: SessionRecord, memo: WaitMemo): SessionRecord => ({
  ...rec,
  state: 'waiting',
  kind: 'done',
  promptId: null,
  tool: null,
  offset: Math.max(0, memo.size),
  since: memo.since,
})
