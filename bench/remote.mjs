// `ls` and `status` over remote hosts (issue 28, docs/design.md §7 and §10): real OpenSSH servers
// on loopback (ssh-hosts.mjs), each with its own home, its own tmux and three waits written by
// this checkout's built emitter, and this checkout's built CLI on its PATH.
//  1. Warm connections: `ls` over three hosts against the three hosts' own `ls --json --local`
//     run over ssh at once by hand (one job: the slowest host's ls plus a round trip, under the
//     same contention), over warm masters, in the same interleaved rounds. Target: at most that
//     (the hosts are read in parallel). Also printed: against the slowest host's ls run alone,
//     plus one round trip (`ssh host true`).
//  2. A host that does not answer (its sshd and sessions paused with SIGSTOP; a port with nothing
//     listening): `ls` with it against `ls` without it. Target: it adds at most its bound, 3 s.
//  3. `status` with those hosts listed beside the live ones against the live ones alone. Target:
//     adds nothing. Also the call that finds them due for a read: when its output ends, and its process.
// On loopback every host shares this machine's cores: three remote `ls` at once compete for
// them, as real hosts' would not.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CLI, EMITTER, fmt, interleave, iqr, median, quantile, ratio, runIfMain, sleep, timeOutputAndExit, timeSpawn } from './lib.mjs'
import { startSshHost, trailbossBinDir, writeSshConfig } from './ssh-hosts.mjs'

const STAND_IN = fileURLToPath(new URL('../test/helpers/agent-stand-in.cjs', import.meta.url))
const DIALOG = fileURLToPath(new URL('../test/fixtures/screens/03-permission-dialog.txt', import.meta.url))
const LIVE = ['hosta', 'hostb', 'hostc']
const PAUSED = 'paused'
const REFUSED = 'refused'
const WAITS_PER_HOST = 3
/** lib/remote/ssh-args.ts SSH_READ_TIMEOUT_MS: the most a silent host may add. */
const BOUND_MS = 3000
/** What "adds nothing" allows for noise. */
const NOTHING_RATIO = 1.05
/** lib/remote/cached-fleet.ts REFRESH_GAP_MS: how often status reads a host again. */
const REFRESH_GAP_MS = 10_000
/** Calls that find the hosts due: each waits out the gap first. */
const DUE_CALLS = 3
/** lib/remote/fleet.ts remoteLsWords(false): what the CLI runs on each host. */
const REMOTE_LS = ['trailboss', 'ls', '--json', '--local']
/** Output goes to a pipe the bench reads, as the CLI reads ssh's. */
const STDIO = ['ignore', 'pipe', 'pipe']
/** A run that hangs past this is a broken bench, not a figure. */
const RUN_TIMEOUT_MS = 20_000

// NODE_EXTRA_CA_CERTS makes every Node start load its certificates (~60 ms here): the hosts' Node,
// started by sshd, never sees it, so this machine's must not either, or the ratios compare unlike starts.
const { SSH_AUTH_SOCK: _agent, TMUX: _tmux, TMUX_PANE: _pane, NODE_EXTRA_CA_CERTS: _certs, ...BASE_ENV } = process.env

/** tmux on a host's own default server (its TMUX_TMPDIR), as a session there would run it. */
const tmuxOn = (host, bin, ...args) => {
  const r = spawnSync('tmux', args, {
    env: { ...BASE_ENV, HOME: host.home, TMUX_TMPDIR: host.tmuxTmpdir, PATH: `${bin}:${process.env.PATH}` },
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} on ${host.name}: ${r.stderr}`)
  return r.stdout.trim()
}

/** Waits on a host: panes showing a permission dialog whose hook ran the built emitter there. */
const makeWaits = async (host, bin, count, digit) => {
  const tbHome = join(host.home, '.trailboss')
  const cwd = join(host.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  const records = []
  for (let i = 0; i < count; i++) {
    // A digit of the host's, then the wait's: keys (the first 8 characters) differ on every host.
    const sessionId = `${digit}${String(i).padStart(7, '0')}-0000-4000-8000-000000000000`
    const event = {
      session_id: sessionId,
      transcript_path: join(cwd, 'none.jsonl'),
      cwd,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: `touch x${i}`, description: `Create x${i}` },
      prompt_id: 'p1',
    }
    const command = [process.execPath, STAND_IN, EMITTER, tbHome, DIALOG, JSON.stringify(event), cwd]
    if (i === 0) tmuxOn(host, bin, 'new-session', '-d', '-s', 'work', '-x', '160', '-y', '50', ...command)
    else tmuxOn(host, bin, 'new-window', '-d', '-t', 'work', ...command)
    records.push(join(tbHome, 'sessions', `${sessionId}.json`))
  }
  for (const deadline = Date.now() + 15_000; !records.every((f) => existsSync(f)); await sleep(50))
    if (Date.now() > deadline) throw new Error(`the waits on ${host.name} were not recorded`)
}

/** Runs the built CLI once and returns its stdout; throws unless it exits 0. */
const cli = (env, args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, stdio: STDIO, encoding: 'utf8', timeout: RUN_TIMEOUT_MS })
  if (r.status !== 0) throw new Error(`trailboss ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}

/** `--host` words choosing hosts of the list; local records are read either way. */
const hostArgs = (names) => names.flatMap((n) => ['--host', n])

/** The hosts `ls --json` says answered, and its remote waits: the bench measures what it claims. */
const expectAnswers = (env, names, answering) => {
  const doc = JSON.parse(cli(env, ['ls', '--json', ...hostArgs(names)]))
  const answered = doc.hosts.filter((h) => h.answered).map((h) => h.destination)
  if (answered.join() !== answering.join()) throw new Error(`expected ${answering.join()} to answer, got ${answered.join()}`)
  const remote = doc.queue.filter((i) => i.destination && !i.stale).length
  if (remote !== answering.length * WAITS_PER_HOST)
    throw new Error(`expected ${answering.length * WAITS_PER_HOST} fresh remote waits, got ${remote}`)
}

const stats = (xs) => [fmt(median(xs)), `${fmt(quantile(xs, 0.1), 0)}–${fmt(quantile(xs, 0.9), 0)}`]
const ratioCell = (q) => `${fmt(q.paired, 2)}× (±${fmt(q.spread / 2, 2)})`
const yes = (ok) => (ok ? 'yes' : 'no')
const signed = (ms, digits = 0) => `${ms < 0 ? '−' : '+'}${fmt(Math.abs(ms), digits)} ms`

export const run = async (flags) => {
  if (!existsSync(CLI) || !existsSync(EMITTER)) throw new Error('dist/ is missing: run npm run build')
  // Short: a host's tmux socket and the ssh control sockets live under it (108-byte limit).
  const root = mkdtempSync('/tmp/tb-bench-remote-')
  const bin = trailbossBinDir(root)
  const hosts = {}
  const path = `${bin}:${process.env.PATH}`
  try {
    for (const name of [...LIVE, PAUSED, REFUSED]) hosts[name] = await startSshHost(join(root, name), name, { path })
    const config = join(root, 'ssh_config')
    writeSshConfig(config, Object.values(hosts))
    // Nothing listens on its port from now on: connections are refused at once.
    await hosts[REFUSED].stop()
    for (const [i, name] of [...LIVE, PAUSED].entries()) await makeWaits(hosts[name], bin, WAITS_PER_HOST, i + 1)

    const localEnv = (dir) => {
      const home = join(root, dir)
      mkdirSync(home, { recursive: true, mode: 0o700 })
      return { ...BASE_ENV, HOME: home, TRAILBOSS_HOME: join(home, 'tb'), TRAILBOSS_SSH_CONFIG: config }
    }
    // `fleet` lists every host; `plain` has no hosts.json (the baseline of status).
    const fleet = localEnv('fleet')
    const plain = localEnv('plain')
    for (const name of Object.keys(hosts)) cli(fleet, ['hosts', 'add', name])
    // Warm: each host answered once (a master per host, the paused one's last answer kept).
    expectAnswers(fleet, [...LIVE, PAUSED], [...LIVE, PAUSED])

    // The baselines' own masters, in a folder of the bench's, as warm as the CLI's.
    const cm = join(root, 'cm')
    mkdirSync(cm, { mode: 0o700 })
    const sshArgv = (host, words) => [
      '-F',
      config,
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${join(cm, '%C')}`,
      '-o',
      'ControlPersist=60',
      '-o',
      'BatchMode=yes',
      '-T',
      '--',
      host,
      ...words,
    ]
    const ssh = (host, words, stdio = STDIO) => timeSpawn('ssh', sshArgv(host, words), { env: fleet, stdio, timeout: RUN_TIMEOUT_MS })
    // The first call becomes the master and leaves for the background: nothing of ours to hold open.
    for (const name of LIVE) ssh(name, ['true'], 'ignore')

    // The three reads at once, by hand, over the same warm masters, timed as one job: the
    // slowest host's ls plus a round trip under the contention `ls` itself meets (the hosts
    // share this machine's cores). The shell only starts them and waits; the config, the socket
    // path and the hosts are its arguments, the remote words the fixed REMOTE_LS.
    const atOnceScript = `c=$1; p=$2; shift 2; for h; do ssh -F "$c" -o ControlMaster=auto -o "ControlPath=$p" -o ControlPersist=60 -o BatchMode=yes -T -- "$h" ${REMOTE_LS.join(' ')} & done; wait`
    const readsAtOnce = () =>
      timeSpawn('sh', ['-c', atOnceScript, 'sh', config, join(cm, '%C'), ...LIVE], { env: fleet, stdio: STDIO, timeout: RUN_TIMEOUT_MS })

    const lsOver = (names) => () => timeSpawn(process.execPath, [CLI, 'ls', '--json', ...hostArgs(names)], { env: fleet, stdio: STDIO })

    // 1. Warm hosts, in parallel, against the slowest host's own ls plus one round trip.
    const warm = interleave(
      {
        ls3: lsOver(LIVE),
        ls1: lsOver([LIVE[0]]),
        local: () => timeSpawn(process.execPath, [CLI, 'ls', '--json', '--local'], { env: fleet, stdio: STDIO }),
        ...Object.fromEntries(LIVE.map((h) => [h, () => ssh(h, REMOTE_LS)])),
        rtt: () => ssh(LIVE[0], ['true']),
        atOnce: readsAtOnce,
        // A bare Node start: what any Node CLI pays before it can start ssh at all.
        node: () => timeSpawn(process.execPath, ['-e', ''], { env: fleet, stdio: STDIO }),
      },
      { rounds: Math.max(5, Math.round(flags.rounds / 2)), warmup: flags.warmup },
    )
    const w = warm.wall
    const slowest = w.rtt.map((_, i) => Math.max(...LIVE.map((h) => w[h][i])))
    const threeBase = slowest.map((s, i) => s + w.rtt[i])
    const oneBase = w[LIVE[0]].map((s, i) => s + w.rtt[i])
    // The same with this machine's own `ls` added: what reading the hosts in parallel can reach.
    const withLocal = threeBase.map((b, i) => b + w.local[i])
    const atOnceBase = w.atOnce.map((a, i) => a + w.rtt[i])
    const q3p = ratio(w.ls3, w.atOnce)
    const atOnceNode = w.atOnce.map((a, i) => a + w.node[i])
    const q3n = ratio(w.ls3, atOnceNode)
    const added = w.ls3.map((x, i) => x - w.atOnce[i])
    const q3pr = ratio(w.ls3, atOnceBase)
    const q3 = ratio(w.ls3, threeBase)
    const q3l = ratio(w.ls3, withLocal)
    const q1 = ratio(w.ls1, oneBase)
    const warmRows = [
      [
        'ls --json over 3 warm hosts, against the three reads run at once by hand',
        ...stats(w.ls3),
        fmt(median(w.atOnce)),
        ratioCell(q3p),
        '≤ 1× (the slowest host’s ls + one round trip, under the same contention)',
        yes(q3p.paired <= 1),
      ],
      [
        'ls --json over 3 warm hosts, against the three at once + a bare Node start (`node -e ""`)',
        ...stats(w.ls3),
        fmt(median(atOnceNode)),
        `${ratioCell(q3n)}; ls adds ${signed(median(added))} to the three at once`,
        'printed (the floor of a Node CLI: it cannot start ssh before Node has started)',
        yes(q3n.paired <= 1),
      ],
      [
        'ls --json over 3 warm hosts, against the three at once + one more round trip',
        ...stats(w.ls3),
        fmt(median(atOnceBase)),
        ratioCell(q3pr),
        'printed (≤ 1×: what ls adds to the reads costs at most a round trip)',
        yes(q3pr.paired <= 1),
      ],
      [
        'ls --json over 3 warm hosts',
        ...stats(w.ls3),
        fmt(median(threeBase)),
        ratioCell(q3),
        '≤ 1× (slowest host’s ls + one round trip)',
        yes(q3.paired <= 1),
      ],
      [
        'ls --json over 3 warm hosts, against this machine’s own ls + the same',
        ...stats(w.ls3),
        fmt(median(withLocal)),
        ratioCell(q3l),
        'printed (≤ 1×: the hosts cost no more than the slowest)',
        yes(q3l.paired <= 1),
      ],
      [`ls --json over 1 warm host (${LIVE[0]})`, ...stats(w.ls1), fmt(median(oneBase)), ratioCell(q1), 'printed', '-'],
      ...LIVE.map((h) => [`${h}: \`ssh ${h} ${REMOTE_LS.join(' ')}\` alone`, ...stats(w[h]), '', '', 'part of the baseline', '-']),
      ['this machine alone: `trailboss ls --json --local`', ...stats(w.local), '', '', 'second baseline', '-'],
      ['slowest of the three, per round', ...stats(slowest), '', '', 'part of the baseline', '-'],
      ['the three reads at once (one job: `ssh … &` ×3, `wait`)', ...stats(w.atOnce), '', '', 'the fair baseline', '-'],
      ['a bare Node start: `node -e ""`', ...stats(w.node), '', '', 'part of the floor', '-'],
      [`round trip: \`ssh ${LIVE[0]} true\``, ...stats(w.rtt), '', '', 'part of the baseline', '-'],
    ]

    // 2. A host that does not answer: ls with it against ls without it, in the same rounds.
    hosts[PAUSED].pause()
    const dead = interleave(
      { live: lsOver(LIVE), paused: lsOver([...LIVE, PAUSED]), refused: lsOver([...LIVE, REFUSED]) },
      { rounds: Math.max(3, Math.round(flags.rounds / 4)), warmup: Math.min(1, flags.warmup) },
    )
    expectAnswers(fleet, [...LIVE, PAUSED, REFUSED], LIVE)
    const d = dead.wall
    const deadRows = [
      ['paused (its sshd and sessions stopped with SIGSTOP)', d.paused],
      ['refusing (nothing listens on its port)', d.refused],
    ].map(([what, xs]) => {
      const added = xs.map((x, i) => x - d.live[i])
      return [
        `ls --json over 3 warm hosts + one ${what}`,
        ...stats(xs),
        fmt(median(d.live)),
        `${signed(median(added))} (IQR ${fmt(iqr(added), 0)})`,
        `≤ +${BOUND_MS} ms`,
        yes(median(added) <= BOUND_MS),
      ]
    })

    // 3. status: the two hosts that do not answer listed beside the three live ones, against the
    // three live ones alone (the same answers, read from the caches the `ls` runs above left).
    const live = localEnv('live')
    for (const name of LIVE) cli(live, ['hosts', 'add', name])
    expectAnswers(live, LIVE, LIVE)
    const statusIn = (env) => () => timeSpawn(process.execPath, [CLI, 'status'], { env, stdio: STDIO })
    const status = interleave(
      { listed: statusIn(fleet), live: statusIn(live), none: statusIn(plain) },
      { rounds: flags.rounds, warmup: flags.warmup },
    )
    const s = status.wall
    const qs = ratio(s.listed, s.live)
    const qn = ratio(s.live, s.none)
    // The call that finds the dead hosts due for their refresh (once per REFRESH_GAP_MS): when
    // its output ends (what a status line waits for) and when its process ends.
    const due = []
    for (let i = 0; i < DUE_CALLS; i++) {
      await sleep(REFRESH_GAP_MS + 500)
      due.push(await timeOutputAndExit(process.execPath, [CLI, 'status'], { env: fleet }))
    }
    const dueOut = due.map((d) => d.output)
    const dueExit = due.map((d) => d.exit)
    const statusRows = [
      [
        `status, ${LIVE.length} live hosts + one paused + one refusing listed`,
        ...stats(s.listed),
        fmt(median(s.live)),
        `${ratioCell(qs)}, ${signed(median(s.listed.map((x, i) => x - s.live[i])), 1)}`,
        `adds nothing (≤ ${NOTHING_RATIO}×)`,
        yes(qs.paired <= NOTHING_RATIO),
      ],
      [
        `status, the call that finds them due for a read (${DUE_CALLS} calls ${fmt((REFRESH_GAP_MS + 500) / 1000)} s apart): its output ends`,
        ...stats(dueOut),
        fmt(median(s.live)),
        `${fmt(median(dueOut) / median(s.live), 2)}× (of medians), ${signed(median(dueOut) - median(s.live), 1)}`,
        'printed (the output comes from the caches; the reads follow it)',
        '-',
      ],
      [
        '… and its process ends (the refresh of the dead hosts, bounded by the read’s 3 s)',
        ...stats(dueExit),
        '',
        '',
        `≤ ${BOUND_MS} ms + one call (median), every call`,
        yes(Math.max(...dueExit) <= BOUND_MS + median(s.live)),
      ],
      [
        `status, ${LIVE.length} live hosts listed, against a home without hosts.json`,
        ...stats(s.live),
        fmt(median(s.none)),
        `${ratioCell(qn)}, ${signed(median(s.live.map((x, i) => x - s.none[i])), 1)}`,
        `printed (the hosts’ ${LIVE.length * WAITS_PER_HOST} waits to count, from the caches)`,
        '-',
      ],
    ]

    return [
      {
        title: 'ls over remote hosts (real sshd on loopback, warm shared connections)',
        header: ['case', 'median ms', 'p10–p90 ms', 'baseline median ms', 'ratio to baseline (paired median ± half IQR)', 'target', 'met'],
        rows: warmRows,
        notes: [
          `Baseline per round: the slowest of the three hosts' own \`${REMOTE_LS.join(' ')}\`, each run alone over ssh on a warm master of the bench's, plus \`ssh ${LIVE[0]} true\` over it; the same rounds run \`trailboss ls --json --host …\` (its own warm masters) in a rotating order.`,
          'The fair baseline on one machine: the same three `ssh host trailboss ls --json --local` over the bench’s warm masters, started together by `sh` and timed until the last ends, in the same rounds. Run alone, a host’s ls has the cores to itself; run at once, the three compete as they do under `ls`.',
          'The next baseline leaves out what `ls` does on this machine (a Node start, its own records); the second row adds this machine’s `ls --json --local` from the same round.',
          `Each host: its own sshd, HOME and tmux, ${WAITS_PER_HOST} waits (stand-in panes showing a permission dialog, recorded by dist/hooks/emit.cjs). The hosts share this machine's cores: the three remote \`ls\` run at once compete for them, which real hosts would not.`,
        ],
      },
      {
        title: 'ls with a host that does not answer',
        header: ['case', 'median ms', 'p10–p90 ms', '3 hosts alone, median ms', 'added (paired median)', 'target', 'met'],
        rows: deadRows,
        notes: [
          `The paused host answered once before (its master warm, its last answer kept). While that master lives, a read hangs until the bound of ${BOUND_MS} ms cuts it; the master gives up once its keep-alives go unanswered (about 15 s), and later reads open a new connection that ConnectTimeout (2 s) ends first: both show in the spread. The refusing host's port has nothing listening. Checked afterwards: ls names exactly the three live hosts as answering.`,
        ],
      },
      {
        title: 'status with hosts that do not answer',
        header: ['case', 'median ms', 'p10–p90 ms', 'baseline median ms', 'ratio (paired median ± half IQR), added', 'target', 'met'],
        rows: statusRows,
        notes: [
          'No home holds local records. The two listing hosts have each live host’s last answer from their `ls` runs; the dead hosts’ last reads failed. Baseline of the first rows: the same `status` in the home that lists the live hosts alone.',
          `The due call: ${DUE_CALLS} calls, each ${fmt((REFRESH_GAP_MS + 500) / 1000)} s after the last, so every host is due; its output's end is when its stdout pipe closes, as a status line sees it.`,
        ],
      },
    ]
  } finally {
    // Masters end with their servers; tmux servers by their sockets (stop does both).
    for (const host of Object.values(hosts)) await host.stop()
    rmSync(root, { recursive: true, force: true })
  }
}

await runIfMain(import.meta, run)
