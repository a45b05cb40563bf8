// trailboss hosts add|rm|ls: the list of remote hosts whose queues join this one
// (docs/design.md §10.2). Adding contacts nothing: doctor checks each host. Removing also ends the
// host's ssh master, the one process of ours that may outlive a command.
import { EXIT_FAILURE, EXIT_OK } from '../errors.js'
import type { Io } from '../io.js'
import type { HostsArgs, HostsLsArgs } from '../options/tables.js'
import { addHost, readHostEntries, removeHost } from '../remote/hosts-file.js'
import { closeMaster } from '../remote/ssh-run.js'
import { formatJson } from '../render/json-text.js'
import { formatVisible } from '../text/visible-text.js'

/** The version of `hosts ls --json`'s document. */
export const HOSTS_JSON_VERSION = 1

/** proper-lockfile makes its lock folder (hosts.json.lock) with the default mode, as in gc. */
const privateUmask = (): void => void process.umask(0o077)

export const runHostsAdd = async (args: HostsArgs, io: Io): Promise<number> => {
  privateUmask()
  const got = await addHost(io.env, args.destination, io.now())
  io.stdout.write(
    got === 'added' ? `added ${args.destination}; check it with: trailboss doctor\n` : `${args.destination} is listed already\n`,
  )
  return EXIT_OK
}

export const runHostsRm = async (args: HostsArgs, io: Io): Promise<number> => {
  privateUmask()
  const got = await removeHost(io.env, args.destination)
  // Even for a name no longer listed: a master of it may still run (the list edited by hand).
  await closeMaster(io.env, args.destination)
  io.stdout.write(got === 'removed' ? `removed ${args.destination}\n` : `${args.destination} is not listed\n`)
  return EXIT_OK
}

export const runHostsLs = async (args: HostsLsArgs, io: Io): Promise<number> => {
  const { hosts, problem } = readHostEntries(io.env)
  if (problem) {
    // Nothing on stdout: a script must not take a list it cannot read for an empty one.
    io.stderr.write(`${formatVisible(`trailboss: ${problem} — the file is left as it is: fix it or move it away`)}\n`)
    return EXIT_FAILURE
  }
  if (args.json) {
    io.stdout.write(
      `${formatJson({ version: HOSTS_JSON_VERSION, hosts: hosts.map((h) => ({ destination: h.destination, addedAt: h.addedAt })) }, 2)}\n`,
    )
  } else {
    for (const h of hosts) io.stdout.write(`${h.destination}\n`)
    if (hosts.length === 0 && io.stdout.isTTY) io.stdout.write('no remote hosts; add one with: trailboss hosts add <destination>\n')
  }
  return EXIT_OK
}
