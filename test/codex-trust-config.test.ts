import fc from 'fast-check'
import t from 'tap'
import { deriveCodexCommand, deriveTrustEntries, mergeCodexHooks, unmergeCodexHooks } from '../lib/agents/codex/settings-hooks.js'
import type { JsonObject } from '../lib/settings/json-value.js'
import { tomlBasicString } from '../lib/settings/toml-text-edit.js'
import { followTrust, HOOKS_FILE, trustEntriesOf } from './helpers/codex-trust.js'

const CMD = deriveCodexCommand('/usr/lib/node_modules/trailboss/dist/hooks/spool.sh', '/usr/bin/node')
const foreign: JsonObject = { hooks: { Stop: [{ hooks: [{ type: 'command', command: '/opt/notify.sh', timeout: 3 }] }] } }
const merged = mergeCodexHooks(foreign, CMD)
const ours = deriveTrustEntries(merged, HOOKS_FILE)

// ---- a person's config.toml, generated ----

const bare = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/).map((s) => `k_${s}`)
const value = fc.oneof(
  fc.integer().map(String),
  fc.string({ maxLength: 12 }).map(tomlBasicString),
  fc.stringMatching(/^[a-z ./]{0,10}$/).map((s) => `'${s}'`),
  fc.constantFrom('true', 'false', '1.5', '-0.0', '0x1F', '1979-05-27', '[1, "two"]', '{ a = 1, b = "c" }', '"""\nmulti\nline"""'),
)
const comment = fc.stringMatching(/^[a-z ,.]{0,16}$/).map((s) => `# ${s}`)
/** Key/value lines with their names unique, maybe a comment after each, comment and blank lines between. */
const body = fc
  .uniqueArray(fc.tuple(bare, value, fc.option(comment), fc.constantFrom('', 'blank', 'comment')), { selector: ([k]) => k, maxLength: 4 })
  .map((kvs) =>
    kvs.flatMap(([k, v, c, extra]) => [
      ...(extra === 'blank' ? [''] : extra === 'comment' ? ['# note'] : []),
      `${k} = ${v}${c ? ` ${c}` : ''}`,
    ]),
  )
const tables = fc
  .uniqueArray(fc.tuple(bare, body), { selector: ([name]) => name, maxLength: 3 })
  .map((ts) => ts.map(([name, lines]) => [`[t.${name}]`, ...lines]))

/** Trust entries of foreign hooks, keyed by paths that hold quotes, spaces and any character. */
const foreignEntries = fc
  .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.stringMatching(/^[0-9a-f]{4}$/)), {
    selector: ([k]) => k,
    maxLength: 3,
  })
  .map((es) => [
    ...es.map(([k, h]) => ({ key: `/p/${k}:stop:0:0`, hash: `sha256:${h}` })),
    { key: `${HOOKS_FILE}:stop:0:0`, hash: 'sha256:mine' },
  ])

type Entry = { key: string; hash: string }
const quoted = (s: string, literal: boolean): string => (literal && !/['\u0000-\u001f\u007f]/.test(s) ? `'${s}'` : tomlBasicString(s))

/** Where and how the entries are spelt: as tables after the others, or before the first table. */
const spellings: fc.Arbitrary<{ top: boolean; spell: (es: Entry[]) => string[] }> = fc
  .tuple(
    fc.constantFrom('tables', 'state-inline', 'hooks-dotted', 'top-dotted', 'top-inline', 'hooks-inline'),
    fc.boolean(),
    fc.option(comment),
  )
  .map(([style, literal, c]) => {
    const q = (s: string): string => quoted(s, literal)
    const tail = c ? ` ${c}` : ''
    switch (style) {
      case 'tables':
        return {
          top: false,
          spell: (es) => es.flatMap((e) => ['', `[hooks.state.${q(e.key)}]${tail}`, ...(c ? [c] : []), `trusted_hash = ${q(e.hash)}`]),
        }
      case 'state-inline':
        return { top: false, spell: (es) => ['[hooks.state]', ...es.map((e) => `${q(e.key)} = { trusted_hash = ${q(e.hash)} }${tail}`)] }
      case 'hooks-dotted':
        return { top: false, spell: (es) => ['[hooks]', ...es.map((e) => `state.${q(e.key)}.trusted_hash = ${q(e.hash)}${tail}`)] }
      case 'hooks-inline':
        return {
          top: false,
          spell: (es) => ['[hooks]', `state = { ${es.map((e) => `${q(e.key)} = { trusted_hash = ${q(e.hash)} }`).join(', ')} }${tail}`],
        }
      case 'top-dotted':
        return { top: true, spell: (es) => es.map((e) => `hooks.state.${q(e.key)}.trusted_hash = ${q(e.hash)}${tail}`) }
      default:
        return {
          top: true,
          spell: (es) => [`hooks = { state = { ${es.map((e) => `${q(e.key)} = { trusted_hash = ${q(e.hash)} }`).join(', ')} } }${tail}`],
        }
    }
  })

const configs = fc
  .record({ head: body, tables, entries: foreignEntries, spelling: spellings, eol: fc.constantFrom('\n', '\r\n'), lastEol: fc.boolean() })
  .map(({ head, tables, entries, spelling, eol, lastEol }) => {
    const trust = spelling.spell(entries)
    const lines = spelling.top ? [...head, ...trust, ...tables.flat()] : [...head, ...tables.flat(), ...trust]
    return { text: lines.join(eol) + (lastEol && lines.length > 0 ? eol : ''), entries }
  })

t.test(
  'any config.toml: install trusts ours and keeps theirs, a second install changes nothing, uninstall gives the bytes back',
  async (t) => {
    fc.assert(
      fc.property(configs, ({ text, entries }) => {
        const installed = followTrust(text, foreign, merged)!
        const trusted = trustEntriesOf(installed)
        for (const e of [...entries, ...ours]) if (trusted.get(e.key) !== e.hash) throw new Error(`${e.key} is not trusted with ${e.hash}`)
        if (trusted.size !== entries.length + ours.length) throw new Error('an entry too many')
        if (followTrust(installed, merged, merged) !== installed) throw new Error('a second install changed the file')
        const back = followTrust(installed, merged, unmergeCodexHooks(merged))
        if (back !== text) throw new Error(`uninstall gave ${JSON.stringify(back)}`)
      }),
      { numRuns: 300 },
    )
    t.pass('held for 300 generated files')
  },
)
