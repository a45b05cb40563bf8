// The mod's pure half: reading `trailboss ls --json` and wording what it shows.
import { expect, test } from 'claude-code/testing'
import {
  askLine,
  formatAge,
  formatReturnToast,
  formatStatus,
  formatToast,
  isTypedByPerson,
  newWaits,
  nextChangeAt,
  othersOf,
  parseListing,
  visibleText,
  waitId,
  type Wait,
} from '../hooks/queue-view'

const wait = (over: Partial<Wait> = {}): Wait => ({
  n: 1,
  key: 'k1',
  sessionId: 's1',
  kind: 'permission',
  since: 0,
  project: 'api',
  ask: 'Bash: ls',
  pane: '%1',
  seen: false,
  ...over,
})

test('askLine words a wait as `trailboss ls` does', () => {
  expect(askLine({ tool: 'Bash', input: { command: 'npm run migrate' }, message: null })).toBe('Bash: npm run migrate')
  expect(askLine({ tool: 'Edit', input: { file_path: '/a/b.ts', old_string: 'x' }, message: null })).toBe('Edit: /a/b.ts')
  expect(askLine({ tool: 'AskUserQuestion', input: { questions: [{ question: 'Red or blue?' }] }, message: null })).toBe(
    'AskUserQuestion: Red or blue?',
  )
  expect(askLine({ tool: 'Bash', input: 'echo  hi\nthere', message: null })).toBe('Bash: echo hi there')
  expect(askLine({ tool: 'Mystery', input: { n: 1 }, message: null })).toBe('Mystery: {"n":1}')
  expect(askLine({ tool: null, input: null, message: 'Done.\n\nShould I also update the docs?\n' })).toBe('Should I also update the docs?')
  expect(askLine({ tool: null, input: null, message: null })).toBe('')
  expect(askLine('not an ask')).toBe('')
  expect(askLine({ tool: 'Bash', input: { command: 'x'.repeat(100) } }, 20)).toBe(`Bash: ${'x'.repeat(13)}…`)
})

test("parseListing keeps the queue's items, skips what lacks a field, refuses what is not the contract", () => {
  const good = {
    n: 1,
    key: 'aaaa1111',
    sessionId: 'aaaa1111-x',
    state: 'permission',
    kind: 'permission',
    since: '2026-12-01T10:00:00.000Z',
    project: 'api',
    tmux: { pane: '%3' },
    ask: { tool: 'Bash', input: { command: 'ls' }, message: null },
  }
  const listing = parseListing(
    JSON.stringify({
      version: 2,
      queue: [
        good,
        { ...good, key: 7 },
        { ...good, since: 'yesterday' },
        { ...good, n: null },
        'x',
        { ...good, key: 'bbbb2222', tmux: null, project: null, kind: null, state: 'waiting' },
      ],
    }),
  )
  expect(listing.skipped).toBe(4)
  expect(listing.waits).toEqual([
    {
      n: 1,
      key: 'aaaa1111',
      sessionId: 'aaaa1111-x',
      kind: 'permission',
      since: Date.parse('2026-12-01T10:00:00Z'),
      project: 'api',
      ask: 'Bash: ls',
      pane: '%3',
      seen: false,
    },
    {
      n: 1,
      key: 'bbbb2222',
      sessionId: 'aaaa1111-x',
      kind: 'waiting',
      since: Date.parse('2026-12-01T10:00:00Z'),
      project: '?',
      ask: 'Bash: ls',
      pane: null,
      seen: false,
    },
  ])
  const finished = parseListing(
    JSON.stringify({
      version: 2,
      queue: [
        { ...good, needsYou: true, seen: false },
        { ...good, key: 'cccc3333', kind: 'done', needsYou: false },
        { ...good, key: 'dddd4444', n: 4, seen: true },
      ],
    }),
  )
  // A seen wait that needs the person still counts (a glance is not an answer), marked seen.
  expect(finished.waits.map((w) => [w.key, w.n, w.seen])).toEqual([
    ['aaaa1111', 1, false],
    ['dddd4444', 4, true],
  ])
  expect(finished.skipped).toBe(0)
  // The digest `ls --json --until-change` waits on; a CLI older than it has none.
  expect(listing.digest).toBeNull()
  expect(parseListing(JSON.stringify({ version: 2, queue: [], digest: '3f9c0a1b2c3d4e5f' })).digest).toBe('3f9c0a1b2c3d4e5f')
  expect(() => parseListing('trailboss 0.0.1')).toThrow(/not JSON/)
  expect(() => parseListing('{"version": 1, "queue": []}')).toThrow(/older than this plugin \(ls --json version 1\)/)
  expect(() => parseListing('{"version": 3, "queue": []}')).toThrow(/not version 2/)
  expect(() => parseListing('[]')).toThrow(/not version 2/)
})

test('the status entry and the toast', () => {
  expect(formatStatus([], 0)).toBeUndefined()
  expect(formatStatus([wait({ since: 1000 })], 61_000)).toBe('1 other waits · oldest 1m')
  // Whole minutes only: no new text each second of a new wait's first minute.
  expect(formatStatus([wait({ since: 1000 })], 60_999)).toBe('1 other waits · oldest <1m')
  // An age that will not move on is a floor.
  expect(formatStatus([wait({ since: 1000 })], 31_000, true)).toBe('1 other waits · oldest 30s+')
  expect(formatStatus([wait({ since: 5000 }), wait({ since: 2000 })], 242_000, true)).toBe('2 others wait · oldest 4m+')
  expect(formatStatus([wait({ since: 5000 }), wait({ since: 2000 })], 242_000)).toBe('2 others wait · oldest 4m')
  expect(formatToast(wait({ ask: 'Bash: npm run migrate' }))).toBe('api waits: Bash: npm run migrate')
  expect(formatToast(wait({ ask: '', kind: 'done' }))).toBe('api waits (done)')
  expect([formatAge(-5), formatAge(59_999), formatAge(3_600_000), formatAge(86_400_000 * 3)]).toEqual(['0s', '59s', '1h', '3d'])
})

test('others and new waits: a session waiting again from a new moment is a new wait', () => {
  const a = wait({ sessionId: 'a', since: 1 })
  const own = wait({ sessionId: 'me', since: 1 })
  expect(othersOf([a, own], 'me')).toEqual([a])
  expect(othersOf([a, own], null)).toEqual([a, own])
  const seen = new Set([waitId(a)])
  expect(newWaits(seen, [a])).toEqual([])
  const again = { ...a, since: 2 }
  expect(newWaits(seen, [a, again])).toEqual([again])
})

test('nextChangeAt: the moment the oldest age shows its next step, a minute apart at most often', () => {
  expect(nextChangeAt([], 5000)).toBe(Number.POSITIVE_INFINITY)
  expect(nextChangeAt([wait({ since: 1000 }), wait({ since: 3000 })], 4500)).toBe(61_000)
  expect(nextChangeAt([wait({ since: 0 })], 59_999)).toBe(60_000)
  expect(nextChangeAt([wait({ since: 0 })], 61_000)).toBe(120_000)
  expect(nextChangeAt([wait({ since: 0 })], 3_600_000)).toBe(7_200_000)
  expect(nextChangeAt([wait({ since: 10_000 })], 0)).toBe(70_000)
})

test('what the mod draws is visible text, as the CLI shows it', () => {
  expect(visibleText('plain text')).toBe('plain text')
  expect(visibleText('\u001b]52;c;eA==\u0007 \u009b31m \r\u001b[K')).toBe('^[]52;c;eA==^G \\u009b31m \\r^[[K')
  expect(visibleText('👩🏽‍💻 ❤️ 日本語 r\u200dm \u202e')).toBe('👩🏽‍💻 ❤️ 日本語 r\\u200dm \\u202e')
  const good = {
    n: 1,
    key: 'aaaa1111',
    sessionId: 'aaaa1111-x',
    kind: 'question\u0007',
    since: '2026-12-01T10:00:00.000Z',
    project: 'api\u001b]0;x\u0007',
    ask: { tool: null, input: null, message: 'Done.\nShall I?\u009b2J' },
  }
  const [w] = parseListing(JSON.stringify({ version: 2, queue: [good], digest: 'd' })).waits
  expect([w?.project, w?.kind, w?.ask, w?.key]).toEqual(['api^[]0;x^G', 'question^G', 'Shall I?\\u009b2J', 'aaaa1111'])
  expect(formatToast(w!)).toBe('api^[]0;x^G waits: Shall I?\\u009b2J')
})

test("the return's toast: the CLI's one line of returnDigest, visible; nothing when absent or not its shape", () => {
  const line =
    'While you were away (40m): 1 wait (1 permission), 0 turns finished, 0 errors; oldest open: 1 api (claude-code, permission), 39m'
  const field = { since: '2026-12-01T09:20:00.000Z', until: '2026-12-01T10:00:00.000Z', line, done: 0, errors: 0, oldest: null }
  expect(formatReturnToast(field)).toBe(line)
  expect(formatReturnToast({ ...field, line: 'While you were away (1h): 1 error; oldest open: 2 api\u001b]0;x\u0007\n' })).toBe(
    'While you were away (1h): 1 error; oldest open: 2 api^[]0;x^G\\n',
  )
  expect(formatReturnToast(undefined)).toBeNull()
  expect(formatReturnToast({ ...field, line: 3 })).toBeNull()
  expect(formatReturnToast({ ...field, line: '' })).toBeNull()
  expect(formatReturnToast(line)).toBeNull()
  const doc = { version: 2, queue: [], digest: '3f9c0a1b2c3d4e5f' }
  expect(parseListing(JSON.stringify({ ...doc, returnDigest: field })).returnDigest).toBe(line)
  expect(parseListing(JSON.stringify(doc)).returnDigest).toBeNull()
})

test("only the composer's prompts and commands are the person's own keys", () => {
  expect(isTypedByPerson({ kind: 'composer' })).toBe(true)
  for (const kind of ['scheduled-trigger', 'task-notification', 'auto-continuation', 'plugin', 'peer', 'sdk'])
    expect(isTypedByPerson({ kind })).toBe(false)
  expect(isTypedByPerson(undefined)).toBe(false)
})
