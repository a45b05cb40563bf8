// Pure: what an `ssh` command line running in a pane connects to, read from its argv as OpenSSH
// reads it, so `go` can find a pane already connected to a host (docs/design.md §10.4).
import { basename } from 'node:path'

/**
 * OpenSSH's options that take a value (its getopt string, ssh.c in OpenSSH 9.x):
 * `-p 22`, `-p22` and `-oX=y` alike.
 */
const WITH_VALUE = new Set('bceilmopBDEFIJLOPQRSwW'.split(''))
/** Modes in which ssh opens no session of its own (control, query, config, stdio forwarding, none, background). */
const NO_SESSION = new Set('OQGVWNfs'.split(''))

export interface SshCommand {
  /** The destination word as given: `devbox`, `user@devbox`, `ssh://user@devbox:2222`. */
  destination: string
  /** `-l`'s login, if any. */
  login: string | null
  /** What runs on the host; empty: a login shell. */
  command: string[]
}

/**
 * Pure: an ssh command line (argv[0] included), or null when it is not `ssh` or opens no session.
 * Like OpenSSH, options may also follow the destination, up to the first word of the command.
 */
export const parseSshCommand = (argv: readonly string[]): SshCommand | null => {
  if (argv.length === 0 || basename(argv[0] ?? '') !== 'ssh') return null
  let destination: string | null = null
  let login: string | null = null
  let i = 1
  while (i < argv.length) {
    const word = argv[i] ?? ''
    if (word === '--') {
      i++
      if (destination !== null) break
      destination = argv[i] ?? null
      i++
      continue
    }
    if (word.startsWith('-') && word.length > 1) {
      // A cluster of flags; the first that takes a value takes the rest of the word or the next one.
      for (let k = 1; k < word.length; k++) {
        const flag = word[k] ?? ''
        if (NO_SESSION.has(flag)) return null
        if (WITH_VALUE.has(flag)) {
          const value = k + 1 < word.length ? word.slice(k + 1) : argv[++i]
          if (value === undefined) return null
          if (flag === 'l') login = value
          break
        }
      }
      i++
      continue
    }
    if (destination !== null) break
    destination = word
    i++
  }
  if (destination === null || destination === '') return null
  return { destination, login, command: argv.slice(i) }
}

/** Pure: whether the command connects to `destination`, named as `hosts add` named it. */
export const reachesDestination = (cmd: SshCommand, destination: string): boolean =>
  cmd.destination === destination ||
  (cmd.login !== null && !cmd.destination.includes('@') && `${cmd.login}@${cmd.destination}` === destination)
