// OpenCode's own record of a session, read from a SQLite database as 1.18.33 writes it (a real
// one, shrunk, with a turn stopped by Esc added in its WAL: test/fixtures/opencode/db/), and
// the verdicts of the check on read.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { deriveOpencodeConversation, readOpencodeConversation } from '../lib/agents/opencode/conversation.js'
import { parseColumns, withSqlite } from '../lib/agents/opencode/sqlite.js'
import { deriveStoreEntries, deriveStoreVerdict, readSessionTail, type SessionTail } from '../lib/agents/opencode/store.js'

const FIXTURES = join(import.meta.dirname, 'fixtures', 'opencode', 'db')
const SESSION = 'ses_dc6fff6ccffeXR3geVcE7GFwtW'

/** The fixture in a folder of the test's own: the reader reads only files of the user's. */
const copyDb = (t: Test, withWal: boolean): string => {
  const dir = t.testdir()
  copyFileSync(join(FIXTURES, 'aborted.db'), join(dir, 'opencode.db'))
  if (withWal) copyFileSync(join(FIXTURES, 'aborted.db-wal'), join(dir, 'opencode.db-wal'))
  return join(dir, 'opencode.db')
}

t.test('the main file alone: the first turn', (t) => {
  const tail = readSessionTail(copyDb(t, false), SESSION, { messages: 10 })
  t.same(
    tail?.messages.map((m) => [m.role, m.error]),
    [
      ['user', null],
      ['assistant', null],
    ],
  )
  t.same(
    deriveOpencodeConversation(tail!).map((l) => [l.who, l.text]),
    [
      ['you', '"PLAIN hi"'],
      ['agent', 'plain answer'],
    ],
  )
  t.end()
})

t.test('the WAL is read: the turn stopped by Esc, its long prompt from overflow pages', (t) => {
  const db = copyDb(t, true)
  const tail = readSessionTail(db, SESSION, { since: 1796252701000 })
  t.same(
    tail?.messages.map((m) => [m.role, m.error?.name ?? null]),
    [
      ['user', null],
      ['assistant', 'MessageAbortedError'],
    ],
    'read back to the prompt of the turn that ran at `since`',
  )
  const prompt = tail?.parts.find((p) => p.id === 'prt_2391aaaa0002')
  t.equal(prompt?.data.text, `SLOW please ${'x'.repeat(5000)}`)
  const entries = deriveStoreEntries(tail!, null)
  t.same(deriveStoreVerdict(entries, { state: 'working', since: 1796252701000 }), { verdict: 'interrupted', at: 1796252705000 })
  t.equal(deriveStoreVerdict(entries, { state: 'working', since: 1796252706000 }), null, 'nothing after the state began')
  t.same(readOpencodeConversation(db, SESSION, 1), [{ who: 'agent', text: 'interrupted', at: new Date(1796252705000).toISOString() }])
  t.end()
})

t.test('a WAL whose frames do not check out is not read', (t) => {
  const db = copyDb(t, true)
  const wal = `${db}-wal`
  const bytes = readFileSync(wal)
  // A byte of the first frame's page changed: its checksum fails, so no frame counts.
  bytes[32 + 24 + 100] = bytes[32 + 24 + 100]! ^ 0xff
  writeFileSync(wal, bytes)
  t.same(
    readSessionTail(db, SESSION, { messages: 10 })?.messages.map((m) => m.role),
    ['user', 'assistant'],
    'the main file as it was',
  )
  t.end()
})

t.test('not a database, or none: null', (t) => {
  const dir = t.testdir({ 'opencode.db': 'not sqlite at all, just text long enough to have a header of a hundred bytes'.repeat(3) })
  t.equal(
    withSqlite(join(dir, 'opencode.db'), () => 1),
    null,
  )
  t.equal(
    withSqlite(join(dir, 'missing.db'), () => 1),
    null,
  )
  t.end()
})

t.test('parseColumns', (t) => {
  t.same(
    parseColumns(
      'CREATE TABLE `part` (\n `id` text PRIMARY KEY,\n `data` text NOT NULL,\n CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `m`(`id`)\n)',
    ),
    ['id', 'data'],
  )
  t.same(parseColumns('CREATE TABLE x (a INTEGER, "b c" TEXT DEFAULT (1 + 2), PRIMARY KEY (a, "b c"))'), ['a', 'b c'])
  t.end()
})

t.test('deriveStoreVerdict: the first entry after the state began that tells', (t) => {
  const tail = (status: string): SessionTail => ({
    messages: [{ id: 'm1', role: 'user', created: 100, updated: 100, error: null }],
    parts: [{ id: 'p1', messageId: 'm1', created: 150, updated: 300, data: { type: 'tool', callID: 'call_1', state: { status } } }],
  })
  const q = { state: 'permission' as const, since: 200 }
  t.same(deriveStoreVerdict(deriveStoreEntries(tail('completed'), 'call_1'), q), { verdict: 'moved-on', at: 300, why: 'tool-answered' })
  t.same(deriveStoreVerdict(deriveStoreEntries(tail('error'), 'call_1'), q), { verdict: 'interrupted', at: 300 })
  t.equal(deriveStoreVerdict(deriveStoreEntries(tail('running'), 'call_1'), q), null, 'the dialog is still up')
  t.equal(deriveStoreVerdict(deriveStoreEntries(tail('completed'), 'call_2'), q), null, 'another call')
  const failed: SessionTail = {
    messages: [{ id: 'm2', role: 'assistant', created: 150, updated: 400, error: { name: 'APIError', message: 'boom' } }],
    parts: [],
  }
  t.same(deriveStoreVerdict(deriveStoreEntries(failed, null), { state: 'working', since: 200 }), {
    verdict: 'error',
    at: 400,
    message: 'boom',
  })
  t.equal(deriveStoreVerdict(deriveStoreEntries(failed, null), { state: 'waiting', since: 200 }), null, 'a wait is not failed again')
  const prompt: SessionTail = { messages: [{ id: 'm3', role: 'user', created: 500, updated: 500, error: null }], parts: [] }
  t.same(deriveStoreVerdict(deriveStoreEntries(prompt, null), { state: 'waiting', since: 200 }), {
    verdict: 'moved-on',
    at: 500,
    why: 'new-prompt',
  })
  t.equal(deriveStoreVerdict(deriveStoreEntries(prompt, null), { state: 'working', since: 200 }), null)
  t.end()
})
