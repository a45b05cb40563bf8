// The local port of a process's TCP connection, from /proc (lib/proc/tcp-port.ts): the parsers
// with captured text, and the reader on this process's own real sockets.
import { once } from 'node:events'
import { createServer, connect, type AddressInfo } from 'node:net'
import t from 'tap'
import {
  deriveConnectionPort,
  parseProcNetTcp,
  parseSocketInode,
  readConnectionPort,
  TCP_ESTABLISHED,
  TCP_LISTEN,
} from '../lib/proc/tcp-port.js'

// Captured from /proc/net/tcp and tcp6 (Linux 6.x), trimmed to a few rows.
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 7001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:C488 0100007F:0016 01 00000000:00000000 02:0009D7A1 00000000  1000        0 7002 2 0000000000000000 20 4 30 10 -1
   2: 0100007F:1F90 0100007F:D000 01 00000000:00000000 00:00000000 00000000  1000        0 7003 1 0000000000000000 20 4 30 10 -1
`
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:B3B0 00000000000000000000000001000000:0016 01 00000000:00000000 00:00000000 00000000  1000        0 7004 1 0000000000000000 20 4 0 10 -1
`

t.test('rows of /proc/net/tcp and tcp6: ports in hex, state, inode', async (t) => {
  t.same(parseProcNetTcp(TCP), [
    { inode: 7001, localPort: 8080, remotePort: 0, state: TCP_LISTEN },
    { inode: 7002, localPort: 50312, remotePort: 22, state: TCP_ESTABLISHED },
    { inode: 7003, localPort: 8080, remotePort: 53248, state: TCP_ESTABLISHED },
  ])
  t.same(parseProcNetTcp(TCP6), [{ inode: 7004, localPort: 46000, remotePort: 22, state: TCP_ESTABLISHED }])
  t.same(parseProcNetTcp(''), [])
  t.same(parseProcNetTcp('   0: garbage\n'), [])
})

t.test('a socket link names its inode; other links none', async (t) => {
  t.equal(parseSocketInode('socket:[7002]'), 7002)
  t.equal(parseSocketInode('pipe:[7002]'), null)
  t.equal(parseSocketInode('/dev/pts/3'), null)
  t.equal(parseSocketInode('anon_inode:[eventpoll]'), null)
})

t.test("the connection's port: the first established one that is not a forward accepted on a listening port", async (t) => {
  const rows = [...parseProcNetTcp(TCP), ...parseProcNetTcp(TCP6)]
  t.equal(deriveConnectionPort([7002], rows), 50312)
  t.equal(deriveConnectionPort([7001, 7003, 7002], rows), 50312, 'a -L forward accepted on 8080 is not the server')
  t.equal(deriveConnectionPort([7004, 7002], rows), 46000, 'the first in fd order, IPv6 too')
  t.equal(deriveConnectionPort([7001], rows), null, 'listening only')
  t.equal(deriveConnectionPort([9999], rows), null, 'a Unix socket (a ControlMaster) is in neither table')
  t.equal(deriveConnectionPort([], rows), null)
})

t.test("this process's own connection, read from /proc", async (t) => {
  const server = createServer((s) => s.on('error', () => undefined))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  // A listening socket alone is no connection.
  t.equal(readConnectionPort(process.pid), null)
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
  await once(client, 'connect')
  t.teardown(() => client.destroy())
  // The process holds both ends: the client's end is the first established one not on a listening port.
  t.equal(readConnectionPort(process.pid), client.localPort)
  t.equal(readConnectionPort(2 ** 22 + 12345), null, 'no such process')
})
