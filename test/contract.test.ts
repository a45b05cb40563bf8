// The published JSON Schemas (docs/*.schema.json) are generated from the zod schemas and must
// not drift: `npm run schemas` rewrites them.
import * as fs from 'node:fs'
import t from 'tap'
import { SCHEMAS, toJsonSchema } from '../lib/contract.js'

const docs = new URL('../docs/', import.meta.url)

t.test('docs/*.schema.json match the zod schemas', async (t) => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const text = `${JSON.stringify(toJsonSchema(schema, name), null, 2)}\n`
    const file = new URL(name, docs)
    if (process.env.UPDATE_SCHEMAS === '1') fs.writeFileSync(file, text)
    t.equal(fs.readFileSync(file, 'utf8'), text, `${name} is up to date (npm run schemas)`)
  }
})
