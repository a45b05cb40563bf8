// A read-only reader of the few tables we need from OpenCode's SQLite database, in plain
// TypeScript: Node 20 has no SQLite, and a native module or the `sqlite3` program would be a new
// requirement. OpenCode 1.18.33 runs its database in WAL mode and leaves most of it in the
// `-wal` file (even after it exits), so pages are looked up there first (the last committed
// frame of each, checksums verified) and in the main file otherwise. Nothing is ever written:
// no lock, no `-shm`, no checkpoint. A read that races a checkpoint may see a mix of two
// versions; every step is bounds-checked, so that ends in null, never in a wrong row.
// File format: https://www.sqlite.org/fileformat2.html (pages, cells, records, WAL frames).
import { readRange, isRefusal, withRegularFile } from '../../fs/safe-file.js'

/** A WAL above this is not read: OpenCode's checkpoints keep it to a few MB. */
export const WAL_READ_CAP = 64 * 1024 * 1024
/** At most this many pages per scan: a bound on the cost of one check, whatever the database. */
export const SCAN_PAGE_CAP = 50_000

export type SqlValue = null | number | bigint | string | Uint8Array

const HEADER = 'SQLite format 3\0'
const WAL_MAGIC_LE = 0x377f0682
const WAL_MAGIC_BE = 0x377f0683

/** Thrown inside a read when the bytes are not what the format says; the read then gives null. */
class Malformed extends Error {}
const check = (ok: boolean, why: string): void => {
  if (!ok) throw new Malformed(why)
}

/** Pure: SQLite's varint at `at`: its value and length (1–9 bytes, big-endian, 7 bits a byte but the 9th). */
export const readVarint = (buf: Uint8Array, at: number): { value: number; length: number } => {
  let v = 0n
  for (let i = 0; i < 9; i++) {
    const b = buf[at + i]
    check(b !== undefined, 'varint past the end')
    if (i === 8) return { value: Number((v << 8n) | BigInt(b!)), length: 9 }
    v = (v << 7n) | BigInt(b! & 0x7f)
    if ((b! & 0x80) === 0) return { value: Number(v), length: i + 1 }
  }
  throw new Malformed('varint')
}

/** Pure: the WAL's checksum of 8-byte-aligned `data`, continuing from `s`, words read in `bigEndian` order. */
const walChecksum = (data: Buffer, s: [number, number], bigEndian: boolean): [number, number] => {
  let [s0, s1] = s
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i)
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4)
    s0 = (s0 + x0 + s1) >>> 0
    s1 = (s1 + x1 + s0) >>> 0
  }
  return [s0, s1]
}

/**
 * Pure: the pages a WAL holds as of its last whole transaction: page number → offset of its
 * newest committed copy in `wal`, and the database's size in pages then (null: no commit, the
 * main file alone counts). Frames after the last valid commit frame, or of an older generation
 * of the file (other salts), do not count.
 */
export const parseWal = (wal: Buffer, pageSize: number): { pages: Map<number, number>; dbPages: number | null } => {
  const none = { pages: new Map<number, number>(), dbPages: null }
  if (wal.length < 32) return none
  const magic = wal.readUInt32BE(0)
  if (magic !== WAL_MAGIC_LE && magic !== WAL_MAGIC_BE) return none
  const bigEndian = magic === WAL_MAGIC_BE
  if (wal.readUInt32BE(8) !== pageSize) return none
  const salt1 = wal.readUInt32BE(16)
  const salt2 = wal.readUInt32BE(20)
  let sum = walChecksum(wal.subarray(0, 24), [0, 0], bigEndian)
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return none
  const pending = new Map<number, number>()
  const pages = new Map<number, number>()
  let dbPages: number | null = null
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break
    sum = walChecksum(wal.subarray(at, at + 8), sum, bigEndian)
    sum = walChecksum(wal.subarray(at + 24, at + 24 + pageSize), sum, bigEndian)
    if (sum[0] !== wal.readUInt32BE(at + 16) || sum[1] !== wal.readUInt32BE(at + 20)) break
    pending.set(wal.readUInt32BE(at), at + 24)
    const commitSize = wal.readUInt32BE(at + 4)
    if (commitSize !== 0) {
      for (const [n, off] of pending) pages.set(n, off)
      pending.clear()
      dbPages = commitSize
    }
  }
  return { pages, dbPages }
}

/** One database, as of the moment it was opened: its pages by number. */
export interface SqliteDb {
  /** The usable bytes of a page (its size less the bytes reserved at its end). */
  usable: number
  page: (n: number) => Buffer
}

interface Cell {
  rowid: number
  /** The payload's first bytes, kept on the leaf page. */
  local: Buffer
  size: number
  /** The first overflow page (0: none). */
  overflow: number
}

/** Pure (given the pages): a table leaf's payload split into its local part and overflow chain. */
const leafCell = (db: SqliteDb, page: Buffer, at: number): Cell => {
  const size = readVarint(page, at)
  const rowid = readVarint(page, at + size.length)
  const start = at + size.length + rowid.length
  const u = db.usable
  const x = u - 35
  let local = size.value
  if (size.value > x) {
    const m = Math.floor(((u - 12) * 32) / 255) - 23
    const k = m + ((size.value - m) % (u - 4))
    local = k <= x ? k : m
  }
  check(start + local <= page.length, 'cell past its page')
  const overflow = local < size.value ? page.readUInt32BE(start + local) : 0
  return { rowid: rowid.value, local: page.subarray(start, start + local), size: size.value, overflow }
}

/** A cell's whole payload: its local part and its overflow pages. */
const wholePayload = (db: SqliteDb, cell: Cell): Buffer => {
  if (cell.overflow === 0) return cell.local
  const parts = [cell.local]
  let got = cell.local.length
  const seen = new Set<number>()
  for (let n = cell.overflow; n !== 0 && got < cell.size;) {
    check(!seen.has(n), 'overflow chain loops')
    seen.add(n)
    const p = db.page(n)
    const take = Math.min(db.usable - 4, cell.size - got)
    parts.push(p.subarray(4, 4 + take))
    got += take
    n = p.readUInt32BE(0)
  }
  check(got === cell.size, 'overflow chain too short')
  return Buffer.concat(parts)
}

/** Pure: the length of a value of serial type `t` in a record's body. */
const serialLength = (t: number): number => {
  if (t >= 12) return Math.floor((t - 12) / 2)
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][t]!
}

const decodeValue = (buf: Buffer, at: number, t: number): SqlValue => {
  check(at + serialLength(t) <= buf.length, 'value past its payload')
  switch (t) {
    case 0:
      return null
    case 1:
      return buf.readInt8(at)
    case 2:
      return buf.readInt16BE(at)
    case 3:
      return buf.readIntBE(at, 3)
    case 4:
      return buf.readInt32BE(at)
    case 5:
      return buf.readIntBE(at, 6)
    case 6: {
      const v = buf.readBigInt64BE(at)
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
    }
    case 7:
      return buf.readDoubleBE(at)
    case 8:
      return 0
    case 9:
      return 1
    default:
      check(t >= 12, 'reserved serial type')
      return t % 2 === 0 ? buf.subarray(at, at + serialLength(t)) : buf.toString('utf8', at, at + serialLength(t))
  }
}

/** A row of a table: its values by column name, decoded when asked (a long one reads its overflow pages). */
export interface Row {
  rowid: number
  get: (column: string) => SqlValue
}

const rowOf = (db: SqliteDb, cell: Cell, columns: readonly string[]): Row => {
  let payload: Buffer | null = null
  const head = readVarint(cell.local, 0)
  const types: number[] = []
  for (let at = head.length; at < head.value;) {
    const t = readVarint(cell.local, at)
    types.push(t.value)
    at += t.length
  }
  const offsets: number[] = []
  let off = head.value
  for (const t of types) {
    offsets.push(off)
    off += serialLength(t)
  }
  return {
    rowid: cell.rowid,
    get: (column) => {
      const i = columns.indexOf(column)
      // A column added after the row was written: its default, which for ours is null.
      if (i < 0 || i >= types.length) return null
      const t = types[i]!
      const end = offsets[i]! + serialLength(t)
      if (end > cell.local.length) payload ??= wholePayload(db, cell)
      return decodeValue(end > cell.local.length ? payload! : cell.local, offsets[i]!, t)
    },
  }
}

/**
 * Visits a table's rows from the b-tree rooted at `root`, newest rowid first when `reverse`
 * (OpenCode's ids only grow: the latest rows are met first), until `visit` returns false.
 */
const walkTable = (db: SqliteDb, root: number, columns: readonly string[], reverse: boolean, visit: (row: Row) => boolean): void => {
  let budget = SCAN_PAGE_CAP
  const walk = (n: number, depth: number): boolean => {
    check(depth < 40 && --budget > 0, 'b-tree too deep or too large')
    const page = db.page(n)
    const h = n === 1 ? 100 : 0
    const kind = page[h]
    const count = page.readUInt16BE(h + 3)
    if (kind === 0x0d) {
      for (let i = 0; i < count; i++) {
        const k = reverse ? count - 1 - i : i
        const cell = leafCell(db, page, page.readUInt16BE(h + 8 + 2 * k))
        if (!visit(rowOf(db, cell, columns))) return false
      }
      return true
    }
    check(kind === 0x05, `page ${n} is not of a table`)
    const children = Array.from({ length: count }, (_, i) => page.readUInt32BE(page.readUInt16BE(h + 12 + 2 * i)))
    children.push(page.readUInt32BE(h + 8))
    if (reverse) children.reverse()
    for (const c of children) if (!walk(c, depth + 1)) return false
    return true
  }
  walk(root, 0)
}

/** Pure: the column names of a `CREATE TABLE` statement (constraints left out). */
export const parseColumns = (sql: string): string[] => {
  const body = sql.slice(sql.indexOf('(') + 1, sql.lastIndexOf(')'))
  const defs: string[] = []
  let depth = 0
  let from = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === ',' && depth === 0) {
      defs.push(body.slice(from, i))
      from = i + 1
    }
  }
  defs.push(body.slice(from))
  return defs.flatMap((d) => {
    const m = /^\s*(?:`([^`]+)`|"([^"]+)"|\[([^\]]+)\]|([A-Za-z_][\w$]*))/.exec(d)
    const name = m ? (m[1] ?? m[2] ?? m[3] ?? m[4]!) : null
    if (name === null) return []
    return m?.[4] !== undefined && /^(constraint|primary|unique|check|foreign)$/i.test(name) ? [] : [name]
  })
}

/** A table's root page and columns, from the schema (page 1). */
const findTable = (db: SqliteDb, name: string): { root: number; columns: string[] } | null => {
  let found: { root: number; columns: string[] } | null = null
  walkTable(db, 1, ['type', 'name', 'tbl_name', 'rootpage', 'sql'], false, (row) => {
    if (row.get('type') !== 'table' || row.get('name') !== name) return true
    const root = row.get('rootpage')
    const sql = row.get('sql')
    if (typeof root === 'number' && typeof sql === 'string') found = { root, columns: parseColumns(sql) }
    return false
  })
  return found
}

/** A read of one or more tables of one database, as of one moment. */
export interface SqliteReader {
  /** Rows of `table`, newest first when `reverse`, until `visit` says stop; false when there is no such table. */
  scan: (table: string, reverse: boolean, visit: (row: Row) => boolean) => boolean
}

/** Reads the `-wal` beside `dbPath`, whole; null when there is none (or it is too large to read). */
const readWal = (walPath: string): Buffer | null | 'too-large' => {
  const got = withRegularFile(walPath, { ownOnly: true }, (fd, st) => (st.size > WAL_READ_CAP ? 'too-large' : readRange(fd, 0, st.size)))
  return isRefusal(got) ? null : got
}

/**
 * Opens the database at `dbPath` (and its `-wal`) read-only, hands `use` a reader and returns
 * its result; null when it is missing, not ours, not SQLite or not as the format says.
 */
export const withSqlite = <T>(dbPath: string, use: (db: SqliteReader) => T): T | null => {
  try {
    const wal = readWal(`${dbPath}-wal`)
    if (wal === 'too-large') return null
    const got = withRegularFile(dbPath, { ownOnly: true }, (fd, st) => {
      // The main file's first page may be older than the WAL's copy of it (a new database's
      // file holds no schema yet): its page size is read there, the rest from page 1 as it is now.
      const main = readRange(fd, 0, Math.min(100, st.size))
      check(main.length === 100 && main.toString('latin1', 0, 16) === HEADER, 'not a SQLite database')
      const raw = main.readUInt16BE(16)
      const pageSize = raw === 1 ? 65536 : raw
      check(pageSize >= 512 && (pageSize & (pageSize - 1)) === 0, 'page size')
      const fromWal = wal ? parseWal(wal, pageSize) : { pages: new Map<number, number>(), dbPages: null }
      const pages = fromWal.dbPages ?? Math.floor(st.size / pageSize)
      const first = fromWal.pages.get(1)
      const head = first !== undefined ? wal!.subarray(first, first + 100) : main
      // 0: no table yet, so no text either; 1: UTF-8, the only one read.
      check(head.readUInt32BE(56) <= 1, 'text not in UTF-8')
      const cache = new Map<number, Buffer>()
      const db: SqliteDb = {
        usable: pageSize - head[20]!,
        page: (n) => {
          check(n >= 1 && n <= pages, `page ${n} out of range`)
          let p = cache.get(n)
          if (p) return p
          const off = fromWal.pages.get(n)
          p = off !== undefined ? wal!.subarray(off, off + pageSize) : readRange(fd, (n - 1) * pageSize, pageSize)
          check(p.length === pageSize, `page ${n} cut short`)
          cache.set(n, p)
          return p
        },
      }
      return use({
        scan: (table, reverse, visit) => {
          const t = findTable(db, table)
          if (!t) return false
          walkTable(db, t.root, t.columns, reverse, visit)
          return true
        },
      })
    })
    return isRefusal(got) ? null : got
  } catch (err) {
    if (err instanceof Malformed || err instanceof RangeError) return null
    throw err
  }
}
