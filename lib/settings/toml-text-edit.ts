// Pure: a TOML file's text edited as a person would edit it, as json-text-edit.ts does for JSON.
// toml-eslint-parser gives every table, key and value its source range, so an edit touches only
// the bytes of what changes (a table, a key, a value, one member of an inline table) and every
// other byte stays. It reads TOML 1.1, as Codex 0.171.0 does (a trailing comma or a line break
// in an inline table is taken by both).
import { type AST, parseTOML, getStaticTOMLValue, traverseNodes } from 'toml-eslint-parser'

type Path = readonly string[]
type Segment = AST.TOMLBare | AST.TOMLQuoted

/** A TOML value as plain data for comparing: each scalar tagged with its kind, integers exact. */
export type TomlData = string | TomlData[] | { [key: string]: TomlData }

export class TomlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message)
  }
}

/** Parses TOML 1.1; throws TomlSyntaxError (with its line and column) on text that is not. */
export const parseTomlText = (text: string): AST.TOMLProgram => {
  try {
    return parseTOML(text, { tomlVersion: '1.1' })
  } catch (err) {
    const e = err as { message: string; lineNumber?: number; column?: number }
    throw new TomlSyntaxError(e.message, e.lineNumber ?? 0, e.column ?? 0)
  }
}

/**
 * The document as data: tables as objects, scalars as `<kind>:<canonical text>` (1.0 and 1.00
 * are one float, 0x10 and 16 one integer, however large), so two texts mean the same exactly
 * when their data are deep-equal.
 */
export const readTomlData = (ast: AST.TOMLProgram): { [key: string]: TomlData } => {
  traverseNodes(ast, {
    enterNode: (node) => {
      if (node.type !== 'TOMLValue') return
      const tagged =
        node.kind === 'integer'
          ? node.bigint.toString()
          : node.kind === 'float'
            ? String(node.value)
            : node.kind === 'boolean'
              ? String(node.value)
              : node.kind === 'string'
                ? node.value
                : node.datetime
      // The tag is what comparisons see; the node is a copy the caller parsed for this.
      ;(node as { value: unknown }).value = `${node.kind}:${tagged}`
    },
    leaveNode: () => {},
  })
  return getStaticTOMLValue(ast) as unknown as { [key: string]: TomlData }
}

/** JSON with object keys sorted: TOML tables have no order. */
export const canonicalTomlData = (d: TomlData | undefined): string => {
  if (d === undefined) return 'undefined'
  if (typeof d === 'string') return JSON.stringify(d)
  if (Array.isArray(d)) return `[${d.map(canonicalTomlData).join(',')}]`
  return `{${Object.keys(d)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalTomlData(d[k])}`)
    .join(',')}}`
}

const segmentName = (s: Segment): string => (s.type === 'TOMLBare' ? s.name : s.value)

/** Every key/value pair with its full path; those inside inline tables too (not inside arrays). */
interface PlacedKeyValue {
  kv: AST.TOMLKeyValue
  /** The path of the table (or inline table) the pair sits in. */
  base: (string | number)[]
  full: (string | number)[]
  container: AST.TOMLInlineTable | null
}

const listKeyValues = (ast: AST.TOMLProgram): PlacedKeyValue[] => {
  const out: PlacedKeyValue[] = []
  const visit = (kv: AST.TOMLKeyValue, base: (string | number)[], container: AST.TOMLInlineTable | null): void => {
    const full = [...base, ...kv.key.keys.map(segmentName)]
    out.push({ kv, base, full, container })
    if (kv.value.type === 'TOMLInlineTable') for (const m of kv.value.body) visit(m, full, kv.value)
  }
  for (const node of ast.body[0].body) {
    if (node.type === 'TOMLKeyValue') visit(node, [], null)
    else for (const kv of node.body) visit(kv, node.resolvedKey, null)
  }
  return out
}

const startsWith = (full: readonly (string | number)[], path: Path): boolean =>
  full.length >= path.length && path.every((p, i) => full[i] === p)

/**
 * The places that define something at or under `path`: a table whose header starts with it, a
 * pair whose key reaches it, or a member of an inline table that does. `key`: the segment that
 * names path's last part there (null for an array table's header).
 */
export type TomlSite =
  | { kind: 'table'; node: AST.TOMLTable; key: Segment | null }
  | { kind: 'line'; node: AST.TOMLKeyValue; key: Segment }
  | { kind: 'member'; node: AST.TOMLKeyValue; container: AST.TOMLInlineTable; key: Segment }

export const findTomlSites = (ast: AST.TOMLProgram, path: Path): TomlSite[] => {
  const out: TomlSite[] = []
  for (const node of ast.body[0].body) {
    if (node.type === 'TOMLTable' && startsWith(node.resolvedKey, path))
      out.push({ kind: 'table', node, key: node.kind === 'standard' ? (node.key.keys[path.length - 1] ?? null) : null })
  }
  for (const p of listKeyValues(ast)) {
    // A pair inside a site found already (its base reaches the path) belongs to that site.
    if (!startsWith(p.full, path) || p.base.length >= path.length) continue
    const key = p.kv.key.keys[path.length - 1 - p.base.length]!
    out.push(p.container ? { kind: 'member', node: p.kv, container: p.container, key } : { kind: 'line', node: p.kv, key })
  }
  return out.sort((a, b) => a.node.range[0] - b.node.range[0])
}

/** The pair whose full key is exactly `path`, if any. */
export const findTomlKeyValue = (ast: AST.TOMLProgram, path: Path): AST.TOMLKeyValue | null =>
  listKeyValues(ast).find((p) => p.full.length === path.length && startsWith(p.full, path))?.kv ?? null

/**
 * The innermost inline table that `path` would go into (the value of a pair whose full key is a
 * proper prefix of it), with that prefix's length; null when none: a `[table]` can then hold it.
 */
export const findInlineParent = (ast: AST.TOMLProgram, path: Path): { table: AST.TOMLInlineTable; depth: number } | null => {
  let best: { table: AST.TOMLInlineTable; depth: number } | null = null
  for (const p of listKeyValues(ast)) {
    if (p.kv.value.type !== 'TOMLInlineTable' || p.full.length >= path.length || !startsWith(path, p.full as string[])) continue
    if (!best || p.full.length > best.depth) best = { table: p.kv.value, depth: p.full.length }
  }
  return best
}

/** The file's own line ending (its first one); LF for a file without one. */
export const tomlEol = (text: string): '\n' | '\r\n' => (/\r?\n/.exec(text)?.[0] === '\r\n' ? '\r\n' : '\n')

/** A TOML basic string: JSON's escapes are TOML's, and every control character is escaped. */
export const tomlBasicString = (s: string): string =>
  JSON.stringify(s).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

const literalOk = (s: string): boolean => !/['\u0000-\u0008\u000a-\u001f\u007f]/.test(s)

/** A key segment: bare when it can be, else a basic string. */
export const tomlKey = (s: string): string => (/^[A-Za-z0-9_-]+$/.test(s) ? s : tomlBasicString(s))

/** A string in the style of one it replaces (literal stays literal when it can). */
const inStyleOf = (old: { style?: string; type?: string }, s: string): string =>
  old.type === 'TOMLBare' && /^[A-Za-z0-9_-]+$/.test(s) ? s : old.style === 'literal' && literalOk(s) ? `'${s}'` : tomlBasicString(s)

interface Edit {
  from: number
  to: number
  content: string
}

const apply = (text: string, e: Edit): string => text.slice(0, e.from) + e.content + text.slice(e.to)

const lineStart = (text: string, offset: number): number => {
  let i = offset
  while (i > 0 && text[i - 1] !== '\n') i--
  return i
}

/** Past the line break that ends the line holding `offset` (the text's end on its last line). */
const nextLineStart = (text: string, offset: number): number => {
  const nl = text.indexOf('\n', offset)
  return nl < 0 ? text.length : nl + 1
}

const isBlank = (line: string): boolean => line.trim() === ''

/**
 * The edit that takes out whole lines from the one holding `from` to the one holding `to - 1`.
 * `blankBefore`: one blank line before them goes too (what appendTomlTable put there). A block
 * that ends the file without a line break takes the line break before it, so text that ended
 * without one still does.
 */
const lineRemoval = (text: string, from: number, to: number, blankBefore: boolean): Edit => {
  let start = lineStart(text, from)
  const end = nextLineStart(text, Math.max(from, to - 1))
  if (blankBefore && start > 0) {
    const prev = lineStart(text, start - 1)
    if (isBlank(text.slice(prev, start))) start = prev
  }
  if (end === text.length && !text.endsWith('\n') && start > 0) start -= text.slice(0, start).endsWith('\r\n') ? 2 : 1
  return { from: start, to: end, content: '' }
}

/**
 * The edit that takes one member out of an inline table, with its comma. The last one out takes
 * what addTomlTable put around it (a space each side), so `{}` and `{ }` come back as they were.
 */
const memberRemoval = (ast: AST.TOMLProgram, text: string, container: AST.TOMLInlineTable, member: AST.TOMLKeyValue): Edit => {
  const members = container.body
  const i = members.indexOf(member)
  if (members.length > 1 && i > 0) return { from: members[i - 1]!.range[1], to: member.range[1], content: '' }
  if (members.length > 1) return { from: member.range[0], to: members[1]!.range[0], content: '' }
  // A sole member may have a trailing comma (TOML 1.1): it goes too.
  const next = ast.tokens.find((tok) => tok.range[0] >= member.range[1])
  let to = next && next.value === ',' && next.range[1] < container.range[1] ? next.range[1] : member.range[1]
  if (text[to] === ' ') to++
  const open = container.range[0] + 1
  return { from: text.slice(open, member.range[0]) === ' ' ? open : member.range[0], to, content: '' }
}

/** The edit that takes out one site. */
const siteRemoval = (ast: AST.TOMLProgram, text: string, site: TomlSite): Edit => {
  if (site.kind === 'member') return memberRemoval(ast, text, site.container, site.node)
  return lineRemoval(text, site.node.range[0], site.node.range[1], site.kind === 'table')
}

/** `text` without anything at or under `path` (every site of it), or as it is when there is none. */
export const removeTomlPath = (text: string, path: Path): string => {
  let out = text
  // One site at a time, parsing again: taking out a member moves its neighbours' commas.
  for (let guard = 0; guard < 1000; guard++) {
    const ast = parseTomlText(out)
    const site = findTomlSites(ast, path)[0]
    if (!site) return out
    out = apply(out, siteRemoval(ast, out, site))
  }
  throw new Error(`removeTomlPath: ${path.join('.')} does not go away`)
}

/** `text` with path's last part renamed to `name` wherever it is spelt, each in its own style. */
export const renameTomlKey = (text: string, path: Path, name: string): string => {
  const sites = findTomlSites(parseTomlText(text), path)
  if (sites.some((s) => s.key === null)) throw new Error(`renameTomlKey: ${path.join('.')} is in an array of tables`)
  // From the end, so the earlier offsets still hold.
  return sites
    .map((s) => s.key!)
    .sort((a, b) => b.range[0] - a.range[0])
    .reduce((out, key) => apply(out, { from: key.range[0], to: key.range[1], content: inStyleOf(key, name) }), text)
}

/** `text` with the string at `path` replaced by `value`, in the style it was written in. */
export const replaceTomlString = (text: string, path: Path, value: string): string => {
  const kv = findTomlKeyValue(parseTomlText(text), path)
  if (!kv) throw new Error(`replaceTomlString: nothing at ${path.join('.')}`)
  const old = kv.value.type === 'TOMLValue' && kv.value.kind === 'string' && !kv.value.multiline ? kv.value : { style: 'basic' }
  return apply(text, { from: kv.value.range[0], to: kv.value.range[1], content: inStyleOf(old, value) })
}

/**
 * `text` with a new table at `path` holding `pairs` (key, value as TOML text): a `[table]` at the
 * end after one blank line, or, when an inline table already holds path's parent, a member of it
 * (a `[table]` cannot extend an inline one). A file that ends without a line break still does.
 */
export const addTomlTable = (text: string, path: Path, pairs: readonly [string, string][]): string => {
  const inline = findInlineParent(parseTomlText(text), path)
  if (inline) {
    const member = `${path.slice(inline.depth).map(tomlKey).join('.')} = { ${pairs.map(([k, v]) => `${tomlKey(k)} = ${v}`).join(', ')} }`
    const members = inline.table.body
    const last = members[members.length - 1]
    if (!last) return apply(text, { from: inline.table.range[0] + 1, to: inline.table.range[0] + 1, content: ` ${member} ` })
    return apply(text, { from: last.range[1], to: last.range[1], content: `, ${member}` })
  }
  const eol = tomlEol(text)
  const endsLine = text.endsWith('\n')
  const table = [`[${path.map(tomlKey).join('.')}]`, ...pairs.map(([k, v]) => `${tomlKey(k)} = ${v}`)].join(eol)
  if (text === '') return table + eol
  return `${text}${endsLine ? '' : eol}${eol}${table}${endsLine ? eol : ''}`
}
