import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { hooksFor } from '../lib/agents/hook-registry.js'
import { OPENCODE } from '../lib/agents/opencode/hook-event.js'
import { opencodeHooks } from '../lib/agents/opencode/hooks.js'
import { opencodePluginSource, PLUGIN_MARK } from '../lib/agents/opencode/plugin.js'
import { stateChangeFor } from '../lib/agents/opencode/state-rules.js'
import type { EmitterCommand } from '../lib/settings/package-root.js'
import { applyEvent } from '../lib/record/fold.js'
import { listSpool, parseSpool, spoolDir } from '../lib/record/spool.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { EMITTER, tempDir } from './helpers/emitter.js'
import { waitFor } from './helpers/wait-for.js'

// Lines the probe plugin wrote in a real OpenCode 1.18.33 (test/fixtures/opencode): `event`
// lines are what OpenCode hands a plugin's event handler; `dispose` is its exit.
interface Captured {
  kind: string
  type?: string
  properties?: unknown
}
const capture = (name: string): Captured[] =>
  fs
    .readFileSync(new URL(`./fixtures/opencode/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Captured)

interface Plugin {
  event: (input: { event: { type: string; properties: unknown } }) => unknown
  dispose: () => Promise<void>
}

/** Our plugin as OpenCode loads it: the written file, imported, called with its context. */
const loadPlugin = async (dir: string, cmd: EmitterCommand): Promise<Plugin> => {
  const file = join(dir, 'trailboss.js')
  fs.writeFileSync(file, opencodePluginSource(cmd))
  // OpenCode imports a plugin as a module, whatever folder holds it; Node needs to be told.
  fs.writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  t.same(Object.keys(mod), ['TrailbossPlugin'], 'OpenCode calls every export of a plugin file: ours has one')
  return (mod.TrailbossPlugin as (ctx: { directory: string }) => Promise<Plugin>)({ directory: '/work/proj-opencode' })
}

/** Hands the captured lines to the plugin as OpenCode did, up to its dispose when `dispose`. */
const replay = async (plugin: Plugin, lines: Captured[], dispose = true): Promise<void> => {
  for (const c of lines) {
    if (c.kind === 'event')
      t.equal(plugin.event({ event: { type: c.type!, properties: c.properties } }), undefined, 'returns nothing to wait for')
    else if (c.kind === 'dispose' && dispose) await plugin.dispose()
  }
}

const withHome = (t: { teardown: (fn: () => void) => void }, home: string): void => {
  const before = { home: process.env.TRAILBOSS_HOME, pane: process.env.TMUX_PANE, tmux: process.env.TMUX }
  process.env.TRAILBOSS_HOME = home
  process.env.TMUX = '/tmp/tmux-1000/default,4242,0'
  process.env.TMUX_PANE = '%7'
  t.teardown(() => {
    for (const [k, v] of [
      ['TRAILBOSS_HOME', before.home],
      ['TMUX_PANE', before.pane],
      ['TMUX', before.tmux],
    ] as const)
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  })
}

/** The spooled events, oldest first, as the fold reads them. */
const spooled = (home: string): HookEvent[] => {
  const dir = spoolDir(join(home, 'sessions'))
  return listSpool(dir).map((f) => {
    const entry = parseSpool(fs.readFileSync(join(dir, f.name), 'utf8'), f.mtimeMs)
    if (typeof entry === 'string' || 'incomplete' in entry) throw new Error(`${f.name}: ${JSON.stringify(entry)}`)
    t.equal(entry.agent, OPENCODE)
    const ev = opencodeHooks.toHookEvent(entry.payload, {
      env: entry.env,
      stamp: entry.stamp,
      host: 'h',
      fileSize: () => null,
      projectLabel: (_d, cwd) => (cwd ? cwd.split('/').pop()! : null),
    })
    if (typeof ev === 'string') throw new Error(ev)
    return ev
  })
}

const show = (r: SessionRecord): string => `${r.state}/${r.kind ?? '-'}${r.tool ? ` ${r.tool.name} ${JSON.stringify(r.tool.input)}` : ''}`

t.test('the TUI capture, through our plugin and the fold: every state', async (t) => {
  const home = tempDir(t)
  withHome(t, home)
  const plugin = await loadPlugin(tempDir(t), { command: '' })
  await replay(plugin, capture('events-tui.jsonl'))
  const events = spooled(home)
  t.ok(events.every((e) => e.cwd === '/work/proj-opencode' && e.project === 'proj-opencode' && e.tmux?.pane === '%7'))
  let rec: SessionRecord | null = null
  const steps: string[] = []
  for (const ev of events) {
    rec = applyEvent(rec, ev, hooksFor)
    steps.push(`${ev.name} → ${show(rec)}`)
  }
  const bash = 'bash {"command":"echo probe > probe-out.txt"}'
  const question =
    'question {"questions":[{"question":"Which color?","header":"Color","options":[{"label":"Red","description":"red"},{"label":"Blue","description":"blue"}]}]}'
  t.same(steps, [
    'session.created → idle/-',
    'session.busy → working/-',
    // Approved once: the tool runs, the turn ends.
    `permission.asked → permission/permission ${bash}`,
    'permission.replied → working/-',
    'session.busy → working/-',
    'session.idle → waiting/done',
    'session.busy → working/-',
    // Rejected in the dialog: the turn stops there, and idle leaves it so.
    `permission.asked → permission/permission ${bash}`,
    `permission.replied → waiting/interrupted ${bash}`,
    `session.idle → waiting/interrupted ${bash}`,
    'session.busy → working/-',
    `permission.asked → permission/permission ${bash}`,
    `permission.replied → waiting/interrupted ${bash}`,
    `session.idle → waiting/interrupted ${bash}`,
    // Esc while it streams.
    'session.busy → working/-',
    'session.error → waiting/interrupted',
    'session.idle → waiting/interrupted',
    'session.idle → waiting/interrupted',
    // The API fails (500) five times: retries, then the error.
    'session.busy → working/-',
    ...Array.from({ length: 5 }, () => ['session.retry → working/-', 'session.busy → working/-']).flat(),
    'session.error → waiting/error',
    'session.idle → waiting/error',
    'session.idle → waiting/error',
    // A 400 retried, stopped while it waited: no session.error comes.
    'session.busy → working/-',
    'session.retry → working/-',
    'session.busy → working/-',
    'session.retry → working/-',
    'session.busy → working/-',
    'session.retry → working/-',
    'session.idle → waiting/error',
    'session.busy → working/-',
    `question.asked → permission/question ${question}`,
    'question.replied → working/-',
    'session.busy → working/-',
    'session.idle → waiting/done',
    'dispose → ended/-',
  ])
  const error = events.find((e) => e.name === 'session.error' && !e.isInterrupt)
  t.equal(error?.message, 'mock: the server broke (500)')
  t.match(
    events.find((e) => e.name === 'session.idle' && e.reason === 'retrying'),
    { message: 'mock: the server broke (400)' },
  )
  t.equal(events.find((e) => e.name === 'permission.asked')?.tool?.useId, 'call_25')
})

t.test('a dismissed question and two sessions in one process (the naps capture)', async (t) => {
  const home = tempDir(t)
  withHome(t, home)
  const plugin = await loadPlugin(tempDir(t), { command: '' })
  await replay(plugin, capture('events-naps-user.jsonl'))
  const records = new Map<string, SessionRecord>()
  const steps: string[] = []
  for (const ev of spooled(home)) {
    records.set(ev.sessionId, applyEvent(records.get(ev.sessionId) ?? null, ev, hooksFor))
    if (ev.name.startsWith('question.')) {
      const r = records.get(ev.sessionId)!
      steps.push(`${ev.name} → ${r.state}/${r.kind ?? '-'} ${r.tool?.name ?? '-'}`)
    }
  }
  t.same(steps, [
    'question.asked → permission/question question',
    // Dismissed with Esc: the turn stops.
    'question.rejected → waiting/interrupted question',
  ])
  t.ok(
    [...records.values()].every((r) => r.state === 'ended'),
    'dispose ends every session the process served',
  )
})

t.test('the plugin folds with the real emitter, detached, and the record holds the wait', async (t) => {
  const home = tempDir(t)
  withHome(t, home)
  const plugin = await loadPlugin(tempDir(t), { command: process.execPath, args: [EMITTER] })
  const lines = capture('events-tui.jsonl')
  // Up to the question's dialog: the person has not answered yet.
  const asked = lines.findIndex((c) => c.type === 'question.asked')
  await replay(plugin, lines.slice(0, asked + 1))
  const file = join(home, 'sessions', 'ses_dca4e9ecaffe51iq8WswhrkLh7.json')
  const read = (): SessionRecord => JSON.parse(fs.readFileSync(file, 'utf8')) as SessionRecord
  await waitFor(
    () => read().state === 'permission' && fs.readdirSync(spoolDir(join(home, 'sessions'))).length === 0,
    'the question folded',
    20_000,
  )
  t.match(read(), { agent: OPENCODE, state: 'permission', kind: 'question', tool: { name: 'question' }, tmux: { pane: '%7' } })
  await replay(plugin, lines.slice(asked + 1))
  await waitFor(() => read().state === 'ended', 'the dispose folded', 20_000)
  t.match(read(), { state: 'ended', cwd: '/work/proj-opencode' })
})

t.test('TRAILBOSS_DISABLE=1: the plugin writes nothing', async (t) => {
  const home = tempDir(t)
  withHome(t, home)
  process.env.TRAILBOSS_DISABLE = '1'
  t.teardown(() => delete process.env.TRAILBOSS_DISABLE)
  const plugin = await loadPlugin(tempDir(t), { command: '' })
  await replay(plugin, capture('events-tui.jsonl'))
  t.notOk(fs.existsSync(join(home, 'sessions')))
})

t.test('the plugin file: marked, and valid JavaScript for any emitter path', async (t) => {
  const text = opencodePluginSource({ command: '/opt/node "x"/bin/node', args: ['/a b/emit.cjs'] })
  t.ok(text.startsWith(PLUGIN_MARK))
  const r = spawnSync(process.execPath, ['--check', '--input-type=module'], { input: text, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
})

t.test('state rules', async (t) => {
  const base: HookEvent = spooledBase()
  const ev = (name: string, extra: Partial<HookEvent> = {}): HookEvent => ({ ...base, name, ...extra })
  t.equal(stateChangeFor(null, ev('message.updated')), null, 'an event no state needs')
  t.same(stateChangeFor(null, ev('permission.replied', { reason: 'always' })), { state: 'working', kind: null })
  t.same(stateChangeFor(null, ev('session.idle')), { state: 'waiting', kind: 'done', message: null })
  t.same(stateChangeFor(null, ev('session.deleted')), { state: 'ended', kind: null })
  let rec = applyEvent(null, ev('permission.asked', { tool: { name: 'bash', input: { command: 'ls' }, useId: 'c1' } }), hooksFor)
  t.equal(stateChangeFor(rec, ev('session.busy')), null, 'busy while a dialog is open leaves the dialog')
  rec = applyEvent(rec, ev('permission.replied', { reason: 'once', stamp: 2 }), hooksFor)
  t.same(stateChangeFor(rec, ev('session.busy')), { state: 'working', kind: null })

  const asked = applyEvent(null, ev('permission.asked', { tool: { name: 'bash', input: { command: 'ls' }, useId: 'c1' } }), hooksFor)
  const abort = (stamp: number): HookEvent => ev('session.error', { isInterrupt: true, stamp })
  const refused = applyEvent(asked, ev('permission.replied', { reason: 'reject', stamp: 2 }), hooksFor)
  t.equal(refused?.tool?.name, 'bash', 'a refusal says which tool')
  const abortedAfter = applyEvent(refused, abort(3), hooksFor)
  t.same(
    [abortedAfter?.kind, abortedAfter?.tool?.name, abortedAfter?.since],
    ['interrupted', 'bash', 2],
    'an abort after the refusal: the same wait, its tool kept',
  )
  const abortedFirst = applyEvent(asked, abort(2), hooksFor)
  t.same([abortedFirst?.kind, abortedFirst?.tool?.name], ['interrupted', 'bash'], 'an abort of the dialog says its tool')
  const refusedAfter = applyEvent(abortedFirst, ev('permission.replied', { reason: 'reject', stamp: 3 }), hooksFor)
  t.same(
    [refusedAfter?.kind, refusedAfter?.tool?.name, refusedAfter?.since],
    ['interrupted', 'bash', 2],
    'the refusal published after the abort: the same wait, its tool kept',
  )
  const askedQuestion = applyEvent(null, ev('question.asked', { tool: { name: 'question', input: {}, useId: 'q1' } }), hooksFor)
  const rejectedAfter = applyEvent(applyEvent(askedQuestion, abort(2), hooksFor), ev('question.rejected', { stamp: 3 }), hooksFor)
  t.same(
    [rejectedAfter?.kind, rejectedAfter?.tool?.name],
    ['interrupted', 'question'],
    'a question rejected after the abort keeps its tool',
  )
  const fromWork = applyEvent(applyEvent(null, ev('session.busy'), hooksFor), abort(2), hooksFor)
  t.same([fromWork?.kind, fromWork?.tool], ['interrupted', null], 'an Esc while working: no dialog, no tool')
})

function spooledBase(): HookEvent {
  const ev = opencodeHooks.toHookEvent(
    { hook_event_name: 'session.idle', session_id: 'ses_x' },
    { env: {}, stamp: 1, host: 'h', fileSize: () => null, projectLabel: () => null },
  )
  if (typeof ev === 'string') throw new Error(ev)
  return ev
}
