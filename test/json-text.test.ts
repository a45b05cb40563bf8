import fc from 'fast-check'
import t from 'tap'
import { formatJson } from '../lib/render/json-text.js'

const RAW = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/

t.test('formatJson: C1, DEL and U+2028/9 escaped as JSON.stringify escapes C0', async (t) => {
  t.equal(formatJson({ a: '\u009b31m\u0085\x7f\u2028\u2029\x1b\n' }), '{"a":"\\u009b31m\\u0085\\u007f\\u2028\\u2029\\u001b\\n"}')
  t.equal(
    formatJson({ a: ['é', '日本', '👩🏽‍💻', '\u00a0'] }, 2),
    JSON.stringify({ a: ['é', '日本', '👩🏽‍💻', '\u00a0'] }, null, 2),
    'printable text as it is',
  )
})

t.test('formatJson: any value reads back the same, with nothing raw in its text', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), fc.constantFrom(undefined, 2), (v, indent) => {
      const text = formatJson({ v }, indent)
      const layout = indent ? text.replaceAll('\n', '') : text
      return !RAW.test(layout) && JSON.stringify(JSON.parse(text)) === JSON.stringify({ v })
    }),
    { numRuns: 2000 },
  )
  t.pass('2,000 values')
})
