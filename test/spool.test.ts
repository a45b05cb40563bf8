import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { readSpooledEvents, spooledAgentProcess, spoolToEvent } from '../lib/record/spool-events.js'
import { BUILT_EMITTER } from './helpers/emitter.js'
import { waitFor } from './helpers/wait-for.js'
import { readProcStat, SHELLS } from '../lib/proc/agent-process.js'
import {
  claimSpoolFile,
  describeLost,
  isIncomplete,
  isLostSpoolFile,
  parseSpoolAgent,
  spoolAgesOf,
  listSpool,
  nsToMs,
  parseSpool,
  readSpoolFile,
  type SpoolEntry,
  type SpoolFile,
  SPOOL_LOST_MS,
  SPOOL_STALE_CLAIM_MS,
  sortSpool,
  spoolDir,
  spoolEnv,
} from '../lib/record/spool.js'
import { hooksFor } from '../lib/agents/hook-registry.js'
import { sessionsDir } from '../lib/paths.js'

// The shipped script: the build writes each agent's variables into it (lib/agents/spool-env.ts).
const SPOOL_SH = new URL('../dist/hooks/spool.sh', import.meta.url).pathname

/** Detached folds still running for a home under `dir` (they may be slow to start on a loaded machine). */
const foldsAlive = (dir: string): boolean =>
  fs.readdirSync('/proc').some((pid) => {
    try {
      return (
        /^\d+$/.test(pid) &&
        fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--fold-spool') &&
        fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`TRAILBOSS_HOME=${dir}/`)
      )
    } catch {
      return false
    }
  })

const scratch = (t: Test): string => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'tb-spool-'))
  // A detached fold may still be running, or letting go of its lock.
  t.teardown(async () => {
    await waitFor(() => !foldsAlive(dir), 'the detached folds to end', 30_000)
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20 })
  })
  return dir
}

/** A spool file read back whole, or the test fails with why not. */
const entryOf = (t: Test, path: string): SpoolEntry | null => {
  const got = readSpoolFile(path)
  if (typeof got === 'string' || isIncomplete(got)) {
    t.fail(typeof got === 'string' ? got : got.incomplete)
    return null
  }
  return got
}

const runSpool = (
  home: string,
  input: string,
  env: Record<string, string> = {},
  args = ['codex'],
): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync('/bin/sh', [SPOOL_SH, ...args], {
    input,
    env: { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(home, 'tb'), ...env },
    encoding: 'utf8',
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** What a reader folds of a home's spool, and the lines it says of the files it leaves. */
const readAsReader = (tb: string, env: Record<string, string | undefined>): { size: number; said: string[] } => {
  const said: string[] = []
  const size = readSpooledEvents(
    join(tb, 'sessions'),
    env,
    () => 'h',
    hooksFor,
    (l) => said.push(l),
  ).size
  return { size, said }
}

t.test('parseSpool reads what spool.sh writes', async (t) => {
  t.same(
    parseSpool('trailboss-spool 1\nagent codex\nenv TMUX=/tmp/s,1,0\nenv TMUX_PANE=%3\n\n{"a":1}\n', 1796123441429.25),
    {
      agent: 'codex',
      stamp: 1796123441429.25,
      env: { TMUX: '/tmp/s,1,0', TMUX_PANE: '%3' },
      ppid: null,
      procs: [],
      payload: { a: 1 },
    },
    'no stamp line: the mtime is the stamp',
  )
  t.match(
    parseSpool('trailboss-spool 1\nagent codex\nstamp 1796123441429738489\n\n{}', 5),
    { stamp: 1796123441429.7385 },
    'an older file’s stamp line',
  )
  t.equal(parseSpool('nope\n\n{}', 1), 'not a spool file')
  t.equal(parseSpool('nope', 1), 'not a spool file')
  t.equal(parseSpool('trailboss-spool 1\nstamp 1\n\n{}', 1), 'no agent')
  t.equal(parseSpool('trailboss-spool 1\nagent Codex!\n\n{}', 1), 'no agent', 'an agent id is letters, digits and -')
  t.equal(parseSpool('trailboss-spool 1\nagent codex\nstamp x\n\n{}', 1), 'no stamp')
  const other = parseSpool('trailboss-spool 1\nagent codex\nenv PATH=/evil\nenv NODE_OPTIONS=--require=x\nenv bad-name=x\n\n{}', 1)
  if (typeof other !== 'object' || !('env' in other)) return t.fail('a spool entry')
  t.same(other.env, { PATH: '/evil', NODE_OPTIONS: '--require=x' }, 'variables as written, if their names may be one')
  t.same(
    spoolEnv({ PATH: '/bin' }, other, ['CODEX_HOME']),
    { PATH: '/bin' },
    "but only the pane's and the agent's are taken from a spool file",
  )
  t.equal(nsToMs('1796123441429738489'), 1796123441429.7385)
  const procs = parseSpool(`trailboss-spool 1\nagent codex\nppid 41\nproc a\nproc b\nproc c\nproc d\n\n{}`, 1)
  t.match(procs, { ppid: 41, procs: ['a', 'b', 'c'] }, 'the parent and at most three proc lines')
  t.match(parseSpool('trailboss-spool 1\nagent codex\nppid 0x1\n\n{}', 1), { ppid: null })
  // What a reader sees of a file spool.sh is still writing.
  for (const text of [
    '',
    'trailboss-sp',
    'trailboss-spool 1\nagent codex\n{}',
    'trailboss-spool 1\nagent codex\n\n',
    'trailboss-spool 1\nagent codex\n\n{"session_id":"s","hook_event_name":"Sto',
  ]) {
    t.same(
      parseSpool(text, 7),
      {
        incomplete: text.includes('\n\n')
          ? `payload ends before its JSON does (${text.length - text.indexOf('\n\n') - 2} bytes)`
          : 'no header yet',
        mtimeMs: 7,
      },
      `incomplete: ${JSON.stringify(text)}`,
    )
  }
})

t.test('parseSpool tells a payload that is not JSON from one cut short', async (t) => {
  const head = 'trailboss-spool 1\nagent codex\n\n'
  // Each a prefix of some JSON: a file still being written, or its hook killed half way.
  for (const body of [
    '',
    '{',
    '{"a"',
    '{"a":',
    '{"a":-',
    '{"a":1.',
    '{"a":1e',
    '{"a":tr',
    '{"a":"é',
    '{"a":"\\u12',
    '{"a":1',
    '{"a":1 ',
    '{"a":[1,',
  ]) {
    t.same(
      parseSpool(head + body, 7),
      { incomplete: `payload ends before its JSON does (${body.length} bytes)`, mtimeMs: 7 },
      `cut short: ${JSON.stringify(body)}`,
    )
  }
  // Each holds a byte no JSON may hold there: no further write makes it an event.
  for (const body of [
    'hello',
    '{"a":x',
    '{"a":1}}',
    '{"a":1}x',
    '{"a":"a\nb"}',
    '[1 2]',
    '{"a":1,}',
    '\u00ff',
    'x at position 999',
    '{"a":"\\x"}',
  ]) {
    t.same(
      parseSpool(head + body, 7),
      { incomplete: `payload is not JSON (${body.length} bytes)`, mtimeMs: 7, notJson: true },
      `not JSON: ${JSON.stringify(body)}`,
    )
  }
  // No cut of a JSON document, at any byte (a UTF-8 sequence cut too), is taken for not JSON.
  const doc = Buffer.from(
    ' {"session_id":"s","a":true,"b":false,"c":null,"d":-1.5e+10,"e":"x\\u00e9\\n\\"é😀","f":[1,{"g":[]}],"h":1E-3, "i" : 0 } ',
  )
  const misread = Array.from({ length: doc.length }, (_, i) => i).filter((i) => {
    const got = parseSpool(head + doc.subarray(0, i).toString('utf8'), 7)
    return isIncomplete(got) ? got.notJson === true : typeof got === 'string'
  })
  t.same(misread, [], 'every cut of a document is one still being written (or, once its last brace is in, an event)')
  t.ok(isIncomplete(parseSpool(head + doc.toString('utf8'), 7)) === false, 'and the whole document an event')
  t.equal(isLostSpoolFile({ incomplete: 'payload is not JSON (5 bytes)', mtimeMs: 7, notJson: true }, 7), true, 'not JSON: lost at once')
  t.equal(
    isLostSpoolFile({ incomplete: 'payload ends before its JSON does (5 bytes)', mtimeMs: 7 }, 7 + SPOOL_LOST_MS - 1),
    false,
    'cut short: waited for',
  )
  t.equal(
    describeLost({ incomplete: 'payload is not JSON (5 bytes)', mtimeMs: 7, notJson: true }, 60_007),
    'its payload is not JSON (5 bytes)',
  )
  t.equal(
    describeLost({ incomplete: 'payload ends before its JSON does (5 bytes)', mtimeMs: 7 }, 31_007),
    'incomplete for 31 s: its hook stopped half way (payload ends before its JSON does (5 bytes))',
  )
})

t.test('sortSpool: by mtime, then the names’ stamps, then pids across a wrap', async (t) => {
  const f = (name: string, mtimeMs: number): SpoolFile => ({
    name,
    base: name.replace(/\.\d+\.claim$/, ''),
    claimed: name.endsWith('.claim'),
    mtimeMs,
  })
  const names = (files: SpoolFile[]): string[] => sortSpool(files).map((x) => x.name)
  t.same(names([f('9-1.ev', 30), f('1-2.ev', 20), f('5-3.ev.77.claim', 10)]), ['5-3.ev.77.claim', '1-2.ev', '9-1.ev'], 'mtime first')
  t.same(names([f('12-5.ev', 10), f('11-9.ev', 10)]), ['11-9.ev', '12-5.ev'], 'one mtime: the stamp')
  t.same(names([f('11-900.ev', 10), f('11-90.ev', 10)]), ['11-90.ev', '11-900.ev'], 'one stamp: the pid, as a number')
  t.same(
    names([f('11-310.ev', 10), f('11-32760.ev', 10), f('11-305.ev', 10), f('11-32700.ev', 10)]),
    ['11-32700.ev', '11-32760.ev', '11-305.ev', '11-310.ev'],
    'pids past the wrap are the newer',
  )
  t.same(names([f('11-310.ev', 10), f('12-32760.ev', 10)]), ['11-310.ev', '12-32760.ev'], 'a wrap only within one stamp')
})

const stat = (pid: number, comm: string, ppid: number, start: number): string =>
  `${pid} (${comm}) S ${ppid} ${pid} 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ${start} 0 0`

t.test('spooledAgentProcess: the agent past the shells the hook ran in, as the hook saw them', async (t) => {
  t.same(
    spooledAgentProcess({ ppid: 30, procs: [stat(30, 'codex', 20, 900), stat(20, 'bash', 10, 800)] }),
    { pid: 30, startTicks: 900 },
    'the parent itself',
  )
  t.same(
    spooledAgentProcess({ ppid: 31, procs: [stat(31, 'sh', 30, 950), stat(30, 'node (x) y', 20, 900), stat(20, 'bash', 10, 800)] }),
    { pid: 30, startTicks: 900 },
    'past a shell; a name with spaces and parentheses',
  )
  t.same(spooledAgentProcess({ ppid: 31, procs: [] }), { pid: 31, startTicks: null }, 'no /proc: the pid alone')
  t.equal(spooledAgentProcess({ ppid: null, procs: [] }), null, 'an older spool file names no process')
})

t.test('spoolEnv drops the fold’s own session variables and adds the hook’s: the pane’s and the agent’s', async (t) => {
  const entry = {
    agent: 'codex',
    stamp: 1,
    env: { TMUX_PANE: '%9', CODEX_HOME: '/hook', GEMINI_CLI_HOME: '/g' },
    ppid: null,
    procs: [],
    payload: '{}',
  }
  t.same(spoolEnv({ HOME: '/h', TMUX: '/other,1,0', TMUX_PANE: '%1', CODEX_HOME: '/fold' }, entry, ['CODEX_HOME']), {
    HOME: '/h',
    TMUX_PANE: '%9',
    CODEX_HOME: '/hook',
  })
  t.same(
    spoolEnv({ CODEX_HOME: '/fold' }, { ...entry, env: {} }, ['CODEX_HOME']),
    {},
    'the fold’s own is dropped even when the hook had none',
  )
  t.same(spoolEnv({}, entry, []), { TMUX_PANE: '%9' }, 'another agent’s variable in the file is not taken')
})

t.test('spool.sh stores stdin with the agent and pane, privately, and exits 0', async (t) => {
  const home = scratch(t)
  const payload = JSON.stringify({ session_id: 's1', hook_event_name: 'Stop', text: 'a\nb' })
  const r = runSpool(home, payload, { TMUX: '/tmp/tmux-1/default,42,0', TMUX_PANE: '%7' })
  t.same(r, { status: 0, stdout: '', stderr: '' }, 'silent, exit 0')
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  const files = listSpool(sdir)
  t.equal(files.length, 1)
  t.match(files[0]!.name, /^\d+-\d+\.ev$/)
  t.equal(fs.statSync(sdir).mode & 0o777, 0o700, 'folder 0700')
  t.equal(fs.statSync(join(sdir, files[0]!.name)).mode & 0o777, 0o600, 'file 0600')
  const got = entryOf(t, join(sdir, files[0]!.name))
  if (!got) return
  t.equal(got.agent, 'codex')
  t.same(got.env, { TMUX: '/tmp/tmux-1/default,42,0', TMUX_PANE: '%7' })
  t.ok(fs.readFileSync(join(sdir, files[0]!.name), 'utf8').endsWith(`\n\n${payload}`), 'the payload byte for byte')
  t.same(got.payload, JSON.parse(payload))
  t.ok(Math.abs(got.stamp - Date.now()) < 60_000, 'stamped now')
  t.same(
    fs.readdirSync(sdir).filter((n) => n.endsWith('.tmp')),
    [],
    'no temp file left',
  )
  t.equal(got.ppid, process.pid, 'its parent')
  const ev = spoolToEvent(got, {}, 'h', hooksFor)
  if (typeof ev === 'string') return t.fail(ev)
  t.same(ev.agentProcess, { pid: process.pid, startTicks: readProcStat(process.pid)!.startTicks }, 'the agent process: pid and start time')
})

t.test('spool.sh walks past the shells agent-process.ts skips, and no others', async (t) => {
  const listed = /case \$\{comm%\\\)\*\} in ([^)]*)\)/.exec(fs.readFileSync(SPOOL_SH, 'utf8'))?.[1]
  t.same(
    listed
      ?.split('|')
      .map((w) => w.trim())
      .sort(),
    [...SHELLS].sort(),
  )
})

t.test('spool.sh run by a shell: the agent process is the shell’s parent', async (t) => {
  const home = scratch(t)
  const payload = JSON.stringify({
    session_id: 's2',
    hook_event_name: 'Stop',
    cwd: '/tmp',
    transcript_path: '/nowhere/r.jsonl',
    turn_id: 't',
  })
  // Two commands, so the shell cannot exec the last one in its own place.
  const r = spawnSync('/bin/sh', ['-c', `/bin/sh ${SPOOL_SH} codex; exit 0`], {
    input: payload,
    env: {
      PATH: process.env.PATH,
      TMUX_TMPDIR: process.env.TMUX_TMPDIR,
      HOME: home,
      TRAILBOSS_HOME: join(home, 'tb'),
      TMUX: '/tmp/tmux-1/default,42,0',
      TMUX_PANE: '%7',
    },
    encoding: 'utf8',
  })
  t.equal(r.status, 0)
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  const got = entryOf(t, join(sdir, listSpool(sdir)[0]!.name))
  if (!got) return
  t.not(got.ppid, process.pid, 'its parent is the shell')
  const ev = spoolToEvent(got, {}, 'h', hooksFor)
  if (typeof ev === 'string') return t.fail(ev)
  t.same(ev.agentProcess, { pid: process.pid, startTicks: readProcStat(process.pid)!.startTicks }, 'past the shell, which is gone by now')
})

t.test('spool.sh refuses without a trace, and still exits 0', async (t) => {
  const home = scratch(t)
  t.equal(runSpool(home, '{}', {}, ['Bad Agent']).status, 0, 'a bad agent id')
  t.notOk(fs.existsSync(join(home, 'tb')), 'nothing made for it')
  t.equal(runSpool(home, '{}', { TRAILBOSS_DISABLE: '1' }).status, 0, 'disabled')
  t.notOk(fs.existsSync(join(home, 'tb')))
  t.equal(runSpool(home, '{}', { TRAILBOSS_HOME: 'relative/tb' }).status, 0, 'a relative home')
  // A planted link where the spool goes: never followed.
  const elsewhere = join(home, 'elsewhere')
  fs.mkdirSync(elsewhere)
  fs.mkdirSync(join(home, 'tb', 'sessions'), { recursive: true, mode: 0o700 })
  fs.symlinkSync(elsewhere, join(home, 'tb', 'sessions', '.spool'))
  t.equal(runSpool(home, '{"x":1}').status, 0, 'a linked spool folder')
  t.same(fs.readdirSync(elsewhere), [], 'nothing written through the link')
  const big = 'x'.repeat(3 * 1024 * 1024)
  t.equal(runSpool(home, big).status, 0, 'a big stdin is drained')
})

t.test('a spooled file is claimed by one fold only; a stale claim can be taken over', async (t) => {
  const home = scratch(t)
  runSpool(home, '{}')
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  const [file] = listSpool(sdir)
  const now = Date.now()
  const claimed = claimSpoolFile(sdir, file!, now, 111)
  t.ok(claimed, 'the first claim wins')
  t.equal(claimSpoolFile(sdir, file!, now, 222), null, 'the same name again: gone')
  const [again] = listSpool(sdir)
  t.ok(again?.claimed, 'listed as claimed')
  t.equal(claimSpoolFile(sdir, again!, now, 222), null, 'a fresh claim is respected')
  const taken = claimSpoolFile(sdir, again!, now + SPOOL_STALE_CLAIM_MS + 1000, 222)
  t.match(taken, /\.ev\.222\.claim$/, 'a stale one is taken over')
})

t.test('listSpool lists spooled and claimed files in order, and ignores foreign names', async (t) => {
  const dir = scratch(t)
  const names = ['20-1.ev', '3-9.ev', '100-2.ev.55.claim', 'x.ev', '.5-1.tmp', '7-1.ev.bad', '8-1.ev.lost']
  for (const [i, n] of names.entries()) {
    fs.writeFileSync(join(dir, n), '')
    fs.utimesSync(join(dir, n), 1000 + i, 1000 + i)
  }
  t.same(
    listSpool(dir).map((f) => [f.name, f.mtimeMs]),
    [
      ['20-1.ev', 1_000_000],
      ['3-9.ev', 1_001_000],
      ['100-2.ev.55.claim', 1_002_000],
    ],
  )
})

/** A fold holds the spool's lock (hooks/emit.ts). */
const foldRunning = (home: string): boolean => fs.existsSync(join(spoolDir(join(home, 'tb', 'sessions')), '.fold.lock'))

const DIST_SPOOL = SPOOL_SH

const codexPayload = (sid: string, name: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    session_id: sid,
    transcript_path: '/nowhere/r.jsonl',
    cwd: '/tmp',
    hook_event_name: name,
    turn_id: 't1',
    model: 'm',
    permission_mode: 'default',
    ...extra,
  })

t.test('the detached fold writes every spooled event into its record, and empties the spool', async (t) => {
  const home = scratch(t)
  const env = { TMUX: '/tmp/tmux-1/default,42,0', TMUX_PANE: '%7' }
  const sid = '01a23146-edc2-7570-bd3b-db284ca128fe'
  const events = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest']
  for (const name of events) {
    const extra =
      name.endsWith('ToolUse') || name === 'PermissionRequest'
        ? { tool_name: 'Bash', tool_input: { command: 'touch /x' }, tool_use_id: name === 'PreToolUse' ? 'call_1' : undefined }
        : {}
    t.equal(
      spawnSync('/bin/sh', [DIST_SPOOL, 'codex', process.execPath], {
        input: codexPayload(sid, name, extra),
        env: { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(home, 'tb'), ...env },
      }).status,
      0,
    )
  }
  const file = join(home, 'tb', 'sessions', `${sid}.json`)
  const deadline = Date.now() + 30_000
  let rec: { events?: number; state?: string; kind?: string; agent?: string; tmux?: unknown; tool?: { useId?: string } } = {}
  while (Date.now() < deadline) {
    try {
      rec = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof rec
      if (rec.events === events.length && listSpool(spoolDir(join(home, 'tb', 'sessions'))).length === 0 && !foldRunning(home)) break
    } catch {
      // Not written yet.
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  t.match(rec, {
    events: events.length,
    agent: 'codex',
    state: 'permission',
    kind: 'permission',
    tmux: { pane: '%7', socket: '/tmp/tmux-1/default', serverPid: 42 },
    tool: { useId: 'call_1' },
  })
  t.same(listSpool(spoolDir(join(home, 'tb', 'sessions'))), [], 'the spool is empty')
})

t.test('folds started together write each session’s events in the order they were spooled', async (t) => {
  // One detached fold per event, all at once: a PermissionRequest folded before its PreToolUse
  // would lose the tool id it takes from it. Several sessions' turns, spooled back to back.
  const home = scratch(t)
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: join(home, 'tb'),
    TMUX: '/tmp/tmux-1/default,42,0',
    TMUX_PANE: '%7',
  }
  const sids = Array.from({ length: 6 }, (_, i) => `0000000${i}-edc2-7570-bd3b-db284ca128fe`)
  const events = ['UserPromptSubmit', 'PreToolUse', 'PermissionRequest']
  for (const sid of sids) {
    for (const name of events) {
      const extra =
        name === 'UserPromptSubmit'
          ? {}
          : {
              tool_name: 'Bash',
              tool_input: { command: 'touch /x' },
              tool_use_id: name === 'PreToolUse' ? `call_${sid.slice(0, 8)}` : undefined,
            }
      t.equal(spawnSync('/bin/sh', [DIST_SPOOL, 'codex', process.execPath], { input: codexPayload(sid, name, extra), env }).status, 0)
    }
  }
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  const deadline = Date.now() + 60_000
  while (
    Date.now() < deadline &&
    (listSpool(sdir).length > 0 || foldRunning(home) || sids.some((sid) => !fs.existsSync(join(home, 'tb', 'sessions', `${sid}.json`))))
  ) {
    await new Promise((r) => setTimeout(r, 50))
  }
  t.same(listSpool(sdir), [], 'every event folded')
  for (const sid of sids) {
    const rec = JSON.parse(fs.readFileSync(join(home, 'tb', 'sessions', `${sid}.json`), 'utf8')) as {
      events: number
      state: string
      tool: { useId?: string } | null
    }
    t.match(
      rec,
      { events: events.length, state: 'permission', tool: { useId: `call_${sid.slice(0, 8)}` } },
      `session ${sid.slice(0, 8)}: in order`,
    )
  }
})

t.test('readers fold what no fold wrote: a session only in the spool is listed', async (t) => {
  const home = scratch(t)
  const sid = 'spool-only-session'
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(home, 'tb') }
  spawnSync('/bin/sh', [DIST_SPOOL, 'codex'], { input: codexPayload(sid, 'UserPromptSubmit'), env })
  spawnSync('/bin/sh', [DIST_SPOOL, 'codex'], { input: codexPayload(sid, 'Stop', { last_assistant_message: 'Done.' }), env })
  const { readStore } = await import('../lib/record/read.js')
  const store = await readStore(env, sessionsDir(env), { agents: hooksFor })
  t.match(
    store.records.find((r) => r.sessionId === sid),
    { state: 'waiting', kind: 'done', message: 'Done.', events: 2 },
  )
  t.notOk(fs.existsSync(join(home, 'tb', 'sessions', `${sid}.json`)), 'reading wrote nothing')
})

/** A hook whose agent has written the first `part` of its payload and holds the rest (spool.sh's cat waits for it). */
const startHalfWritten = async (env: Record<string, string | undefined>, sdir: string, part: string, args: string[]) => {
  // Its own process group, so the shell and its cat can be killed together.
  const writer = spawn('/bin/sh', [DIST_SPOOL, ...args], { env, stdio: ['pipe', 'ignore', 'ignore'], detached: true })
  const exited = new Promise<number | null>((r) => writer.on('exit', (code) => r(code)))
  writer.stdin.write(part)
  let name = ''
  await waitFor(() => {
    const [f] = listSpool(sdir).filter((x) => !x.claimed)
    name = f?.name ?? ''
    return name !== '' && fs.readFileSync(join(sdir, name), 'utf8').endsWith(`\n\n${part}`)
  }, 'the half-written spool file')
  return { writer, exited, name }
}

const foldNow = (env: Record<string, string | undefined>): number | null =>
  spawnSync(process.execPath, [BUILT_EMITTER, '--fold-spool'], { env }).status

t.test('a file spool.sh is still writing is left to its hook by readers and folds, then folded whole', async (t) => {
  const home = scratch(t)
  const tb = join(home, 'tb')
  const env = {
    PATH: process.env.PATH,
    TMUX_TMPDIR: process.env.TMUX_TMPDIR,
    HOME: home,
    TRAILBOSS_HOME: tb,
    TMUX: '/tmp/tmux-1/default,42,0',
    TMUX_PANE: '%7',
  }
  const sdir = spoolDir(join(tb, 'sessions'))
  const sid = 'still-being-written'
  const payload = codexPayload(sid, 'UserPromptSubmit')
  const { writer, exited, name } = await startHalfWritten(env, sdir, payload.slice(0, 40), ['codex', process.execPath])
  t.match(readSpoolFile(join(sdir, name)), { incomplete: /^payload ends before its JSON does/, notJson: undefined })
  const { size, said } = readAsReader(tb, env)
  t.equal(size, 0, 'a reader lists nothing of it')
  t.same(said, [], 'and says nothing: it is young')
  t.equal(foldNow(env), 0, 'another hook’s fold meanwhile')
  t.same(
    listSpool(sdir).map((f) => f.name),
    [name],
    'left in place under its name, unclaimed',
  )
  t.notOk(fs.existsSync(join(tb, 'sessions', `${sid}.json`)), 'no record from half an event')
  writer.stdin.end(payload.slice(40))
  t.equal(await exited, 0, 'the hook exits 0 once its stdin is whole')
  const file = join(tb, 'sessions', `${sid}.json`)
  await waitFor(
    () =>
      (JSON.parse(fs.readFileSync(file, 'utf8')) as { events: number }).events === 1 && listSpool(sdir).length === 0 && !foldRunning(home),
    'its own fold',
    30_000,
  )
  t.match(JSON.parse(fs.readFileSync(file, 'utf8')), { events: 1, agent: 'codex', tmux: { pane: '%7' } })
})

t.test(
  'a hook killed half way is a lost event once old: said by readers, kept aside by the fold, and later events still fold',
  async (t) => {
    const home = scratch(t)
    const tb = join(home, 'tb')
    const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: tb }
    const sdir = spoolDir(join(tb, 'sessions'))
    const sid = 'killed-half-way'
    const { writer, exited, name } = await startHalfWritten(env, sdir, codexPayload(sid, 'UserPromptSubmit').slice(0, 50), ['codex'])
    process.kill(-writer.pid!, 'SIGKILL')
    await exited
    writer.stdin.destroy()
    // The session goes on: its next hook spools a whole event.
    t.equal(
      spawnSync('/bin/sh', [DIST_SPOOL, 'codex'], { input: codexPayload(sid, 'Stop', { last_assistant_message: 'Done.' }), env }).status,
      0,
    )
    t.equal(foldNow(env), 0)
    const file = join(tb, 'sessions', `${sid}.json`)
    t.match(
      JSON.parse(fs.readFileSync(file, 'utf8')),
      { events: 1, kind: 'done' },
      'the whole event is folded past the young incomplete one',
    )
    t.same(
      listSpool(sdir).map((f) => f.name),
      [name],
      'the incomplete one is left: it may still be written',
    )
    // Its last write SPOOL_LOST_MS ago: its hook is gone.
    const old = (Date.now() - SPOOL_LOST_MS - 1000) / 1000
    fs.utimesSync(join(sdir, name), old, old)
    const { size, said } = readAsReader(tb, env)
    t.equal(size, 0, 'a reader lists nothing of it')
    t.match(
      said,
      [
        new RegExp(
          `^ignored spool file ${name.replace('.', '\\.')}: a lost event, incomplete for 3\\d s: its hook stopped half way \\(payload ends before its JSON does`,
        ),
      ],
      'and says so',
    )
    t.equal(foldNow(env), 0)
    t.same(listSpool(sdir), [], 'out of the spool')
    const aside = join(sdir, `${name}.lost`)
    t.ok(fs.existsSync(aside), 'kept aside as .lost')
    t.equal(fs.statSync(aside).mode & 0o777, 0o600, 'still private')
    t.match(
      fs.readFileSync(join(tb, 'log'), 'utf8'),
      new RegExp(`lost event: spool file ${name.replace('.', '\\.')}:? (stayed )?incomplete for 3\\d s`),
      'said in the log',
    )
    t.match(JSON.parse(fs.readFileSync(file, 'utf8')), { events: 1, kind: 'done' }, 'the record is unchanged')
  },
)

t.test('a payload that is not JSON is a lost event at once: said as such by readers and the log, kept aside by the fold', async (t) => {
  const home = scratch(t)
  const tb = join(home, 'tb')
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: tb }
  const sdir = spoolDir(join(tb, 'sessions'))
  // Whole, and never JSON: what an agent's hook runner would send if it wrapped or mangled the payload.
  const body = `event: ${codexPayload('not-json-session', 'Stop')}`
  t.equal(spawnSync('/bin/sh', [DIST_SPOOL, 'codex'], { input: body, env }).status, 0, 'the hook exits 0')
  const [f] = listSpool(sdir)
  const name = f?.name ?? ''
  t.match(readSpoolFile(join(sdir, name)), { incomplete: `payload is not JSON (${body.length} bytes)`, notJson: true })
  const { size, said } = readAsReader(tb, env)
  t.equal(size, 0, 'a reader lists nothing of it')
  t.same(
    said,
    [`ignored spool file ${name}: a lost event, its payload is not JSON (${body.length} bytes)`],
    'and says what it is, young as it is',
  )
  t.equal(foldNow(env), 0)
  t.same(listSpool(sdir), [], 'out of the spool at once')
  t.ok(fs.existsSync(join(sdir, `${name}.lost`)), 'kept aside as .lost')
  const log = fs.readFileSync(join(tb, 'log'), 'utf8')
  t.match(log, `lost event: spool file ${name}`, 'said in the log')
  t.match(log, `payload is not JSON (${body.length} bytes)`, 'as not JSON')
  t.notMatch(log, 'ends before its JSON does', 'not as cut short')
})

t.test('spoolAgesOf counts only the named agent’s files, by the agent line spool.sh writes', async (t) => {
  const home = scratch(t)
  const env = { PATH: process.env.PATH, TMUX_TMPDIR: process.env.TMUX_TMPDIR, HOME: home, TRAILBOSS_HOME: join(home, 'tb') }
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  // No node given: no fold starts, the files stay.
  for (const agent of ['codex', 'gemini', 'codex'])
    t.equal(spawnSync('/bin/sh', [DIST_SPOOL, agent], { input: codexPayload('ages', 'Stop'), env }).status, 0)
  // Every file dated 5 s before `now`: an age is `now` less its file's mtime. (Dated by the test:
  // a file written within the millisecond Date.now() floors to would be a fraction younger.)
  const now = Date.now()
  for (const f of listSpool(sdir)) fs.utimesSync(join(sdir, f.name), (now - 5000) / 1000, (now - 5000) / 1000)
  t.equal(spoolAgesOf(sdir, 'codex', now).length, 2)
  t.equal(spoolAgesOf(sdir, 'gemini', now).length, 1)
  t.equal(spoolAgesOf(sdir, 'codex-x', now).length, 0, 'a name that starts like another agent’s is not it')
  t.ok(
    spoolAgesOf(sdir, 'codex', now).every((a) => Math.abs(a - 5000) < 1),
    'ages from the files’ mtimes',
  )
  t.equal(parseSpoolAgent('trailboss-spool 1\nagent codex'), null, 'an agent line not yet ended names none')
})
