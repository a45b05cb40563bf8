import t, { type Test } from 'tap'
import { detectLayout, editJsonText, findDuplicateKey } from '../lib/settings/json-text-edit.js'

t.test('findDuplicateKey finds a key twice in one object, at any depth', async (t) => {
  t.equal(findDuplicateKey('{"a": 1, "b": {"a": 2}}'), null, 'the same key in two objects is fine')
  t.same(findDuplicateKey('{"hooks": {}, "model": "x", "hooks": {"Stop": []}}'), { key: 'hooks', at: 'hooks' })
  t.same(findDuplicateKey('{"hooks": {"Stop": [{"hooks": [], "hooks": []}]}}'), { key: 'hooks', at: 'hooks.Stop[0].hooks' })
  t.same(findDuplicateKey('[{"x": 1}, {"x": 1, "x": 2}]'), { key: 'x', at: '[1].x' })
  t.equal(findDuplicateKey(''), null)
})

t.test('detectLayout: line endings and indentation', async (t) => {
  t.same(detectLayout('{\r\n\t"a": 1\r\n}'), { eol: '\r\n', indent: '\t' })
  t.same(detectLayout('{\n    "a": 1\n}\n'), { eol: '\n', indent: '    ' })
  t.same(detectLayout(null), { eol: '\n', indent: '  ' })
})

const roundTrip = (t: Test, text: string, add: Record<string, unknown>, want: string): void => {
  const before = JSON.parse(text) as Record<string, never>
  const next = { ...before, ...add } as Record<string, never>
  const edited = editJsonText(text, before, next)
  t.equal(edited, want, 'inserted in the file’s own layout')
  t.equal(editJsonText(want, next, before), text, 'and taken out to the very bytes')
}

t.test('editJsonText appends in the file’s layout and removes exactly what it added', async (t) => {
  roundTrip(
    t,
    '{\r\n\t"n": 1.0,\r\n\t"m": 1e3\r\n}\r\n',
    { x: [1] },
    '{\r\n\t"n": 1.0,\r\n\t"m": 1e3,\r\n\t"x": [\r\n\t\t1\r\n\t]\r\n}\r\n',
  )
  roundTrip(t, '{\n  "a":1\n}', { b: { c: true } }, '{\n  "a":1,\n  "b":{\n    "c": true\n  }\n}')
  roundTrip(t, '{}', { b: 1 }, '{\n  "b": 1\n}')
  roundTrip(t, '{ "a": 1 }', { b: [2] }, '{ "a": 1, "b": [2] }')
  const before = { l: [1, 2] }
  t.equal(
    editJsonText('{\n  "l": [\n    1,\n    2\n  ]\n}', before, { l: [0, 1, 2] }),
    '{\n  "l": [\n    0,\n    1,\n    2\n  ]\n}',
    'an insertion before the first element',
  )
  t.equal(editJsonText('{\n  "l": [\n    1,\n    2\n  ]\n}', before, { l: [2] }), '{\n  "l": [\n    2\n  ]\n}', 'the first element removed')
  t.equal(editJsonText('{"a": 1}', { a: 1 }, { a: 2 }), '{"a": 2}', 'a changed value')
})
