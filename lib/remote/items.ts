// Pure: a host's checked listing (answer.ts) as queue items beside this machine's. Keys and
// session ids gain the destination (`devbox:3f2a9c1e`): unique across hosts, and never the name
// of a file here (':' is outside the session-id pattern), so no local command can act on a
// remote session by mistake; their own key and id stay in `remote` for the commands that go there.
import type { AgentId, SessionRecord } from '../record/types.js'
import type { QueueItem } from '../queue/derive.js'
import type { RemoteJsonItem, RemoteListing } from './answer.js'

/** `devbox:3f2a9c1e`: how a remote session is named here. */
export const remoteName = (destination: string, theirs: string): string => `${destination}:${theirs}`

const toRecord = (j: RemoteJsonItem, since: number): SessionRecord => ({
  v: 1,
  agent: j.agent as AgentId,
  sessionId: j.sessionId,
  host: j.host,
  headless: j.headless,
  cwd: j.cwd,
  project: j.project,
  transcriptPath: null,
  tmux: j.tmux ? { pane: j.tmux.pane, socket: j.tmux.socket, serverPid: null } : null,
  state: j.state === 'gone' ? 'ended' : j.state,
  kind: j.kind,
  since,
  event: 'remote',
  promptId: null,
  tool: j.ask.tool === null ? null : { name: j.ask.tool, input: j.ask.input, useId: null },
  message: j.ask.message,
  offset: null,
  lastTool: null,
  turnEndedPromptId: null,
  backgroundTasks: 0,
  firstEventAt: since,
  lastEventAt: Date.parse(j.lastEventAt),
  lastEvent: 'remote',
  stateStamp: since,
  events: 0,
  foldedPending: [],
  denied: j.denied ? { tool: j.denied.tool, reason: j.denied.reason, at: Date.parse(j.denied.at) } : null,
})

/** Pure: one item of a host's listing as an item of the queue here (its number is given here). */
export const toRemoteItem = (j: RemoteJsonItem, destination: string, stale: boolean): QueueItem => {
  const since = Date.parse(j.since)
  return {
    n: null,
    key: remoteName(destination, j.key),
    sessionId: remoteName(destination, j.sessionId),
    agent: j.agent,
    state: j.state,
    kind: j.kind,
    since,
    cwd: j.cwd,
    project: j.project,
    host: j.host,
    headless: j.headless,
    tmux: j.tmux ? { pane: j.tmux.pane, socket: j.tmux.socket, serverPid: null, alive: j.tmux.alive, place: j.tmux.place } : null,
    inferred: j.inferred,
    reason: j.reason,
    needsYou: j.needsYou,
    seen: j.seen,
    ask: j.ask,
    hint: j.hint,
    record: toRecord(j, since),
    remote: { destination, key: j.key, sessionId: j.sessionId, stale },
  }
}

/** Pure: a host's listing as queue items. */
export const toRemoteItems = (listing: RemoteListing, destination: string, stale: boolean): QueueItem[] =>
  listing.queue.map((j) => toRemoteItem(j, destination, stale))
