// The variables a spooled event keeps have one source: the pane's (lib/record/spool.ts) and each
// agent's `sessionEnv` (lib/agents/<agent>/hooks.ts). The build writes them into the shipped
// spool.sh (lib/agents/spool-env.ts); the fold applies the same lists (spoolEnv). Run
// `npm run build` first.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { AGENT_HOOKS, hooksFor } from '../lib/agents/hook-registry.js'
import { deriveSpoolEnv, formatSpoolEnvCase, SPOOL_ENV_LINE, writeSpoolEnv } from '../lib/agents/spool-env.js'
import type { AgentHooks } from '../lib/agents/types.js'
import { spoolToEvent } from '../lib/record/spool-events.js'
import { isIncomplete, listSpool, readSpoolFile, SPOOL_PANE_ENV, spoolDir } from '../lib/record/spool.js'

const SOURCE = new URL('../hooks/spool.sh', import.meta.url).pathname
const SHIPPED = new URL('../dist/hooks/spool.sh', import.meta.url).pathname

const { sessionEnv: _, ...someHooks } = AGENT_HOOKS[0]!
const agent = (id: string, sessionEnv?: string[]): AgentHooks => ({ ...someHooks, id, ...(sessionEnv ? { sessionEnv } : {}) })

t.test('formatSpoolEnvCase: one arm per agent, the pane first; an unknown agent keeps the pane alone', async (t) => {
  t.equal(
    formatSpoolEnvCase([agent('a-1', ['A_HOME']), agent('b')]),
    [
      'case $agent in',
      "  a-1) env_names='TMUX TMUX_PANE A_HOME' ;;",
      "  b) env_names='TMUX TMUX_PANE' ;;",
      "  *) env_names='TMUX TMUX_PANE' ;;",
      'esac',
    ].join('\n'),
  )
  t.same(
    deriveSpoolEnv().map(([id]) => id),
    AGENT_HOOKS.map((a) => a.id),
    'every registered agent, a new one too',
  )
  // spool.sh evals each name: anything but a plain variable name fails the build.
  for (const bad of ['A;rm -rf ~', 'a', 'A B', '$(x)', ''])
    t.throws(() => formatSpoolEnvCase([agent('a', [bad])]), /not a variable name/, JSON.stringify(bad))
  t.throws(() => formatSpoolEnvCase([agent("a'b")]), /not an agent id/)
})

t.test('writeSpoolEnv replaces the one env_names= line of the script', async (t) => {
  const source = fs.readFileSync(SOURCE, 'utf8')
  t.equal(source.split('\n').filter((l) => l === SPOOL_ENV_LINE).length, 1, 'hooks/spool.sh holds the line once')
  t.throws(() => writeSpoolEnv('#!/bin/sh\n'), /once, not 0 times/)
  t.throws(() => writeSpoolEnv(`${SPOOL_ENV_LINE}\n${SPOOL_ENV_LINE}\n`), /once, not 2 times/)
  t.equal(
    fs.readFileSync(SHIPPED, 'utf8'),
    writeSpoolEnv(source),
    'dist/hooks/spool.sh is the source with the lists of this build written in',
  )
})

t.test('the shipped spool.sh keeps, for each agent, the pane and what that agent reads, and its fold takes them', async (t) => {
  const home = t.testdir()
  // Every variable any agent reads is set, so each agent's file shows which it keeps.
  const all: Record<string, string> = {}
  for (const [, names] of deriveSpoolEnv())
    for (const n of names) all[n] = n === 'TMUX' ? '/tmp/tmux-1/default,42,0' : n === 'TMUX_PANE' ? '%7' : `/set/${n}`
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  for (const [id, names] of deriveSpoolEnv()) {
    const payload = JSON.stringify({ session_id: `s-${id}`, hook_event_name: 'Stop' })
    const r = spawnSync('/bin/sh', [SHIPPED, id], {
      input: payload,
      env: { PATH: process.env.PATH, HOME: home, TRAILBOSS_HOME: join(home, 'tb'), ...all },
      encoding: 'utf8',
    })
    t.equal(r.status, 0, `${id}: spool.sh exits 0`)
    const files = listSpool(sdir)
    const entry = readSpoolFile(join(sdir, files.at(-1)!.name))
    if (typeof entry === 'string' || isIncomplete(entry)) return t.fail(`${id}: ${typeof entry === 'string' ? entry : entry.incomplete}`)
    t.equal(entry.agent, id)
    t.same(Object.keys(entry.env).sort(), [...names].sort(), `${id}: the pane's and its own, no other agent's`)
    t.ok(
      SPOOL_PANE_ENV.every((n) => names.includes(n)),
      `${id}: the pane's among them`,
    )
    for (const f of files) fs.rmSync(join(sdir, f.name))
  }
  // The fold reads back what the hook kept: the pane of a Codex event is the hook's, not the fold's.
  const codex = JSON.stringify({
    session_id: 's1',
    transcript_path: '/nowhere/r.jsonl',
    cwd: '/tmp',
    hook_event_name: 'Stop',
    turn_id: 't1',
    model: 'm',
    permission_mode: 'default',
  })
  spawnSync('/bin/sh', [SHIPPED, 'codex'], {
    input: codex,
    env: { PATH: process.env.PATH, HOME: home, TRAILBOSS_HOME: join(home, 'tb'), TMUX: '/tmp/tmux-1/default,42,0', TMUX_PANE: '%7' },
  })
  const entry = readSpoolFile(join(sdir, listSpool(sdir)[0]!.name))
  if (typeof entry === 'string' || isIncomplete(entry)) return t.fail('a codex entry')
  const ev = spoolToEvent(entry, { TMUX: '/tmp/other,1,0', TMUX_PANE: '%1' }, 'h', hooksFor)
  t.match(ev, { sessionId: 's1', tmux: { pane: '%7', socket: '/tmp/tmux-1/default' } })
})

t.test('an old spool file, written with every agent’s variables, still folds', async (t) => {
  const home = t.testdir()
  const sdir = spoolDir(join(home, 'tb', 'sessions'))
  fs.mkdirSync(sdir, { recursive: true, mode: 0o700 })
  const payload = JSON.stringify({
    session_id: 's1',
    transcript_path: '/nowhere/r.jsonl',
    cwd: '/tmp',
    hook_event_name: 'Stop',
    turn_id: 't1',
    model: 'm',
    permission_mode: 'default',
  })
  // What spool.sh wrote before the lists were the agents' own.
  const old = [
    'trailboss-spool 1',
    'agent codex',
    'env TMUX=/tmp/tmux-1/default,42,0',
    'env TMUX_PANE=%7',
    'env CODEX_HOME=/c',
    'env GEMINI_PROJECT_DIR=/g',
    'env CLAUDE_PROJECT_DIR=/p',
    'ppid 41',
    '',
    payload,
  ].join('\n')
  fs.writeFileSync(join(sdir, '123-45.ev'), old, { mode: 0o600 })
  const entry = readSpoolFile(join(sdir, '123-45.ev'))
  if (typeof entry === 'string' || isIncomplete(entry)) return t.fail('an entry')
  t.match(spoolToEvent(entry, {}, 'h', hooksFor), { sessionId: 's1', agent: 'codex', tmux: { pane: '%7' } })
})
