// Issue #13, slow failure: a command that cannot write says so at once. TRAILBOSS_HOME on a
// read-only file system (a read-only bind mount in a private mount namespace, made with
// unshare as any user can where user namespaces are on).
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { runBounded } from './helpers/bounded.js'
import { CLI } from './helpers/cli.js'
import { tempDir } from './helpers/emitter.js'
import { startLab } from './helpers/session-lab.js'

/** Runs `node <args>` with `dir` mounted read-only in a mount namespace of its own. */
const READ_ONLY_RUNNER = join(tempDir({ teardown: (fn) => process.on('exit', fn) }), 'ro.sh')
fs.writeFileSync(READ_ONLY_RUNNER, 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" || exit 97\nd=$1; shift; exec "$@"\n')

const canUnshare = spawnSync('unshare', ['-rm', 'sh', READ_ONLY_RUNNER, '/tmp', 'true']).status === 0

t.test(
  'notify on a read-only TRAILBOSS_HOME fails at once with one clear line',
  { skip: canUnshare ? false : 'unshare -rm (user namespaces) is not available here' },
  async (t) => {
    const lab = startLab(tempDir(t))
    t.teardown(lab.close)
    const pane = lab.newPane()
    lab.appendTranscript('waiting1-aa', { type: 'user', promptId: 'p1', message: { role: 'user', content: 'hi' } })
    await lab.emit('waiting1-aa', 'Stop', { prompt_id: 'p1', last_assistant_message: 'done' }, { pane })
    const tb = String(lab.env.TRAILBOSS_HOME)
    const r = await runBounded('unshare', ['-rm', 'sh', READ_ONLY_RUNNER, tb, process.execPath, CLI, 'notify', '--exec', 'cat'], lab.env)
    t.notOk(r.hung, r.hung ? `notify hung (killed after ${Math.round(r.ms)} ms)` : 'notify finishes')
    t.not(r.code, 97, 'the read-only mount was made')
    t.equal(r.code, 1, 'notify fails')
    const lines = r.stderr.trim().split('\n')
    t.equal(lines.length, 1, `one line: ${r.stderr}`)
    t.match(r.stderr, /read-only/, 'saying why')
    t.notMatch(r.stdout, /waiting1-aa/, 'and nothing was told that cannot be remembered')
  },
)
