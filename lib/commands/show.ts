// trailboss show: everything about one wait — what is asked, the transcript's last exchanges,
// and with --screen the pane's live text. A wait on another host is shown by that host's own
// `show`, over ssh (lib/remote/remote-show.ts).
import type { ShowArgs } from '../options/tables.js'
import { formatAge } from '../duration.js'
import { EXIT_OK } from '../errors.js'
import { JSON_VERSION, kindLabel, STOPPED_WRITING, toJsonItem } from '../render/queue-table.js'
import type { Io } from '../io.js'
import { agentFor } from '../agents/index.js'
import type { QueueItem } from '../queue/derive.js'
import { filterAgents } from '../queue/filter.js'
import type { LoadOptions } from '../queue/load.js'
import { loadFleetView } from '../navigate/fleet-view.js'
import { resolveTarget } from '../queue/target.js'
import { reportSkipped } from '../render/skipped.js'
import type { ConversationLine } from '../agents/types.js'
import { cutLines, formatCommandTags, formatConversation } from '../render/show-text.js'
import { renderToolCall } from '../render/tool-call.js'
import { execTmuxIn } from '../tmux/exec.js'
import { capturePane } from '../tmux/panes.js'
import { formatCommand } from '../text/command-line.js'
import { formatVisible } from '../text/visible-text.js'
import { formatJson } from '../render/json-text.js'
import { takeReturnDigest } from '../navigate/return-digest.js'
import { formatDigestText } from '../history/digest.js'

/**
 * Pure: the human-readable page for one item. Every line of it, whatever wrote its text (the
 * agent, a payload, a transcript, the pane), is made visible on its way out.
 */
/** Lines of a message or a tool call shown before the cut (`--full`: no cut). */
export const SHOW_LINES = 30

/** What the wait is, in words that fit its kind: only a live permission "asks to run". */
export const askHeading = (
  item: Pick<QueueItem, 'state' | 'kind'> & { record: Pick<QueueItem['record'], 'state'> },
): { tool: string; message: string } => {
  if (item.state === 'permission' && item.kind === 'question') return { tool: 'Asks you:', message: 'Notice:' }
  if (item.state === 'permission') return { tool: 'Asks to run:', message: 'Notice:' }
  // The record still in its dialog: the person said no (or Esc) there. Else the tool was running.
  if (item.kind === 'interrupted' && item.record.state === 'permission')
    return { tool: 'Was denied (its dialog got a no, or Esc):', message: 'Last message:' }
  if (item.kind === 'interrupted') return { tool: 'Was stopped (Esc, or a no in its dialog) at:', message: 'Last message:' }
  if (item.kind === 'error') return { tool: 'Was running:', message: 'Failed with:' }
  if (item.kind === 'done') return { tool: 'Was running:', message: 'Finished with:' }
  if (item.kind === 'question') return { tool: 'Was running:', message: 'Asks you:' }
  return { tool: 'Tool:', message: 'Last message:' }
}

export const formatShow = (
  item: QueueItem,
  conversation: ConversationLine[] | null,
  screen: string | null,
  now: number,
  full = false,
): string => {
  const out: string[] = []
  const where = item.tmux
    ? `pane ${item.tmux.pane}${item.tmux.alive === false ? ' (gone)' : ''}`
    : item.headless
      ? 'headless'
      : 'no tmux pane'
  out.push(
    `${item.n === null ? '-' : item.n} · ${item.project ?? '?'} · ${kindLabel(item)}${item.inferred ? ' (inferred)' : ''} · ${formatAge(now - item.since)} · ${where}`,
  )
  out.push(`session ${item.sessionId} (key ${item.key}) on ${item.host}`)
  if (item.cwd) out.push(`cwd     ${item.cwd}`)
  if (item.tmux) out.push(`tmux    ${item.tmux.socket} ${item.tmux.pane}`)
  if (item.reason) out.push(`why     ${item.reason}`)
  const denied = item.record.denied
  if (denied)
    out.push(
      `refused ${denied.tool}${denied.reason ? `: ${denied.reason}` : ''} (the agent's own check, ${formatAge(now - denied.at)} ago; it went on without it)`,
    )
  out.push('')
  const heading = askHeading(item)
  const cut = (lines: string[]): string[] => cutLines(lines, full ? Infinity : SHOW_LINES)
  if (item.ask.tool) {
    out.push(heading.tool)
    out.push(...cut(renderToolCall(item.ask.tool, item.ask.input)).map((l) => `  ${l}`))
    out.push('')
  } else if (item.kind === 'interrupted' && (item.state === 'waiting' || item.state === 'permission')) {
    out.push(`Was ${STOPPED_WRITING}.`)
    out.push('')
  }
  if (item.ask.message) {
    out.push(heading.message)
    out.push(...cut(formatCommandTags(item.ask.message).split('\n')).map((l) => `  ${l}`))
    out.push('')
  }
  // Trail Boss's own advice, never under the agent's words.
  if (item.hint) {
    out.push("Trail Boss's hint (not from the agent):")
    out.push(`  ${item.hint}`)
    out.push('')
  }
  if (conversation) {
    out.push(`Transcript (last ${conversation.length}):`)
    out.push(...formatConversation(conversation, full).map((l) => `  ${l}`))
    out.push('')
  } else if (item.record.transcriptPath) {
    out.push(`Transcript: not readable (${item.record.transcriptPath})`)
    out.push('')
  }
  if (screen !== null) {
    out.push('Screen:')
    out.push(
      ...screen
        .replace(/\s+$/, '')
        .split('\n')
        .map((l) => `  │ ${l}`),
    )
    out.push('')
  }
  const resume = agentFor(item.agent)?.resumeCommand(item.sessionId)
  if (!item.tmux && item.cwd && !item.headless && resume) out.push(`Not in tmux. To pick it up: cd ${item.cwd} && ${formatCommand(resume)}`)
  return `${out
    .map((l) => formatVisible(l, { tabs: 'expand' }))
    .join('\n')
    .replace(/\n+$/, '')}\n`
}

export const runShow = async (args: ShowArgs, io: Io, opts: LoadOptions = {}): Promise<number> => {
  const fleet = await loadFleetView(io, { local: args.local }, opts)
  const view = filterAgents(fleet.view, args.agent)
  reportSkipped(view, io)
  const item = resolveTarget(view, args.target, io)
  // A person reading a wait (not a script: --json): after a quiet stretch, what arrived meanwhile.
  if (!args.json) {
    const digest = takeReturnDigest(io, fleet.view.queue)
    if (digest) io.stderr.write(`${formatDigestText(digest)}\n`)
  }
  if (item.remote) {
    // Its host holds its transcript and pane: that host's own `show` says it.
    const { readRemoteShow, readRemoteShowJson } = await import('../remote/remote-show.js')
    const host = fleet.hosts.find((h) => h.destination === item.remote?.destination)
    const flags = { screen: args.screen, full: args.full }
    if (args.json) io.stdout.write(`${formatJson(await readRemoteShowJson(io.env, item.remote, item.n, host, flags, view.now), 2)}\n`)
    else io.stdout.write(await readRemoteShow(io.env, item.remote, host, flags, view.now))
    return EXIT_OK
  }
  const path = item.record.transcriptPath
  const conversation = agentFor(item.agent)?.readConversation(item.record, io.env, args.lines) ?? null
  let screen: string | null = null
  if (args.screen && item.tmux && item.tmux.alive !== false) {
    screen = await capturePane(item.tmux.socket, item.tmux.pane, opts.exec ?? execTmuxIn(io.env)).catch(() => null)
    if (screen === null) io.stderr.write(`trailboss: could not capture pane ${item.tmux.pane}\n`)
  }
  if (args.json) {
    const out = { version: JSON_VERSION, item: toJsonItem(item), transcriptPath: path, conversation, screen }
    io.stdout.write(`${formatJson(out, 2)}\n`)
  } else {
    io.stdout.write(formatShow(item, conversation, screen, view.now, args.full))
  }
  return EXIT_OK
}
