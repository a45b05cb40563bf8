// The OpenCode plugin of ours, as text: OpenCode loads it into its own process and calls its
// `event` handler with every event of its bus, without waiting for it. The handler picks the
// events a state needs, turns each into a payload (hook-event.ts reads it) and returns at once:
// the file is written after it returned, one at a time so their order is the events' order, in
// the spool's format (lib/record/spool.ts, as hooks/spool.sh writes it for Codex), and then one
// detached emitter folds what was written (`--fold-spool`). Readers fold what is left on read,
// so an event is kept when that fold never runs. Plain JavaScript: OpenCode imports it as is.
import type { EmitterCommand } from '../../settings/package-root.js'

/** The file name the plugin is written as, in a plugins folder of OpenCode's. */
export const PLUGIN_FILE = 'trailboss.js'

/** What the first line says: how `install` and `uninstall` know the file for ours. */
export const PLUGIN_MARK = '// trailboss: OpenCode plugin'

const BODY = String.raw`
import { spawn } from 'node:child_process'
import { lstat, mkdir, stat, writeFile } from 'node:fs/promises'

const AGENT = 'opencode'

// An OpenCode event as a payload, or null when no state needs it.
const payloadOf = (event, last) => {
  const p = event && typeof event.properties === 'object' && event.properties !== null ? event.properties : {}
  const sessionId = typeof p.sessionID === 'string' ? p.sessionID : p.info && typeof p.info.id === 'string' ? p.info.id : null
  if (sessionId === null) return null
  const head = (name) => ({ hook_event_name: name, session_id: sessionId })
  switch (event.type) {
    case 'session.created':
    case 'session.deleted':
      return head(event.type)
    case 'session.idle': {
      // Stopped while it waited to retry a failed request: no session.error comes, so say so here.
      const before = last.get(sessionId)
      return before && before.hook_event_name === 'session.retry' ? { ...head('session.idle'), reason: 'retrying', message: before.message } : head('session.idle')
    }
    case 'session.status': {
      const status = p.status && typeof p.status === 'object' ? p.status : {}
      // OpenCode says busy many times a turn: once is enough. Its idle is session.idle's twin.
      if (status.type === 'busy') return last.has(sessionId) && last.get(sessionId).hook_event_name === 'session.busy' ? null : head('session.busy')
      if (status.type === 'retry') return { ...head('session.retry'), message: status.message }
      return null
    }
    case 'session.error': {
      const error = p.error && typeof p.error === 'object' ? p.error : {}
      return { ...head('session.error'), reason: error.name, message: error.data && error.data.message }
    }
    case 'permission.asked':
      return { ...head('permission.asked'), tool_name: p.permission, tool_input: p.metadata, tool_use_id: p.tool && p.tool.callID }
    case 'permission.replied':
      return { ...head('permission.replied'), reason: p.reply }
    case 'question.asked':
      return { ...head('question.asked'), tool_name: 'question', tool_input: { questions: p.questions }, tool_use_id: p.tool && p.tool.callID }
    case 'question.replied':
    case 'question.rejected':
      return head(event.type)
    default:
      return null
  }
}

// The spool folder, made private if missing; null when it is not a folder of ours. The home
// and its sessions folder may be links to folders of ours; the spool is a real folder.
const spoolOf = async (env) => {
  if (env.TRAILBOSS_DISABLE === '1') return null
  const home = env.TRAILBOSS_HOME || (env.HOME ? env.HOME + '/.trailboss' : '')
  if (!home.startsWith('/')) return null
  const uid = process.getuid ? process.getuid() : -1
  const ours = (st, link) => st !== null && st.isDirectory() && (uid < 0 || st.uid === uid) && (link || !st.isSymbolicLink())
  for (const [dir, link] of [[home, true], [home + '/sessions', true], [home + '/sessions/.spool', false]]) {
    await mkdir(dir, { mode: 0o700 }).catch(() => {})
    if (!ours(await (link ? stat : lstat)(dir).catch(() => null), link)) return null
  }
  return home + '/sessions/.spool'
}

export const TrailbossPlugin = async ({ directory }) => {
  const env = process.env
  const last = new Map()
  let spool
  let chain = Promise.resolve()
  let pending = 0
  let seq = 0n

  const fold = () => {
    if (!EMITTER.command) return
    try {
      const child = spawn(EMITTER.command, [...EMITTER.args, '--fold-spool'], { detached: true, stdio: 'ignore' })
      child.on('error', () => {})
      child.unref()
    } catch {}
  }

  const write = async (payload, ns) => {
    if (spool === undefined) spool = await spoolOf(env)
    if (spool === null) return
    let header = 'trailboss-spool 1\nagent ' + AGENT + '\nstamp ' + ns
    for (const name of ['TMUX', 'TMUX_PANE']) {
      const value = env[name]
      if (value && !value.includes('\n')) header += '\nenv ' + name + '=' + value
    }
    header += '\nppid ' + process.pid
    await writeFile(spool + '/' + ns + '-' + process.pid + '.ev', header + '\n\n' + JSON.stringify(payload), { flag: 'wx', mode: 0o600 })
  }

  // Queues one payload; the write and the fold run after the caller returned.
  const send = (payload) => {
    last.set(payload.session_id, payload)
    // The event's time in ns, rising within this process even within one ms: the spool's order.
    const ns = BigInt(Date.now()) * 1000000n + (seq++ % 1000000n)
    pending++
    chain = chain
      .then(() => write({ ...payload, cwd: directory }, ns))
      .catch(() => {})
      .then(() => {
        if (--pending === 0) fold()
      })
    return chain
  }

  return {
    event: ({ event }) => {
      try {
        const payload = payloadOf(event, last)
        if (payload) send(payload)
      } catch {}
    },
    // OpenCode's only sign that it exits: every session this process served ends.
    dispose: async () => {
      for (const id of [...last.keys()]) send({ hook_event_name: 'dispose', session_id: id })
      await chain
    },
  }
}
`

/** Whether a plugin file's text is one we wrote. */
export const isOurPlugin = (text: string): boolean => text.startsWith(PLUGIN_MARK)

const EMITTER_LINE = /^const EMITTER = (.*)$/m

/** The emitter a plugin of ours runs, as its second line names it; null when it names none. */
export const readPluginEmitter = (text: string): { command: string; args: string[] } | null => {
  const json = EMITTER_LINE.exec(text)?.[1]
  if (json === undefined) return null
  try {
    const v = JSON.parse(json) as { command?: unknown; args?: unknown }
    if (typeof v.command !== 'string' || !Array.isArray(v.args) || !v.args.every((a) => typeof a === 'string')) return null
    return { command: v.command, args: v.args as string[] }
  } catch {
    return null
  }
}

/** The plugin's text, running `cmd` (Node and our emitter, or `trailboss-emit` from PATH) to fold. */
export const opencodePluginSource = (cmd: EmitterCommand): string =>
  `${PLUGIN_MARK}, written by \`trailboss install --agent opencode\`; \`trailboss uninstall --agent opencode\` removes it.\n` +
  `const EMITTER = ${JSON.stringify({ command: cmd.command, args: cmd.args ?? [] })}\n` +
  BODY
