// A remote host is named by the ssh destination the person gave `hosts add`: whatever their ssh
// configuration knows (`devbox`, `me@devbox`, `me@[fe80::1%eth0]`). The name reaches ssh's
// argument list and names things of ours, so only a plain destination word is accepted.
// Pure; node:crypto is loaded only when a hash is asked for.

import { LOCAL_LABEL } from '../render/host-line.js'

/** ssh reads longer names as something else, and no host name is longer (RFC 1035: 253). */
export const DESTINATION_MAX = 253

// Letters, digits and what user@host, IPv6 in brackets and zone ids (%eth0) need. Nothing a shell
// or ssh would read as more than a name: no space, control, quote, `$`, `;`, `/` or `=`.
const DESTINATION_CHARS = /^[A-Za-z0-9._@:%[\]-]+$/

/**
 * Null when `s` may be a destination, else a short reason. A remote wait's key is
 * `<destination>:<key>`; a destination may hold ':' itself (IPv6), but a local key never does
 * (it is a session-id prefix, [A-Za-z0-9_-]), so such a key splits at its last ':'.
 */
/** This machine's name in `--host` and the HOST column: never a destination. */
export const LOCAL_HOST = LOCAL_LABEL

export const checkDestination = (s: string): string | null => {
  if (s.length === 0) return 'empty'
  if (s.length > DESTINATION_MAX) return `longer than ${DESTINATION_MAX} characters`
  // ssh would take it for an option (-oProxyCommand=… runs a command).
  if (s.startsWith('-')) return 'starts with -'
  if (!DESTINATION_CHARS.test(s)) return 'has a character other than letters, digits and . _ @ : % [ ] -'
  if (s === LOCAL_HOST)
    return `${LOCAL_HOST} names this machine (in --host and the HOST column); give the host another name in your ssh config`
  return null
}

/** 12 hex digits of the destination's sha256: a name for per-host files that any destination fits. */
export const destinationHash = (d: string): string =>
  process.getBuiltinModule('node:crypto').createHash('sha256').update(d, 'utf8').digest('hex').slice(0, 12)
