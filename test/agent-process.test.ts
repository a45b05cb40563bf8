import { spawn } from 'node:child_process'
import t from 'tap'
import { findAgentProcess, parseProcStat, readProcStat, runsInPane, type ProcStat } from '../lib/proc/agent-process.js'

t.test('parseProcStat', async (t) => {
  const line = '4242 (node (a) b) S 4000 4242 4000 34816 4242 4194304 1 0 0 0 5 1 0 0 20 0 11 0 987654 1000 20 18446744073709551615\n'
  t.same(parseProcStat(line), { pid: 4242, comm: 'node (a) b', ppid: 4000, startTicks: 987654 })
  t.equal(parseProcStat('garbage'), null)
  t.equal(parseProcStat('12 (x) S'), null)
})

const table =
  (rows: ProcStat[]) =>
  (pid: number): ProcStat | null =>
    rows.find((r) => r.pid === pid) ?? null
const procs = table([
  { pid: 100, comm: 'bash', ppid: 1, startTicks: 10 },
  { pid: 200, comm: 'claude', ppid: 100, startTicks: 20 },
  { pid: 300, comm: 'sh', ppid: 200, startTicks: 30 },
  { pid: 400, comm: 'sh', ppid: 300, startTicks: 40 },
  { pid: 500, comm: 'cat', ppid: 1, startTicks: 50 },
])

t.test('findAgentProcess: the hook’s parent, past the shells a hook runs in', async (t) => {
  t.same(findAgentProcess(200, procs), { pid: 200, startTicks: 20 })
  t.same(findAgentProcess(300, procs), { pid: 200, startTicks: 20 })
  t.same(findAgentProcess(400, procs), { pid: 200, startTicks: 20 })
  t.same(findAgentProcess(999, procs), { pid: 999, startTicks: null }, 'no /proc: the pid alone')
})

t.test('runsInPane', async (t) => {
  t.ok(runsInPane({ pid: 200, startTicks: 20 }, 100, procs), 'a child of the pane’s shell')
  t.ok(runsInPane({ pid: 200, startTicks: 20 }, 200, procs), 'the pane’s own process')
  t.notOk(runsInPane({ pid: 200, startTicks: 21 }, 100, procs), 'a reused pid: another start time')
  t.notOk(runsInPane({ pid: 500, startTicks: 50 }, 100, procs), 'a process outside the pane')
  t.notOk(runsInPane({ pid: 777, startTicks: 70 }, 100, procs), 'a process that is gone')
})

t.test('on this machine (Linux, /proc): a real child and its start time', async (t) => {
  const child = spawn('sleep', ['30'])
  t.teardown(() => child.kill())
  const me = readProcStat(process.pid)!
  const agent = findAgentProcess(process.pid)
  t.same(agent, { pid: process.pid, startTicks: me.startTicks })
  t.ok(runsInPane({ pid: child.pid!, startTicks: readProcStat(child.pid!)!.startTicks }, process.pid), 'a child runs under its parent')
  t.notOk(runsInPane({ pid: process.pid, startTicks: me.startTicks }, child.pid!), 'a parent does not run under its child')
})
