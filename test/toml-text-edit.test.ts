import t from 'tap'
import {
  addTomlTable,
  canonicalTomlData,
  findTomlSites,
  parseTomlText,
  readTomlData,
  removeTomlPath,
  renameTomlKey,
  replaceTomlString,
  tomlBasicString,
  TomlSyntaxError,
} from '../lib/settings/toml-text-edit.js'

const data = (text: string): string => canonicalTomlData(readTomlData(parseTomlText(text)))

t.test('TOML 1.1 is read; what is not TOML throws with its line', async (t) => {
  t.equal(
    data('a = { b = 1, }\nc = {\n  d = 2,\n}\n'),
    '{"a":{"b":"integer:1"},"c":{"d":"integer:2"}}',
    'a trailing comma and a line break in an inline table, as Codex reads them',
  )
  const err = t.throws(() => parseTomlText('a = 1\na = 2\n')) as TomlSyntaxError
  t.ok(err instanceof TomlSyntaxError)
  t.equal(err.line, 2)
})

t.test('data compares meaning: number spellings, key spellings, table order', async (t) => {
  t.equal(data('x = 0x10\ny = 1.0\n'), data('y = 1.00\nx = 16\n'))
  t.equal(data('[a]\n"b" = 1\n'), data("a.'b' = 1\n"))
  t.not(data('x = 9007199254740993\n'), data('x = 9007199254740992\n'), 'integers exactly')
  t.not(data('x = "1"\n'), data('x = 1\n'), 'a string is not a number')
})

t.test('sites: every place that defines something at or under a path', async (t) => {
  const text = `[hooks.state."K"]\ntrusted_hash = "a"\n\n[hooks]\nstate.'J'.trusted_hash = "b"\nstate.L = { trusted_hash = "c" }\n`
  const kinds = (path: string[]): string[] => findTomlSites(parseTomlText(text), path).map((s) => `${s.kind}:${s.key?.range.join('-')}`)
  t.same(kinds(['hooks', 'state', 'K']), ['table:13-16'])
  t.same(
    kinds(['hooks', 'state', 'J']).map((k) => k.split(':')[0]),
    ['line'],
  )
  t.same(
    findTomlSites(parseTomlText('a = { b = { c = 1 }, d = 2 }\n'), ['a', 'b']).map((s) => s.kind),
    ['member'],
  )
  t.same(findTomlSites(parseTomlText(text), ['hooks', 'state', 'M']), [])
})

t.test('removing a path takes each of its spellings, and nothing else', async (t) => {
  const cases: [string, string[], string][] = [
    ['a = 1\n\n[x.y]\nz = 1\n\n[w]\nv = 2\n', ['x', 'y'], 'a = 1\n\n[w]\nv = 2\n'],
    ['a = 1\n\n[x.y]\nz = 1\n', ['x', 'y'], 'a = 1\n'],
    ['a = 1\n\n[x.y]\nz = 1', ['x', 'y'], 'a = 1'],
    ['[x]\ny.z = 1 # c\ny.w = 2\nq = 3\n', ['x', 'y'], '[x]\nq = 3\n'],
    ['x = { y = 1, q = 2 }\n', ['x', 'y'], 'x = { q = 2 }\n'],
    ['x = { q = 2, y = 1 }\n', ['x', 'y'], 'x = { q = 2 }\n'],
    ['x = { y = 1 }\n', ['x', 'y'], 'x = {}\n'],
    ['x = {y=1}\n', ['x', 'y'], 'x = {}\n'],
    ['x = {\n  y = 1, # one\n}\n', ['x', 'y'], 'x = {\n  # one\n}\n'],
    ['x = { q = 1, y = 2, }\n', ['x', 'y'], 'x = { q = 1, }\n'],
    ['a = 1\r\n\r\n[x.y]\r\nz = 1\r\n', ['x', 'y'], 'a = 1\r\n'],
    ['a = 1\n', ['x', 'y'], 'a = 1\n'],
  ]
  for (const [text, path, want] of cases) t.equal(removeTomlPath(text, path), want, JSON.stringify(text))
})

t.test('renaming a key keeps its style; replacing a string keeps its quotes', async (t) => {
  t.equal(renameTomlKey(`[a.'k']\nv = 1\n[a.'k'.s]\nw = 2\n`, ['a', 'k'], 'n'), `[a.'n']\nv = 1\n[a.'n'.s]\nw = 2\n`)
  t.equal(renameTomlKey(`a = { "k" = 1 }\n`, ['a', 'k'], "it's"), `a = { "it's" = 1 }\n`)
  t.equal(renameTomlKey(`a.'k' = 1\n`, ['a', 'k'], "it's"), `a."it's" = 1\n`, 'a literal key that cannot hold it becomes a basic one')
  t.equal(replaceTomlString(`[a]\nh = 'x' # c\n`, ['a', 'h'], 'y'), `[a]\nh = 'y' # c\n`)
  t.equal(replaceTomlString(`a = { h = "x" }\n`, ['a', 'h'], 'y"z'), `a = { h = "y\\"z" }\n`)
})

t.test('adding a table: at the end after a blank line, or into the inline table that holds its parent', async (t) => {
  const pairs: [string, string][] = [['h', '"v"']]
  t.equal(addTomlTable('', ['a', 'k/x'], pairs), '[a."k/x"]\nh = "v"\n')
  t.equal(addTomlTable('z = 1\n', ['a', 'k'], pairs), 'z = 1\n\n[a.k]\nh = "v"\n')
  t.equal(addTomlTable('z = 1', ['a', 'k'], pairs), 'z = 1\n\n[a.k]\nh = "v"', 'no line break at the end stays so')
  t.equal(addTomlTable('z = 1\r\n', ['a', 'k'], pairs), 'z = 1\r\n\r\n[a.k]\r\nh = "v"\r\n')
  t.equal(addTomlTable('a = {}\n', ['a', 'k'], pairs), 'a = { k = { h = "v" } }\n')
  t.equal(addTomlTable('a = { b = 1, }\n', ['a', 'k'], pairs), 'a = { b = 1, k = { h = "v" }, }\n')
  t.equal(addTomlTable('x = { a = { b = 1 } }\n', ['x', 'a', 'k'], pairs), 'x = { a = { b = 1, k = { h = "v" } } }\n', 'the innermost')
  t.equal(addTomlTable('x = { y = 1 }\n', ['x', 'a', 'k'], pairs), 'x = { y = 1, a.k = { h = "v" } }\n')
  for (const text of ['', 'z = 1\n', 'z = 1', 'z = 1\n\n', '\n', 'a = {}\n', 'a = { }\n', 'a = { b = 1, }\n', 'z = 1\r\n']) {
    t.equal(removeTomlPath(addTomlTable(text, ['a', 'k'], pairs), ['a', 'k']), text, `taken out again: ${JSON.stringify(text)}`)
  }
})

t.test('basic strings escape every control character', async (t) => {
  t.equal(tomlBasicString('a"b\\c\u007f\t'), '"a\\"b\\\\c\\u007f\\t"')
  t.same(
    readTomlData(parseTomlText(`x = ${tomlBasicString('a"b\\c\u007f\u0001')}\n`)),
    { x: 'string:a"b\\c\u007f\u0001' },
    'read back as written',
  )
})
