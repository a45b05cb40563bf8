// A fast path for `ls` and `status`: yargs costs about as much start-up as Node itself, and
// these two run from status lines and scripts every few seconds. When the arguments are plain
// (known options, valid choices, no help), node's util.parseArgs reads them from the same
// option tables; anything else falls through to yargs, which owns help and error messages.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { ArgsOf, OptionSpec } from '../options/tables.js'

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/**
 * Parses `args` (after the command name) by `table`, or returns null to let yargs decide. The
 * result has the table's argument type: test/fast-args.test.ts holds it to what yargs gives.
 */
export const parseFast = <T extends Readonly<Record<string, OptionSpec>>>(args: readonly string[], table: T): ArgsOf<T> | null => {
  if (args.some((a) => a === '--help' || a === '-h' || a === '--version' || a.startsWith('--no-'))) return null
  const options: NonNullable<ParseArgsConfig['options']> = {}
  for (const [name, spec] of Object.entries(table)) {
    // util.parseArgs has no numbers: such a table is yargs's alone.
    if (spec.type === 'number') return null
    options[name] = { type: spec.type, multiple: spec.array === true, ...(spec.alias ? { short: spec.alias } : {}) }
  }
  let values: Record<string, unknown>
  try {
    values = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values
  } catch {
    return null
  }
  const out: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(table)) {
    const v = values[name] ?? spec.default
    if (spec.choices && v !== undefined && ![v].flat().every((x) => spec.choices?.includes(String(x)))) return null
    out[camel(name)] = v
  }
  return out as ArgsOf<T>
}
