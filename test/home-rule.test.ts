// One rule for an acceptable TRAILBOSS_HOME (docs/design.md §2.8): a folder of your own, reached
// directly or through a symlink to such a folder (its sessions folder alike); one of yours that
// others may write is tightened to 0700 by the writer. One table of cases, run against the three
// that apply it: hooks/spool.sh (Codex, Gemini CLI), the Node emitter (Claude Code) and doctor.
// The built spool.sh and emitter, doctor in-process; the cases of another user's folder need root
// to make one.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { runInProcess } from './helpers/cli.js'
import { runEmitter } from './helpers/emitter.js'

const SPOOL_SH = fileURLToPath(new URL('../dist/hooks/spool.sh', import.meta.url))
const OTHER_UID = 4242
const isRoot = process.getuid?.() === 0

interface Case {
  name: string
  /** Makes `<root>/tb` (the home) as the case says. */
  make: (root: string) => void
  accepted: boolean
  needsRoot?: boolean
}

const folder = (path: string, mode = 0o700): void => {
  fs.mkdirSync(path, { recursive: true })
  fs.chmodSync(path, mode)
}
const foreign = (path: string): void => {
  folder(path, 0o755)
  fs.chownSync(path, OTHER_UID, OTHER_UID)
}

const CASES: Case[] = [
  { name: 'a folder of yours', make: (r) => folder(join(r, 'tb')), accepted: true },
  { name: 'none yet (made 0700)', make: () => {}, accepted: true },
  { name: 'a folder of yours that others may write (tightened)', make: (r) => folder(join(r, 'tb'), 0o777), accepted: true },
  {
    name: 'a symlink to a folder of yours',
    make: (r) => {
      folder(join(r, 'real'))
      fs.symlinkSync(join(r, 'real'), join(r, 'tb'))
    },
    accepted: true,
  },
  {
    name: 'a sessions folder that is a symlink to a folder of yours',
    make: (r) => {
      folder(join(r, 'tb'))
      folder(join(r, 'real-sessions'))
      fs.symlinkSync(join(r, 'real-sessions'), join(r, 'tb', 'sessions'))
    },
    accepted: true,
  },
  { name: 'a symlink to nothing', make: (r) => fs.symlinkSync(join(r, 'none'), join(r, 'tb')), accepted: false },
  { name: 'a file', make: (r) => fs.writeFileSync(join(r, 'tb'), ''), accepted: false },
  { name: 'a folder of another user', make: (r) => foreign(join(r, 'tb')), accepted: false, needsRoot: true },
  {
    name: 'a symlink to a folder of another user',
    make: (r) => {
      foreign(join(r, 'theirs'))
      fs.symlinkSync(join(r, 'theirs'), join(r, 'tb'))
    },
    accepted: false,
    needsRoot: true,
  },
  {
    name: 'a sessions folder of another user',
    make: (r) => {
      folder(join(r, 'tb'))
      foreign(join(r, 'tb', 'sessions'))
    },
    accepted: false,
    needsRoot: true,
  },
]

/** Every path under `root` with its kind and mode, links not followed: what a refusal must leave alone. */
const treeOf = (root: string): string[] =>
  fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((p) => {
      const st = fs.lstatSync(join(root, p))
      return `${p} ${st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file'} ${(st.mode & 0o777).toString(8)} ${st.uid}`
    })
    .sort()

const SID = 'home0000-0000-4000-8000-000000000001'
const envOf = (root: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: join(root, 'home'),
  TRAILBOSS_HOME: join(root, 'tb'),
  TMUX_TMPDIR: join(root, 'home'),
})

/** What each of the three makes of the home: accepted (it writes, or doctor does not fail) or not. */
const SUBJECTS: Record<string, (root: string) => Promise<boolean>> = {
  'hooks/spool.sh': async (root) => {
    const payload = JSON.stringify({
      session_id: SID,
      transcript_path: '/nowhere/r.jsonl',
      cwd: '/tmp',
      hook_event_name: 'UserPromptSubmit',
      turn_id: 't1',
      model: 'm',
      permission_mode: 'default',
    })
    const r = spawnSync('/bin/sh', [SPOOL_SH, 'codex'], { input: payload, env: envOf(root) })
    if (r.status !== 0) throw new Error(`spool.sh exited ${r.status}`)
    try {
      return fs.readdirSync(join(root, 'tb', 'sessions', '.spool')).some((n) => n.endsWith('.ev'))
    } catch {
      return false
    }
  },
  'the Node emitter': async (root) => {
    const payload = JSON.stringify({
      session_id: SID,
      transcript_path: '/nowhere/t.jsonl',
      cwd: '/tmp',
      hook_event_name: 'UserPromptSubmit',
      prompt_id: 'p1',
      prompt: 'go',
    })
    const r = await runEmitter(payload, envOf(root) as Record<string, string>)
    if (r.code !== 0) throw new Error(`the emitter exited ${r.code}`)
    return fs.existsSync(join(root, 'tb', 'sessions', `${SID}.json`))
  },
  doctor: async (root) => {
    const r = await runInProcess(['doctor', '--json'], envOf(root) as Record<string, string>)
    const report = JSON.parse(r.stdout) as { checks: { id: string; status: string }[] }
    return report.checks.find((c) => c.id === 'home')?.status !== 'fail'
  },
}

for (const c of CASES) {
  t.test(c.name, { skip: c.needsRoot && !isRoot ? 'making a folder of another user needs root' : false }, async (t) => {
    for (const [subject, run] of Object.entries(SUBJECTS)) {
      const root = t.testdir({ home: {} })
      c.make(root)
      const before = treeOf(root)
      t.equal(await run(root), c.accepted, `${subject}: ${c.accepted ? 'accepted' : 'refused'}`)
      if (!c.accepted) t.same(treeOf(root), before, `${subject}: nothing written or changed`)
      if (c.accepted && subject === 'the Node emitter')
        t.equal(fs.statSync(join(root, 'tb')).mode & 0o777, 0o700, `${subject}: the home is private now`)
    }
  })
}
