// Which local TCP port a process's connection leaves from, read from /proc: its open files
// (`/proc/<pid>/fd/*` → `socket:[inode]`) matched against the kernel's socket tables
// (`/proc/net/tcp`, `/proc/net/tcp6`). `go` sends it to another host, whose sshd names the same
// port in the session's SSH_CONNECTION (docs/design.md §10.4). Linux only; elsewhere: null.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** One row of /proc/net/tcp{,6}: the ports are numbers, the state the kernel's code. */
export interface TcpSocket {
  inode: number
  localPort: number
  remotePort: number
  state: number
}

/** The kernel's TCP states we tell apart (include/net/tcp_states.h). */
export const TCP_ESTABLISHED = 0x01
export const TCP_LISTEN = 0x0a

const portOf = (address: string): number => Number.parseInt(address.slice(address.lastIndexOf(':') + 1), 16)

/** Pure: the rows of /proc/net/tcp or tcp6 (the header and any unreadable row skipped). */
export const parseProcNetTcp = (text: string): TcpSocket[] =>
  text.split('\n').flatMap((line) => {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    const f = line.trim().split(/\s+/)
    if (f.length < 10 || !/^\d+:$/.test(f[0] ?? '')) return []
    const [local = '', remote = '', state = ''] = f.slice(1, 4)
    const socket = { inode: Number(f[9]), localPort: portOf(local), remotePort: portOf(remote), state: Number.parseInt(state, 16) }
    return Object.values(socket).every(Number.isInteger) ? [socket] : []
  })

/** Pure: the inode of a `/proc/<pid>/fd/<n>` link that is a socket, else null. */
export const parseSocketInode = (link: string): number | null => {
  const m = /^socket:\[(\d+)\]$/.exec(link)
  return m ? Number(m[1]) : null
}

/**
 * Pure: the local port of the process's first established TCP connection, its sockets given in
 * file-descriptor order. ssh opens its connection to the server before any forward, so the first
 * one is it; a connection accepted on one of its own listening ports (`-L`, `-D`) is a forward,
 * never the server. Null when it has none (a ProxyCommand or ProxyJump pipe, a ControlMaster's
 * Unix socket).
 */
export const deriveConnectionPort = (inodes: readonly number[], sockets: readonly TcpSocket[]): number | null => {
  const byInode = new Map(sockets.map((s) => [s.inode, s]))
  const mine = inodes.flatMap((i) => {
    const s = byInode.get(i)
    return s ? [s] : []
  })
  const listening = new Set(mine.filter((s) => s.state === TCP_LISTEN).map((s) => s.localPort))
  return mine.find((s) => s.state === TCP_ESTABLISHED && !listening.has(s.localPort))?.localPort ?? null
}

const readText = (path: string): string => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

/** The local port of `pid`'s connection (our own user's processes only); null when there is none or /proc says nothing. */
export const readConnectionPort = (pid: number): number | null => {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return null
  }
  const inodes = fds
    .filter((n) => /^\d+$/.test(n))
    .sort((a, b) => Number(a) - Number(b))
    .flatMap((n) => {
      try {
        const inode = parseSocketInode(readlinkSync(`/proc/${pid}/fd/${n}`))
        return inode === null ? [] : [inode]
      } catch {
        return []
      }
    })
  if (inodes.length === 0) return null
  // The tables of the process's own network namespace, as it sees them.
  const sockets = [...parseProcNetTcp(readText(`/proc/${pid}/net/tcp`)), ...parseProcNetTcp(readText(`/proc/${pid}/net/tcp6`))]
  return deriveConnectionPort(inodes, sockets)
}
