// `npm run bench`: runs every bench/<name>.mjs that exports `run(flags)` and prints its
// sections as one markdown report. Figures are ratios to baselines measured in the same run;
// nothing here fails on a missed target (noise must never fail a build), it reports it.
//   node bench/run.mjs [--only emit,ls] [--rounds N] [--warmup N] [--samples N] [--quick] [--json]
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { machine, parseFlags, printSection } from './lib.mjs'

const HERE = fileURLToPath(new URL('.', import.meta.url))
// Helpers the benches import, not benches.
const NOT_BENCHES = new Set(['lib.mjs', 'run.mjs', 'ssh-hosts.mjs'])

const flags = parseFlags()
const names = readdirSync(HERE)
  .filter((f) => f.endsWith('.mjs') && !NOT_BENCHES.has(f))
  .map((f) => f.slice(0, -'.mjs'.length))
  .filter((n) => !flags.only || flags.only.includes(n))
  .sort()

const m = await machine()
const report = { machine: m, flags, sections: [] }
if (!flags.json) {
  console.log('# Trail Boss benchmarks')
  console.log(`\nNode ${m.node} on ${m.platform}, ${m.cpus} × ${m.cpu}, load average ${m.load} at start.`)
}
/**
 * A bench returns sections ({title, header, rows, notes}); one that returns its own rows
 * instead may export formatRows(rows) to render them, and its section is titled by its name.
 */
const toSections = (name, mod, result) => {
  const items = [result].flat()
  if (items.every((s) => s && typeof s.title === 'string' && Array.isArray(s.header))) return items
  const text = typeof mod.formatRows === 'function' ? mod.formatRows(result) : JSON.stringify(result, null, 2)
  return [{ title: name, text, data: result }]
}

let failed = 0
for (const name of names) {
  const mod = await import(new URL(`./${name}.mjs`, import.meta.url).href)
  if (typeof mod.run !== 'function') continue
  try {
    const result = await mod.run(flags)
    const sections = toSections(name, mod, result)
    report.sections.push(...sections.map((s) => ({ bench: name, ...s })))
    if (!flags.json) sections.forEach((s) => (s.text ? console.log(`\n## ${s.title}\n\n${s.text}`) : printSection(s)))
  } catch (err) {
    failed++
    console.error(`bench ${name} failed: ${err instanceof Error ? err.message : String(err)}`)
  }
}
if (flags.json) console.log(JSON.stringify(report, null, 2))
// A benchmark that could not run at all is an error; a slow figure is not.
process.exitCode = failed ? 1 : 0
