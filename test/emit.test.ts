// The built emitter (dist/hooks/emit.cjs) run as the agent's hooks run it: a child process per
// event, payload on stdin, the hook's environment. Run `npm run build` first.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isBuiltin } from 'node:module'
import { build } from 'esbuild'
import t, { type Test } from 'tap'
import { normalizeEvent } from '../lib/agents/claude-code/hook-event.js'
import { foldEvents } from '../lib/record/fold.js'
import type { HookEvent, SessionRecord } from '../lib/record/types.js'
import { writePendingEvent } from '../lib/record/pending-events.js'
import { LOCK_STALE_MS } from '../lib/record/write.js'
import {
  BUILT_EMITTER,
  BUILT_EMITTER_BUNDLE,
  EMITTER,
  baseEnv,
  captureEnv,
  listTree,
  payload,
  pool,
  readCaptures,
  readSession,
  runEmitter,
  tempDir,
  type ChildEnv,
  type EmitResult,
  waitFor,
} from './helpers/emitter.js'
import { hookEvent } from './helpers/hook-event.js'
import { hooksFor } from '../lib/agents/hook-registry.js'

t.setTimeout(600_000) // a bound for hangs; a loaded 2-core machine needs minutes

const INTERACTIVE = { TMUX: '/tmp/tmux-1000/default,800,0', TMUX_PANE: '%7', CLAUDE_CODE_ENTRYPOINT: 'cli' }

interface Home {
  root: string
  env: ChildEnv
  tb: string
  sessions: string
}

const makeHome = (root: string, extra: ChildEnv = {}): Home => {
  fs.mkdirSync(join(root, 'home'), { recursive: true })
  const env = baseEnv(root, extra)
  const tb = env.TRAILBOSS_HOME!
  return { root, env, tb, sessions: join(tb, 'sessions') }
}

const emit = (home: Home, body: unknown, extra: ChildEnv = {}): Promise<EmitResult> =>
  runEmitter(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body), { ...home.env, ...extra })

const quiet = (t: Test, r: EmitResult, what: string): void => {
  t.equal(r.code, 0, `${what}: exit 0`)
  t.equal(r.stdout, '', `${what}: nothing on stdout`)
  t.equal(r.stderr, '', `${what}: nothing on stderr`)
}

const logLines = (home: Home): string[] => {
  try {
    return fs.readFileSync(join(home.tb, 'log'), 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

// --- Replay of real Claude Code captures -------------------------------------------------------

type Snap = SessionRecord | null
type Check = (t: Test, at: (i: number) => Snap, sid: (i: number) => Snap) => void

/**
 * Replays a capture through the emitter one event at a time, as Claude Code fired them, and
 * checks the record of the step's session after the steps listed in `checks`.
 */
const replay = async (t: Test, file: string, checks: Record<number, Check>): Promise<void> => {
  const home = makeHome(tempDir(t))
  const captures = readCaptures(file)
  const snaps: Snap[] = []
  for (const [i, c] of captures.entries()) {
    const r = await emit(home, c.stdin, captureEnv(c))
    quiet(t, r, `${file}:${i} ${String(c.stdin.hook_event_name)}`)
    snaps.push(readSession(home.sessions, String(c.stdin.session_id)).view)
    const check = checks[i]
    if (check) {
      const sessionOf = (j: number): Snap => readSession(home.sessions, String(captures[j]!.stdin.session_id)).view
      check(t, (j) => snaps[j] ?? null, sessionOf)
    }
  }
  t.same(logLines(home), [], 'real payloads log nothing')
  t.notOk(
    fs.readdirSync(home.sessions).some((n) => n.endsWith('.pending') || n.endsWith('.lock')),
    'no pending events or locks left',
  )
}

const is =
  (i: number, state: string, kind: string | null, more?: (t: Test, r: SessionRecord) => void): Check =>
  (t, at) => {
    const r = at(i)
    t.ok(r, `record after step ${i}`)
    if (!r) return
    t.equal(r.state, state, `step ${i}: state ${state}`)
    t.equal(r.kind, kind, `step ${i}: kind ${String(kind)}`)
    more?.(t, r)
  }
const keepsSince =
  (i: number, of: number, state: string, kind: string | null): Check =>
  (t, at) => {
    is(i, state, kind)(t, at, at)
    t.equal(at(i)?.since, at(of)?.since, `step ${i} keeps the since of step ${of}`)
  }
const newSince =
  (i: number, of: number): Check =>
  (t, at) =>
    t.not(at(i)?.since, at(of)?.since, `step ${i} starts a new since`)
const all =
  (...checks: Check[]): Check =>
  (t, at, sid) =>
    checks.forEach((c) => c(t, at, sid))

t.test('replay: interactive, /clear, resume, subagent, AskUserQuestion, /compact, headless', (t) =>
  replay(t, 'events.jsonl', {
    0: is(0, 'idle', null, (t, r) => {
      t.same(r.tmux, { pane: '%0', socket: '/tmp/tmux-1000/default', serverPid: 800 }, 'pane from $TMUX/$TMUX_PANE')
      t.equal(r.headless, false)
      t.equal(r.project, 'work', 'project label from $CLAUDE_PROJECT_DIR')
      t.equal(r.cwd, '/home/dev/probe/work')
      t.equal(r.offset, null, 'a transcript outside our projects folder is never stat-ed')
    }),
    1: is(1, 'working', null),
    2: all(is(2, 'working', null), (t, at) => t.equal(at(2)?.since, at(1)?.since, 'MessageDisplay leaves the state')),
    3: is(3, 'waiting', 'question', (t, r) => {
      t.equal(r.message, 'Done. Should I also update the docs?')
      t.equal(r.event, 'Stop')
      t.equal(r.promptId, '53ef6d48-deba-40d5-8bb9-8361279f57a2', 'the prompt id of the turn')
    }),
    4: keepsSince(4, 3, 'waiting', 'question'),
    5: is(5, 'working', null),
    6: is(6, 'working', null, (t, r) => t.equal(r.lastTool?.useId, 'toolu_mock17960434035012')),
    8: all(
      is(8, 'permission', 'permission', (t, r) => {
        t.equal(r.tool?.name, 'Bash')
        t.same(r.tool?.input, { command: 'touch /home/dev/probe/x', description: 'Create probe file' })
        t.equal(r.tool?.useId, 'toolu_mock17960434035012', 'tool_use_id of the PreToolUse before it')
        t.equal(r.event, 'PermissionRequest')
      }),
      newSince(8, 6),
    ),
    9: all(keepsSince(9, 8, 'permission', 'permission'), (t, at) => t.equal(at(9)?.tool?.useId, 'toolu_mock17960434035012')),
    10: is(10, 'working', null, (t, r) => t.equal(r.tool, null)),
    11: is(11, 'working', null),
    13: is(13, 'waiting', 'question', (t, r) => t.equal(r.message, 'Created the file. Anything else?')),
    14: is(14, 'working', null),
    17: is(17, 'permission', 'permission', (t, r) => t.equal(r.tool?.useId, 'toolu_mock17960434340374')),
    18: is(18, 'ended', null),
    19: (t, at, sid) => {
      is(19, 'idle', null, (t, r) => t.equal(r.tmux?.pane, '%0', 'the new session is in the same pane'))(t, at, sid)
      t.not(at(19)?.sessionId, at(18)?.sessionId, '/clear gives a new session id')
      t.equal(sid(18)?.state, 'ended', 'the old session stays ended')
      t.equal(sid(18)?.tmux?.pane, '%0')
    },
    20: is(20, 'working', null),
    21: is(21, 'waiting', 'question'),
    22: keepsSince(22, 21, 'waiting', 'question'),
    23: is(23, 'ended', null),
    24: is(24, 'idle', null, (t, r) => t.equal(r.event, 'SessionStart', 'resume brings an ended session back')),
    26: is(26, 'waiting', 'question'),
    28: keepsSince(28, 26, 'waiting', 'question'),
    29: is(29, 'working', null),
    30: is(30, 'ended', null),
    31: is(31, 'idle', null),
    34: is(34, 'working', null),
    35: keepsSince(35, 34, 'working', null),
    39: is(39, 'waiting', 'question'),
    42: is(42, 'permission', 'question', (t, r) => {
      t.equal(r.tool?.name, 'AskUserQuestion')
      t.equal(r.tool?.useId, 'toolu_mockask17960436542003')
    }),
    43: keepsSince(43, 42, 'permission', 'question'),
    44: is(44, 'working', null),
    47: is(47, 'waiting', 'question'),
    48: keepsSince(48, 47, 'waiting', 'question'),
    50: keepsSince(50, 47, 'waiting', 'question'),
    51: keepsSince(51, 47, 'waiting', 'question'),
    // After /compact the turn's wait goes on: idle_prompt confirms it, same since (docs/design.md §3.2).
    52: keepsSince(52, 47, 'waiting', 'question'),
    53: is(53, 'ended', null),
    54: is(54, 'idle', null, (t, r) => {
      t.equal(r.headless, true, 'sdk-cli entrypoint is headless')
      t.equal(r.tmux, null)
    }),
    60: is(60, 'waiting', 'question', (t, r) => t.equal(r.headless, true)),
    61: is(61, 'ended', null, (t, r) => t.equal(r.events, 8)),
  }),
)

t.test('replay: scripted end-to-end run', (t) =>
  replay(t, 'e2e-events.jsonl', {
    0: is(0, 'idle', null, (t, r) => t.equal(r.tmux?.serverPid, 11573)),
    1: is(1, 'working', null),
    2: is(2, 'waiting', 'question'),
    3: keepsSince(3, 2, 'waiting', 'question'),
    4: keepsSince(4, 2, 'waiting', 'question'),
    5: is(5, 'working', null),
    8: is(8, 'permission', 'permission', (t, r) => t.equal(r.tool?.useId, 'toolu_mock17960437398802')),
    9: keepsSince(9, 8, 'permission', 'permission'),
    10: is(10, 'working', null),
    13: is(13, 'waiting', 'question'),
    14: is(14, 'ended', null, (t, r) => {
      t.equal(r.events, 15)
      t.equal(r.lastEvent, 'SessionEnd')
    }),
  }),
)

t.test('replay: API errors, headless and interactive', (t) =>
  replay(t, 'events-stopfailure.jsonl', {
    2: is(2, 'working', null, (t, r) => t.equal(r.headless, true)),
    3: is(3, 'ended', null),
    // In -p mode StopFailure arrives after SessionEnd: it updates fields, not the state.
    4: is(4, 'ended', null, (t, r) => {
      t.equal(r.lastEvent, 'StopFailure')
      t.equal(r.events, 5)
      t.equal(r.tmux, null)
    }),
    5: is(5, 'idle', null, (t, r) => t.same(r.tmux, { pane: '%0', socket: '/tmp/tmux-1000/default', serverPid: 14097 })),
    6: is(6, 'working', null),
    7: is(7, 'waiting', 'error', (t, r) => t.equal(r.message, 'API Error: 400 mock: scripted failure')),
    8: keepsSince(8, 7, 'waiting', 'error'),
    9: is(9, 'ended', null),
  }),
)

t.test('a headless run started from a pane claims no pane', async (t) => {
  const home = makeHome(tempDir(t))
  const r = await emit(home, payload('headless1', 'SessionStart', { source: 'startup' }), {
    ...INTERACTIVE,
    CLAUDE_CODE_ENTRYPOINT: 'sdk-cli',
  })
  quiet(t, r, 'sdk-cli')
  const rec = readSession(home.sessions, 'headless1').view
  t.equal(rec?.headless, true)
  t.equal(rec?.tmux, null, 'inherited $TMUX_PANE is not recorded')
})

t.test('transcript size is read only under Claude Code projects folder', async (t) => {
  const home = makeHome(tempDir(t))
  const projects = join(home.env.HOME!, '.claude', 'projects', '-work')
  fs.mkdirSync(projects, { recursive: true })
  const inside = join(projects, 's1.jsonl')
  fs.writeFileSync(inside, 'x'.repeat(1234))
  const outside = join(home.root, 'elsewhere.jsonl')
  fs.writeFileSync(outside, 'y'.repeat(999))
  const sneaky = join(projects, '..', '..', '..', 'elsewhere.jsonl')
  const cases: [string, string, number | null][] = [
    ['inside', inside, 1234],
    ['outside', outside, null],
    ['dot-dot', sneaky, null],
    ['not jsonl', join(projects, 's1.json'), null],
  ]
  for (const [name, path, want] of cases) {
    const id = `tr-${name.replace(/\W/g, '')}`
    quiet(t, await emit(home, payload(id, 'Stop', { transcript_path: path, last_assistant_message: 'ok' }), INTERACTIVE), name)
    t.equal(readSession(home.sessions, id).view?.offset, want, `${name}: offset ${String(want)}`)
  }
  t.equal(fs.readFileSync(outside, 'utf8'), 'y'.repeat(999), 'the outside file is untouched')
})

// --- Bad input ---------------------------------------------------------------------------------

t.test('bad input: exit 0, silent, nothing written but one log line', async (t) => {
  const big = Buffer.alloc(16 * 1024 * 1024 + 10, 0x20)
  big.write('{"session_id":"big","hook_event_name":"PostToolUse","x":"', 0)
  const ok = payload('s-ok', 'Stop')
  const cases: [string, string | Buffer, ChildEnv?][] = [
    ['empty stdin', ''],
    ['non-JSON', 'hello there'],
    ['truncated JSON', '{"session_id":"abc","hook_event_na'],
    ['JSON array', '[1,2,3]'],
    ['JSON number', '42'],
    ['JSON null', 'null'],
    ['JSON string', '"Stop"'],
    ['session_id a number', JSON.stringify({ ...ok, session_id: 12345 })],
    ['hook_event_name an object', JSON.stringify({ ...ok, hook_event_name: { a: 1 } })],
    ['no hook_event_name', JSON.stringify({ session_id: 'abc' })],
    ['over 16 MB', big],
    [
      'invalid UTF-8 in the session id',
      Buffer.concat([Buffer.from('{"session_id":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b","hook_event_name":"Stop"}')]),
    ],
    ['session_id ../../x', JSON.stringify({ ...ok, session_id: '../../x' })],
    ['session_id with a slash', JSON.stringify({ ...ok, session_id: 'a/b' })],
    ['session_id with a dot', JSON.stringify({ ...ok, session_id: 'a.json' })],
    ['session_id ..', JSON.stringify({ ...ok, session_id: '..' })],
    ['session_id empty', JSON.stringify({ ...ok, session_id: '' })],
    ['session_id too long', JSON.stringify({ ...ok, session_id: 'a'.repeat(129) })],
    ['session_id with NUL', JSON.stringify({ ...ok, session_id: 'a\u0000b' })],
    ['session_id with a newline', JSON.stringify({ ...ok, session_id: 'ab\n' })],
    ['session_id absolute path', JSON.stringify({ ...ok, session_id: '/etc/passwd' })],
  ]
  for (const [name, input, extra] of cases) {
    const home = makeHome(tempDir(t), extra)
    const r = await runEmitter(input, home.env)
    quiet(t, r, name)
    const tree = listTree(home.root)
    t.same(
      tree.filter((p) => p !== 'home/' && p !== 'tb/' && p !== 'tb/log'),
      [],
      `${name}: nothing written but the log`,
    )
    // Over the cap with no session id in the environment, it also says why nothing was kept.
    const lines = logLines(home).length
    t.ok(lines >= 1 && lines <= 2, `${name}: logged (${lines} line${lines === 1 ? '' : 's'})`)
  }
})

t.test('a stdin that never closes: the emitter still exits on its own', async (t) => {
  const home = makeHome(tempDir(t))
  const r = await runEmitter('{"session_id":"open1","hook_event_name":"Stop"', { ...home.env, ...INTERACTIVE }, { holdStdin: true })
  // Its own stdin deadline ended it (a hang would end only at the file's timeout, and fail).
  quiet(t, r, 'stdin held open')
  t.equal(r.signal, null, 'it exited on its own')
  t.match(logLines(home).join('\n'), /before its event was read/)
  t.same(listTree(home.root), ['home/', 'tb/', 'tb/log'])
})

t.test('wrong field types are stored as absent, not trusted', async (t) => {
  const home = makeHome(tempDir(t))
  const weird = {
    ...payload('types1', 'Stop'),
    cwd: 7,
    transcript_path: ['x'],
    prompt_id: {},
    last_assistant_message: 12,
    background_tasks: 'many',
    tool_name: 3,
  }
  quiet(t, await emit(home, weird, INTERACTIVE), 'wrong types')
  const rec = readSession(home.sessions, 'types1').view
  t.equal(rec?.state, 'waiting')
  t.equal(rec?.kind, 'done')
  t.equal(rec?.cwd, null)
  t.equal(rec?.transcriptPath, null)
  t.equal(rec?.promptId, null)
  t.equal(rec?.message, null)
  t.equal(rec?.tool, null)
})

t.test('an unknown event updates fields, never the state', async (t) => {
  const home = makeHome(tempDir(t))
  quiet(t, await emit(home, payload('unk1', 'Stop', { last_assistant_message: 'done.' }), INTERACTIVE), 'Stop')
  const before = readSession(home.sessions, 'unk1').view!
  quiet(t, await emit(home, payload('unk1', 'SomeFutureEvent', { cwd: '/srv' }), { ...INTERACTIVE, TMUX_PANE: '%9' }), 'unknown')
  const after = readSession(home.sessions, 'unk1').view!
  t.equal(after.state, 'waiting')
  t.equal(after.kind, 'done')
  t.equal(after.since, before.since)
  t.equal(after.tmux?.pane, '%9', 'the pane heals')
  t.equal(after.cwd, '/srv')
  t.equal(after.lastEvent, 'SomeFutureEvent')
  t.same(logLines(home), [], 'an unknown event is not a problem to log')
})

t.test('payload over 16 MB: drained, logged, only what the environment gives is recorded', async (t) => {
  const home = makeHome(tempDir(t))
  const big = Buffer.alloc(17 * 1024 * 1024, 0x61)
  const r = await runEmitter(big, { ...home.env, ...INTERACTIVE, CLAUDE_CODE_SESSION_ID: 'bigsess' })
  quiet(t, r, 'over the cap')
  const rec = readSession(home.sessions, 'bigsess').view
  t.equal(rec?.lastEvent, 'PayloadTooLarge')
  t.equal(rec?.tmux?.pane, '%7', 'the pane mapping stays fresh')
  t.match(logLines(home).join('\n'), /over 16777216/)
  t.same(
    listTree(home.sessions).filter((p) => !p.startsWith('.tmp')),
    ['bigsess.json'],
  )
})

t.test('a payload just under 16 MB is parsed', async (t) => {
  const home = makeHome(tempDir(t))
  const body = JSON.stringify(
    payload('near', 'PostToolUse', { tool_name: 'Read', tool_input: { file_path: '/x' }, tool_response: 'z'.repeat(15 * 1024 * 1024) }),
  )
  const r = await runEmitter(body, { ...home.env, ...INTERACTIVE })
  quiet(t, r, '15 MB')
  const rec = readSession(home.sessions, 'near').view
  t.equal(rec?.state, 'working')
  t.ok(fs.statSync(join(home.sessions, 'near.json')).size < 64 * 1024, 'the record stays small')
})

t.test('TRAILBOSS_DISABLE=1 does nothing at all', async (t) => {
  const home = makeHome(tempDir(t), { TRAILBOSS_DISABLE: '1' })
  for (const input of [JSON.stringify(payload('dis1', 'Stop')), 'not json', '']) {
    quiet(t, await runEmitter(input, { ...home.env, ...INTERACTIVE }), `disabled: ${input.slice(0, 10)}`)
  }
  t.same(listTree(home.root), ['home/'], 'no folder, no record, no log')
})

t.test('the environment never reaches the log', async (t) => {
  const secret = 'sk-ant-fake-0123456789abcdef'
  const home = makeHome(tempDir(t), { ANTHROPIC_API_KEY: secret, SOME_TOKEN: secret })
  const inputs = ['garbage', '[]', JSON.stringify(payload('../x', 'Stop')), JSON.stringify({ hook_event_name: 'Stop' })]
  for (const input of inputs) quiet(t, await runEmitter(input, { ...home.env, ...INTERACTIVE }), input)
  const big = Buffer.alloc(16 * 1024 * 1024 + 1, 0x61)
  quiet(t, await runEmitter(big, { ...home.env, ...INTERACTIVE }), 'big')
  const log = logLines(home)
  t.ok(log.length >= inputs.length + 1, `every problem logged (${log.length} lines)`)
  t.notMatch(log.join('\n'), secret, 'no secret in the log')
  t.notMatch(log.join('\n'), /ANTHROPIC|TOKEN|TMUX=/, 'no variable names either')
})

// --- Concurrency ----------------------------------------------------------------------------------

/** State-changing events whose change does not depend on the state before them (docs/design.md §3.1). */
const contextFree = (sid: string, i: number): Record<string, unknown> => {
  const prompt = `p-${i}`
  switch (i % 4) {
    case 0:
      return payload(sid, 'UserPromptSubmit', { prompt_id: prompt, prompt: `go ${i}` })
    case 1:
      return payload(sid, 'Stop', { prompt_id: prompt, last_assistant_message: `answer ${i}?` })
    case 2:
      return payload(sid, 'StopFailure', { prompt_id: prompt, error: 'unknown', last_assistant_message: `error ${i}` })
    default:
      return payload(sid, 'Stop', { prompt_id: prompt, last_assistant_message: `done ${i}.` })
  }
}

/** A realistic mix, with tool events, repeats and late events of an ended turn. */
const realistic = (sid: string, i: number): Record<string, unknown> => {
  const prompt = `p-${Math.floor(i / 6)}`
  const tool = { tool_name: 'Bash', tool_input: { command: `echo ${Math.floor(i / 6)}` } }
  switch (i % 6) {
    case 0:
      return payload(sid, 'UserPromptSubmit', { prompt_id: prompt, prompt: 'go' })
    case 1:
      return payload(sid, 'PreToolUse', { prompt_id: prompt, ...tool, tool_use_id: `tu-${i}` })
    case 2:
      return payload(sid, 'PermissionRequest', { prompt_id: prompt, ...tool })
    case 3:
      return payload(sid, 'Notification', {
        prompt_id: prompt,
        notification_type: 'permission_prompt',
        message: 'Claude needs your permission',
      })
    case 4:
      return payload(sid, 'PostToolUse', { prompt_id: prompt, ...tool, tool_use_id: `tu-${i - 3}` })
    default:
      return payload(sid, 'Stop', { prompt_id: prompt, last_assistant_message: i % 12 === 5 ? 'More?' : 'Done.' })
  }
}

const IN_FLIGHT = 24

/**
 * Takes a session's lock as another holder would: the lock folder. Its mtime is set ahead, so
 * it cannot turn stale however slowly a loaded machine runs the emitters meanwhile.
 */
const holdLock = (lock: string): void => {
  fs.mkdirSync(lock)
  const ahead = new Date(Date.now() + 3_600_000)
  fs.utimesSync(lock, ahead, ahead)
}

/** A session started through the emitter, then its lock held (holdLock). */
const startedAndLocked = async (t: Test, sid: string): Promise<{ home: ReturnType<typeof makeHome>; lock: string }> => {
  const home = makeHome(tempDir(t))
  quiet(t, await emit(home, payload(sid, 'SessionStart', { source: 'startup' }), INTERACTIVE), 'start')
  const lock = join(home.sessions, `${sid}.json.lock`)
  holdLock(lock)
  return { home, lock }
}

t.test('a live lock holder: every event is kept as a pending event, folded in stamp order', async (t) => {
  const sid = 'busy-session'
  // Hold the session's lock as a live holder does.
  const { home, lock } = await startedAndLocked(t, sid)
  const N = 36
  const results = await pool(
    Array.from({ length: N }, (_, i) => () => emit(home, realistic(sid, i), INTERACTIVE)),
    IN_FLIGHT,
  )
  results.forEach((r, i) => quiet(t, r, `event ${i}`))
  t.comment(`slowest emitter: ${Math.max(...results.map((r) => r.ms)).toFixed(0)} ms with ${IN_FLIGHT} in flight`)
  const held = readSession(home.sessions, sid)
  t.equal(held.file?.events, 1, 'the record file was not touched while the lock was held')
  t.equal(held.pending.length, N, 'every event is a pending file')
  const events: HookEvent[] = held.pending.map((p) => p.event)
  t.equal(new Set(events.map((e) => e.stamp)).size, N, 'every emitter stamped its own event')
  const expected = foldEvents(held.file, events, hooksFor)!
  t.same(held.view, expected, 'readers see the fold of the pending events in stamp order')
  fs.rmdirSync(lock)
  quiet(t, await emit(home, payload(sid, 'UserPromptSubmit', { prompt_id: 'final' }), INTERACTIVE), 'flush')
  const after = readSession(home.sessions, sid)
  t.equal(after.pending.length, 0, 'the next lock holder folded every pending event')
  t.equal(after.file?.events, N + 2)
  t.same(fs.readdirSync(join(home.sessions, `${sid}.pending`)), [], 'and removed their files')
  t.equal(after.file?.state, 'working')
  t.equal(after.file?.promptId, 'final')
  // The fold before the flush, as the next holder saw it, matches the reader's in-memory view.
  t.equal(after.file?.firstEventAt, expected.firstEventAt)
  t.equal(after.file?.turnEndedPromptId, null)
})

t.test('racing emitters of one session: nothing lost, one valid file, the newest event decides', async (t) => {
  const home = makeHome(tempDir(t))
  const sid = 'race-session'
  const N = 48
  const results = await pool(
    Array.from({ length: N }, (_, i) => () => emit(home, contextFree(sid, i), INTERACTIVE)),
    IN_FLIGHT,
  )
  results.forEach((r, i) => quiet(t, r, `event ${i}`))
  const s = readSession(home.sessions, sid)
  t.equal(s.applied, N, `all ${N} events applied (file ${s.file?.events}, pending ${s.pending.length})`)
  const rec = s.view!
  // Each of these events sets the state whatever came before, so the stamp-order fold ends in
  // the newest event's state: the state must come from the newest stamp, whatever the lock order.
  t.equal(rec.stateStamp, rec.lastEventAt, 'the state is the newest event’s')
  t.equal(rec.event, rec.lastEvent)
  const winner = [...Array(N).keys()].map((i) => contextFree(sid, i)).find((p) => p.prompt_id === rec.promptId)
  t.ok(winner, `the state names one of the events sent (${rec.promptId})`)
  if (winner) {
    const single = foldEvents(null, [normalizeForTest(winner, rec.stateStamp)], hooksFor)!
    t.equal(rec.state, single.state)
    t.equal(rec.kind, single.kind)
    t.equal(rec.message, single.message)
  }
  const names = fs.readdirSync(home.sessions).filter((n) => n !== '.tmp')
  t.ok(names.includes(`${sid}.json`), 'one record file')
  t.same(
    names.filter((n) => n !== `${sid}.json` && n !== `${sid}.pending`),
    [],
    `nothing else, no lock left: ${names.join(' ')}`,
  )
  t.same(fs.readdirSync(join(home.sessions, '.tmp')), [], 'no temp file left')
})

/** A payload as the emitter would normalize it, for the expected fold. */
const normalizeForTest = (p: Record<string, unknown>, stamp: number): HookEvent =>
  hookEvent({
    stamp,
    name: String(p.hook_event_name),
    sessionId: String(p.session_id),
    promptId: typeof p.prompt_id === 'string' ? p.prompt_id : null,
    cwd: null,
    project: null,
    message: typeof p.last_assistant_message === 'string' ? p.last_assistant_message : null,
  })

t.test('two sessions at once never touch each other’s files', async (t) => {
  const home = makeHome(tempDir(t))
  const N = 24
  const tasks = Array.from(
    { length: N * 2 },
    (_, i) => () =>
      emit(home, realistic(i % 2 ? 'sess-b' : 'sess-a', Math.floor(i / 2)), { ...INTERACTIVE, TMUX_PANE: i % 2 ? '%2' : '%1' }),
  )
  const results = await pool(tasks, IN_FLIGHT)
  results.forEach((r, i) => quiet(t, r, `event ${i}`))
  for (const [sid, pane] of [
    ['sess-a', '%1'],
    ['sess-b', '%2'],
  ] as const) {
    const s = readSession(home.sessions, sid)
    t.equal(s.applied, N, `${sid}: all events`)
    t.equal(s.view?.tmux?.pane, pane, `${sid}: its own pane only`)
    for (const p of s.pending) t.equal(p.event.sessionId, sid, `${sid}: only its own pending events`)
  }
  const names = fs.readdirSync(home.sessions).filter((n) => n !== '.tmp')
  t.ok(
    names.every((n) => n.startsWith('sess-a.') || n.startsWith('sess-b.')),
    `only the two sessions’ files: ${names.join(' ')}`,
  )
})

t.test('a lock left by a dead emitter delays nothing and loses nothing', async (t) => {
  const sid = 'dead-holder'
  // What a SIGKILLed holder leaves: its lock folder, and a temp file it never renamed.
  const { home, lock } = await startedAndLocked(t, sid)
  const tmp = join(home.sessions, '.tmp', `${sid}.99999.deadbeef.tmp`)
  fs.writeFileSync(tmp, '{"half":')
  const old = new Date(Date.now() - 60_000)
  fs.utimesSync(tmp, old, old)
  const sent = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']
  for (const [i, name] of sent.entries()) {
    // The holder died just now: its lock is not stale yet (the mtime is ahead, see holdLock).
    const r = await emit(
      home,
      payload(sid, name, {
        prompt_id: 'p1',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 'tu1',
        last_assistant_message: 'Done?',
      }),
      INTERACTIVE,
    )
    quiet(t, r, name)
    // It gave up on the lock after its budget, not at its deadline, and did not wait it out.
    t.match(
      logLines(home).at(-1),
      new RegExp(`lock of ${sid} busy; saved ${name} as a pending event`),
      `${name}: saved after the lock budget`,
    )
    const s = readSession(home.sessions, sid)
    t.equal(s.file?.events, 1, `${name}: the file waits for a lock holder`)
    t.equal(s.applied, i + 2, `${name}: visible to readers at once`)
  }
  t.equal(readSession(home.sessions, sid).view?.state, 'waiting', 'readers fold the pending events')
  // Once the lock is older than the stale time, the next emitter takes it over and folds.
  const stale = new Date(Date.now() - LOCK_STALE_MS - 1000)
  fs.utimesSync(lock, stale, stale)
  quiet(
    t,
    await emit(home, payload(sid, 'Notification', { prompt_id: 'p1', notification_type: 'idle_prompt' }), INTERACTIVE),
    'after stale',
  )
  const s = readSession(home.sessions, sid)
  t.equal(s.pending.length, 0, 'pending events folded')
  t.equal(s.file?.events, sent.length + 2, 'none lost')
  t.equal(s.file?.state, 'waiting')
  t.equal(s.file?.kind, 'question')
  t.notOk(fs.existsSync(lock), 'the stale lock is gone')
  t.notOk(fs.existsSync(tmp), 'the leftover temp file is removed')
  t.match(logLines(home).join('\n'), /removed leftover temp file/, 'and the removal is logged')
})

/** Pending events written directly, to give a lock holder something to chew on. */
const seedPending = (home: Home, sid: string, count: number): void => {
  fs.mkdirSync(join(home.sessions, `${sid}.pending`), { recursive: true, mode: 0o700 })
  for (let i = 0; i < count; i++) {
    const ev = normalizeEvent(payload(sid, 'PostToolUse', { tool_name: 'Read', tool_input: { i } }), {
      env: {},
      stamp: Date.now() - 10_000 + i / 1000,
      host: 'h',
      offset: null,
      project: null,
    })
    if (typeof ev === 'string') throw new Error(ev)
    writePendingEvent(home.sessions, ev)
  }
}

t.test('an emitter SIGKILLed while holding the lock blocks nothing and loses nothing', async (t) => {
  const home = makeHome(tempDir(t))
  const sid = 'killed-holder'
  quiet(t, await emit(home, payload(sid, 'SessionStart', { source: 'startup' }), INTERACTIVE), 'start')
  const lock = join(home.sessions, `${sid}.json.lock`)
  // Many pending events make the holder's turn long enough to be killed inside it.
  const SEEDED = 3000
  seedPending(home, sid, SEEDED)
  let killedWithLock = false
  let tries = 0
  for (; tries < 10 && !killedWithLock; tries++) {
    let pid = 0
    const done = runEmitter(
      JSON.stringify(payload(sid, 'PreToolUse', { tool_name: 'Bash', tool_input: {}, tool_use_id: `k${tries}` })),
      { ...home.env, ...INTERACTIVE },
      { onSpawn: (p) => (pid = p) },
    )
    const seen = await waitFor(() => fs.existsSync(lock), 3000, 1)
    if (seen) process.kill(pid, 'SIGKILL')
    const r = await done
    killedWithLock = r.signal === 'SIGKILL' && fs.existsSync(lock)
    if (!killedWithLock && readSession(home.sessions, sid).pending.length === 0) seedPending(home, sid, SEEDED)
  }
  t.ok(killedWithLock, `an emitter died holding the lock (after ${tries} tries)`)
  const before = readSession(home.sessions, sid)
  t.doesNotThrow(() => JSON.parse(fs.readFileSync(join(home.sessions, `${sid}.json`), 'utf8')), 'the record file still parses')
  const r = await emit(home, payload(sid, 'Stop', { last_assistant_message: 'after the kill' }), INTERACTIVE)
  quiet(t, r, 'next event')
  t.equal(r.signal, null, 'the next event exited on its own')
  const s = readSession(home.sessions, sid)
  t.equal(s.applied, before.applied + 1, 'the next event is visible')
  t.equal(s.view?.message, 'after the kill')
  // Once the lock is older than the stale time (aged here, not waited for), the next holder
  // takes it over and folds everything.
  const stale = new Date(Date.now() - LOCK_STALE_MS - 1000)
  fs.utimesSync(lock, stale, stale)
  quiet(t, await emit(home, payload(sid, 'UserPromptSubmit', { prompt_id: 'p2' }), INTERACTIVE), 'after stale')
  const end = readSession(home.sessions, sid)
  t.equal(end.pending.length, 0, 'all pending events folded')
  t.equal(end.file?.events, s.applied + 1, 'none lost')
  t.equal(end.file?.state, 'working')
  t.notOk(fs.existsSync(lock), 'the dead lock is gone')
})

// --- Permissions ----------------------------------------------------------------------------------

t.test('folders 0700, files 0600, a looser folder is tightened', async (t) => {
  const home = makeHome(tempDir(t))
  fs.mkdirSync(home.sessions, { recursive: true, mode: 0o755 })
  fs.chmodSync(home.tb, 0o755)
  fs.chmodSync(home.sessions, 0o777)
  const lock = join(home.sessions, 'perm1.json.lock')
  quiet(t, await emit(home, payload('perm1', 'SessionStart', { source: 'startup' }), INTERACTIVE), 'first')
  // A pending event too, by holding the lock.
  holdLock(lock)
  quiet(t, await emit(home, payload('perm1', 'UserPromptSubmit'), INTERACTIVE), 'pending')
  fs.rmdirSync(lock)
  quiet(t, await runEmitter('garbage', home.env), 'a log line')
  const mode = (p: string): string => (fs.statSync(p).mode & 0o777).toString(8)
  t.equal(mode(home.tb), '700', 'TRAILBOSS_HOME tightened')
  t.equal(mode(home.sessions), '700', 'sessions tightened')
  t.equal(mode(join(home.sessions, '.tmp')), '700')
  t.equal(mode(join(home.sessions, 'perm1.pending')), '700')
  t.equal(mode(join(home.sessions, 'perm1.json')), '600')
  for (const f of fs.readdirSync(join(home.sessions, 'perm1.pending'))) t.equal(mode(join(home.sessions, 'perm1.pending', f)), '600', f)
  t.equal(mode(join(home.tb, 'log')), '600')
  t.match(logLines(home).join('\n'), /tightened .*sessions from 777 to 700/, 'the tightening is logged')
})

t.test('a fresh TRAILBOSS_HOME is created private, under a umask of 0', async (t) => {
  const root = tempDir(t)
  const home = makeHome(root, { TRAILBOSS_HOME: join(root, 'a', 'b', 'tb') })
  home.tb = home.env.TRAILBOSS_HOME!
  home.sessions = join(home.tb, 'sessions')
  // The emitter inherits the agent's umask; a permissive one must not make our files readable.
  // What proper-lockfile creates (its lock folder, with the default mode) lives only during
  // the run, so the umask the emitter runs under is read as it exits.
  const seen = join(root, 'umask-at-exit')
  const script = `process.umask(0); process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(seen)}, process.umask().toString(8))); require(${JSON.stringify(EMITTER)})`
  const out = execFileSync(process.execPath, ['-e', script], {
    input: JSON.stringify(payload('umask1', 'Stop')),
    env: home.env as NodeJS.ProcessEnv,
  })
  t.equal(out.toString(), '')
  const mode = (p: string): string => (fs.statSync(p).mode & 0o777).toString(8)
  t.equal(mode(home.tb), '700')
  t.equal(mode(home.sessions), '700')
  t.equal(mode(join(home.sessions, 'umask1.json')), '600')
  t.equal(fs.readFileSync(seen, 'utf8'), '77', 'the lock folder and anything else it made: no access for others')
})

// --- Import graph ---------------------------------------------------------------------------------

const HEAVY = ['yargs', 'zod', 'chokidar', 'fast-glob', 'diff']

/** Texts each package leaves in any bundle of it, minified or not (string literals, property names). */
const MARKERS: Record<string, string> = {
  yargs: 'Not enough non-option arguments',
  zod: 'ZodError',
  chokidar: 'awaitWriteFinish',
  'fast-glob': 'followSymbolicLinks',
  diff: 'No newline at end of file',
  'proper-lockfile': 'Lock file is already being held',
}

t.test('the built emitter bundles nothing heavy', async (t) => {
  const text = fs.readFileSync(BUILT_EMITTER_BUNDLE, 'utf8')
  t.ok(text.includes(MARKERS['proper-lockfile']!), 'proper-lockfile is bundled (the scan sees packages)')
  for (const pkg of HEAVY) t.notOk(text.includes(MARKERS[pkg]!), `${pkg} is not in the bundle`)
  const requires = [...text.matchAll(/\brequire\(["']([^"']+)["']\)/g)].map((m) => m[1]!)
  t.ok(requires.length > 0, 'the scan sees require calls')
  t.same(
    requires.filter((m) => !isBuiltin(m)),
    [],
    'it requires nothing but node builtins at run time',
  )
  t.notOk(
    requires.some((m) => m === 'assert' || m === 'node:assert'),
    'not node:assert (signal-exit gets hooks/assert-equal.ts)',
  )
  const loader = fs.readFileSync(BUILT_EMITTER, 'utf8')
  const loaderRequires = [...loader.matchAll(/\brequire\(["']([^"']+)["']\)/g)].map((m) => m[1]!)
  t.ok(loaderRequires.includes('node:vm'), 'the loader compiles the bundle itself')
  t.same(
    loaderRequires.filter((m) => !isBuiltin(m)),
    [],
    'its loader requires nothing but node builtins',
  )
})

t.test('the source import graph of hooks/emit.ts reaches nothing heavy', async (t) => {
  const entry = fileURLToPath(new URL('../hooks/emit.ts', import.meta.url))
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const inputs = Object.keys(result.metafile.inputs)
  t.ok(
    inputs.some((p) => p.includes('lib/record/write.ts')),
    'the graph was walked',
  )
  for (const pkg of HEAVY) {
    t.notOk(
      inputs.some((p) => p.includes(`node_modules/${pkg}/`)),
      `${pkg} is not reached`,
    )
  }
  const ours = inputs.filter((p) => !p.includes('node_modules/')).sort()
  t.comment(`emitter graph: ${ours.join(' ')}`)
  for (const heavy of ['lib/record/schema.ts', 'lib/record/read.ts', 'lib/cli/main.ts', 'lib/queue/derive.ts', 'lib/agents/index.ts'])
    t.notOk(ours.includes(heavy), `${heavy} (readers, zod, the CLI's agent adapters) is not reached`)
  t.ok(
    ours.every((p) => p.startsWith('lib/') || p === 'hooks/emit.ts'),
    'only library modules of ours',
  )
})
