// The fast path of ls/status must read arguments exactly as yargs does, or hand them to yargs.
import fc from 'fast-check'
import t from 'tap'
import yargs from 'yargs'
import { LS_OPTIONS, STATUS_OPTIONS, toYargsOptions, type OptionSpec } from '../lib/options/tables.js'
import { parseFast } from '../lib/cli/fast-args.js'

const viaYargs = async (args: string[], table: Record<string, OptionSpec>): Promise<Record<string, unknown> | null> => {
  try {
    const parsed = await yargs(args)
      .options(toYargsOptions(table))
      .strict()
      .exitProcess(false)
      .fail((msg, err) => {
        throw err ?? new Error(msg)
      })
      .parseAsync()
    const out: Record<string, unknown> = {}
    for (const name of Object.keys(table)) out[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = parsed[name]
    return out
  } catch {
    return null
  }
}

const token = fc.constantFrom(
  '--all',
  '-a',
  '--plain',
  '--json',
  '--kind',
  'permission',
  'question',
  'nope',
  '--project',
  'web',
  '--older-than',
  '10m',
  '--sort',
  'kind',
  'pane',
  '--exit-status',
  '--return-digest',
  '--format',
  '{count}',
  '--tmux',
  '--bogus',
  'stray',
  '--kind=done',
  '--sort=age',
)

for (const [name, table] of [
  ['ls', LS_OPTIONS],
  ['status', STATUS_OPTIONS],
] as const) {
  t.test(`${name}: whatever the fast path accepts, yargs reads the same`, async (t) => {
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 6 }), async (args) => {
        const fast = parseFast(args, table)
        if (fast === null) return
        accepted++
        t.same(fast, await viaYargs(args, table), args.join(' '))
      }),
      { numRuns: 300 },
    )
    t.ok(accepted > 20, `the fast path took ${accepted} of 300 argument lists`)
  })
}

t.test('what the fast path leaves to yargs', async (t) => {
  t.equal(parseFast(['--help'], LS_OPTIONS), null)
  t.equal(parseFast(['--kind', 'nope'], LS_OPTIONS), null, 'invalid choice: yargs says why')
  t.equal(parseFast(['--bogus'], LS_OPTIONS), null)
  t.equal(parseFast(['stray'], LS_OPTIONS), null)
  t.equal(parseFast(['--no-all'], LS_OPTIONS), null)
  t.same(parseFast(['-a', '--kind', 'done', '--kind', 'error'], LS_OPTIONS), {
    all: true,
    plain: false,
    json: false,
    kind: ['done', 'error'],
    project: undefined,
    olderThan: undefined,
    sort: 'age',
    exitStatus: false,
    local: false,
    follow: false,
    returnDigest: false,
  })
})
