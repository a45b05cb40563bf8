// doctor's verdicts on the remote side (docs/design.md §10.6): the hosts list, the socket folder
// of the shared connections, and each host as doctor found it (lib/remote/host-probe.ts). A host
// that cannot be read because something is set up wrong fails, with the fix; a host that did
// not answer at all (down, asleep, off the network) is a warning: nothing here is wrong.
import { compareVersions } from '../agents/compare-versions.js'
import type { ControlDirFacts, HostProbe } from '../remote/host-probe.js'
import type { SshResult } from '../remote/ssh-run.js'
import { formatVisible } from '../text/visible-text.js'
import type { Check } from './checks.js'

/** How Trail Boss is updated on a host, as the fixes say it. */
const UPDATE_THERE = 'npm install -g trailboss@latest'

/** The hosts list: how many, or why it cannot be used (then no host is read, by any command). */
export const checkHostsFile = (file: string, count: number, problem: string | null): Check =>
  problem
    ? {
        id: 'hosts',
        status: 'fail',
        summary: `${problem}: no remote host is read`,
        fix: `the file is never repaired for you: fix it or move it away, then list the hosts again (trailboss hosts add <destination>)`,
      }
    : { id: 'hosts', status: 'ok', summary: `${count} remote host${count === 1 ? '' : 's'} listed in ${file}`, fix: null }

/** The socket folder: a real folder of ours, 0700, or connections are not shared (and a foreign one is a risk). */
export const checkControlDir = (f: ControlDirFacts): Check => {
  const id = 'ssh-sockets'
  if (f.persistS === 0)
    return { id, status: 'info', summary: `ssh connections are not shared (TRAILBOSS_SSH_PERSIST=0): each read connects anew`, fix: null }
  if (f.kind === 'missing')
    return { id, status: 'info', summary: `${f.path} does not exist yet (made 0700 when a host is first read)`, fix: null }
  if (f.kind !== 'dir' || !f.ownedByMe) {
    const what = f.kind === 'link' ? 'a link' : f.kind === 'other' ? 'not a folder' : 'a folder of another user'
    return {
      id,
      status: 'fail',
      summary: `${f.path} is ${what}: ssh connections to the hosts are not shared, so every read connects anew`,
      fix: f.ownedByMe
        ? `remove it (rm ${f.path}); Trail Boss makes it again, 0700`
        : `someone else made it: have it removed, or use a shorter TRAILBOSS_HOME, whose cm/ folder then holds the sockets`,
    }
  }
  if (f.mode !== 0o700)
    return {
      id,
      status: 'fail',
      summary: `${f.path} has mode ${(f.mode ?? 0).toString(8)}: others could reach the shared ssh connections' sockets`,
      fix: `chmod 700 ${f.path}`,
    }
  return { id, status: 'ok', summary: `${f.path} (ssh connection sockets) is private to you`, fix: null }
}

const AUTH = /Permission denied|Too many authentication failures|No more authentication methods/i
const HOST_KEY = /Host key verification failed|HOST IDENTIFICATION HAS CHANGED|host key is known|host key for .* has changed/i
const NO_NAME = /Could not resolve hostname|Name or service not known|nodename nor servname/i
const SSH_CONFIG = /Bad configuration option|bad configuration options|Can't open user config file|Unsupported option|Bad port/i
/** A `#!/usr/bin/env node` script found, with no node on the same PATH. */
const NO_NODE = /env: .?node.?: No such file|\bnode: (command )?not found|command not found: node/
/** What shells say of a command they cannot find (sh, bash, zsh, fish). */
const NOT_FOUND = /trailboss: (command )?not found|command not found: trailboss|Unknown command: .?trailboss|trailboss: No such file/

/** Pure: the version a host's `trailboss --version` printed, or null when it is no version. */
export const parseRemoteVersion = (stdout: string): string | null => {
  const line = stdout.trim().split('\n')[0]?.trim() ?? ''
  return /^v?\d{1,6}\.\d{1,6}\.\d{1,6}(?:[-+][0-9A-Za-z.+-]{1,40})?$/.test(line) ? line.replace(/^v/, '') : null
}

/** Why a PATH lacks trailboss (or node) over ssh, and where each shell reads a PATH it keeps then. */
const pathFix = (dest: string, missing: 'trailboss' | 'node'): string =>
  `ssh runs commands in a non-interactive shell, whose PATH lacks what your login shell adds (nvm, npm's global folder). ` +
  `On ${dest}, put the folder of ${missing} on the PATH there: for zsh in ~/.zshenv; for bash at the top of ~/.bashrc, before the line that returns when not interactive; ` +
  `or, from a login shell there, link it into a folder that PATH has: sudo ln -s "$(command -v ${missing})" /usr/local/bin/. ` +
  `Check with: ssh ${dest} trailboss --version`

const failOf = (id: string, summary: string, fix: string): Check => ({ id, status: 'fail', summary, fix })

/** Pure: why the first question could not be asked, graded: set up wrong (fail) or no answer (warn). */
const checkUnreached = (id: string, dest: string, r: Extract<SshResult, { ok: false }>): Check => {
  const said = formatVisible(r.message)
  const tryIt = `check by hand: ssh -o BatchMode=yes ${dest} trailboss --version`
  switch (r.reason) {
    case 'no-ssh':
      return failOf(id, `${dest}: ssh cannot be run here`, 'install the OpenSSH client (ssh) and put it on PATH')
    case 'timeout':
      return {
        id,
        status: 'warn',
        summary: `${dest}: no answer within the bound (${said}); its waits show as stale until it answers`,
        fix: `is it up and reachable? ${tryIt}; if it is gone for good: trailboss hosts rm ${dest}`,
      }
    case 'too-big':
      return failOf(id, `${dest}: its trailboss --version answered with too much (${said})`, tryIt)
    case 'connect':
      if (AUTH.test(r.stderr))
        return failOf(
          id,
          `${dest}: ssh cannot log in without a prompt (${said})`,
          `Trail Boss never types a password: give ssh a key it can use unasked (ssh-copy-id ${dest}, then ssh-add, or IdentityFile in ~/.ssh/config); ${tryIt}`,
        )
      if (HOST_KEY.test(r.stderr))
        return failOf(
          id,
          `${dest}: its host key is not known, or changed (${said})`,
          `connect once yourself and check the key it shows before you accept it: ssh ${dest}; a changed key needs you to find out why first`,
        )
      if (NO_NAME.test(r.stderr))
        return failOf(
          id,
          `${dest}: ssh does not know this name (${said})`,
          `check the name, or give it a Host block in ~/.ssh/config; ${tryIt}`,
        )
      if (SSH_CONFIG.test(r.stderr))
        return failOf(id, `${dest}: ssh refused its configuration (${said})`, `fix the ssh configuration it names; ${tryIt}`)
      return {
        id,
        status: 'warn',
        summary: `${dest}: did not answer (${said}); its waits show as stale until it answers`,
        fix: `is it up and reachable? ${tryIt}; if it is gone for good: trailboss hosts rm ${dest}`,
      }
    case 'exit':
      if (NO_NODE.test(r.stderr))
        return failOf(id, `${dest}: trailboss is there but node is not on the PATH ssh commands get (${said})`, pathFix(dest, 'node'))
      if (r.code === 127 || NOT_FOUND.test(r.stderr))
        return failOf(id, `${dest}: trailboss is not on the PATH ssh commands get (${said || 'exit 127'})`, pathFix(dest, 'trailboss'))
      return failOf(
        id,
        `${dest}: trailboss --version failed there (${said})`,
        `run it there to see why: ssh ${dest} trailboss --version; reinstall it: ${UPDATE_THERE}`,
      )
  }
}

/**
 * Pure: one host's verdict. `here` is this machine's version. Reached, found and readable is ok;
 * another version whose `ls --json` reads fine is a warning (newer commands, like ok/no's guard,
 * may be refused by the older side).
 */
export const checkHost = (probe: HostProbe, here: string): Check => {
  const dest = formatVisible(probe.destination)
  const id = `host:${probe.destination}`
  if (!probe.version.ok) return checkUnreached(id, dest, probe.version)
  const there = parseRemoteVersion(probe.version.stdout)
  const theirs = there ? `trailboss ${there}` : 'a trailboss that gives no version'
  const older = there !== null && compareVersions(there, here) < 0
  const update = `update Trail Boss on ${dest} (it runs ${theirs}, this machine ${here}): ${UPDATE_THERE} there`
  const ls = probe.listing
  if (ls === null || !ls.ok) {
    if (ls?.reason === 'timeout' || ls?.reason === 'connect')
      return {
        id,
        status: 'warn',
        summary: `${dest}: runs ${theirs}, but its queue did not come within the bound (${formatVisible(ls.message)}); ls shows it stale`,
        fix: `check by hand: ssh ${dest} trailboss ls --json --local`,
      }
    const said = ls ? formatVisible(ls.message) : 'not asked'
    return failOf(
      id,
      `${dest}: runs ${theirs}, but its trailboss ls --json --local failed (${said})`,
      older || there === null ? update : `run it there to see why: ssh ${dest} trailboss ls --json --local`,
    )
  }
  const answer = probe.answer
  if (answer === null) return failOf(id, `${dest}: its queue was not checked`, `run it there: ssh ${dest} trailboss ls --json --local`)
  if (!answer.ok)
    return failOf(
      id,
      `${dest}: runs ${theirs}, whose queue cannot be read here: ${answer.why}`,
      older || there === null || /version/.test(answer.why)
        ? update
        : `run it there to see what it prints: ssh ${dest} trailboss ls --json --local`,
    )
  const waits = answer.listing.queue.length
  const read = `reached without a prompt, ${theirs}, its queue read (${waits} item${waits === 1 ? '' : 's'})`
  if (there === null || compareVersions(there, here) !== 0) {
    return {
      id,
      status: 'warn',
      summary: `${dest}: ${read}; this machine runs ${here}`,
      fix: older || there === null ? update : `update Trail Boss here to ${there}: ${UPDATE_THERE}`,
    }
  }
  return { id, status: 'ok', summary: `${dest}: ${read}`, fix: null }
}
