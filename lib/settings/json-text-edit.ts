// Pure: a JSON file's text edited as a person would edit it. Only the values that change are
// written, in the file's own line endings, indentation and colon spacing; every other byte
// (number formats like 1.0 or 1e3, key order, hand layout) stays. An insertion appended after
// the last member is undone exactly by removing that member, so install → uninstall gives the
// original bytes back. Shared by every agent's settings file.
import { createRequire } from 'node:module'
import { diffArrays } from 'diff'
import type { Node as JsonNode } from 'jsonc-parser'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }
type JsonPath = (string | number)[]

// jsonc-parser's main entry is UMD, whose inner requires a bundler cannot follow: load it from
// node_modules at run time, as the package's dependency, instead of bundling it.
const loadJsonc = (): typeof import('jsonc-parser') => createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser')

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Deep equality of JSON values, key order included (it shows in the file). */
const same = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a) === JSON.stringify(b)

export interface TextLayout {
  eol: '\n' | '\r\n'
  /** One level of indentation: spaces or a tab. */
  indent: string
}

/** The file's own line ending (its first one) and indentation; LF and two spaces for a new file. */
export const detectLayout = (text: string | null): TextLayout => {
  const firstEol = text?.match(/\r?\n/)?.[0]
  const indent = text?.match(/^[{[][^\n]*\n([ \t]+)\S/)?.[1] ?? '  '
  return { eol: firstEol === '\r\n' ? '\r\n' : '\n', indent }
}

/**
 * Pure: the first key that appears twice in one object, with where (`hooks`, `hooks.Stop[0]`),
 * or null. JSON.parse keeps only the last of them, so a file with one would lose the others'
 * content (another tool's hooks) on any rewrite.
 */
export const findDuplicateKey = (text: string): { key: string; at: string } | null => {
  const jsonc = loadJsonc()
  const stack: Set<string>[] = []
  let found: { key: string; at: string } | null = null
  jsonc.visit(text, {
    onObjectBegin: () => {
      stack.push(new Set())
    },
    onObjectEnd: () => {
      stack.pop()
    },
    onObjectProperty: (property, _offset, _length, _line, _col, pathSupplier) => {
      const keys = stack[stack.length - 1]
      if (!keys || found) return
      if (keys.has(property)) {
        const path = [...pathSupplier(), property]
        found = { key: property, at: path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') }
      }
      keys.add(property)
    },
  })
  return found
}

/** The leading whitespace of the line that holds `offset`. */
const lineIndentAt = (text: string, offset: number): string => {
  let start = offset
  while (start > 0 && text[start - 1] !== '\n' && text[start - 1] !== '\r') start--
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? ''
}

/** True when only whitespace stands before `offset` on its line. */
const startsLine = (text: string, offset: number): boolean => {
  let i = offset
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--
  return i === 0 || text[i - 1] === '\n' || text[i - 1] === '\r'
}

/** A value laid out as the file lays out its values, its lines continuing at `pad`. */
const renderValue = (value: Json, pad: string, l: TextLayout): string =>
  JSON.stringify(value, null, l.indent)
    .split('\n')
    .join(l.eol + pad)

/** The spacing the file uses after a key's colon (`"a": 1` or `"a":1`), from a member. */
const colonOf = (text: string, property: JsonNode | undefined): string => {
  const key = property?.children?.[0]
  const value = property?.children?.[1]
  if (!key || !value) return ' '
  return text.slice(key.offset + key.length, value.offset).replace(':', '')
}

interface Edit {
  offset: number
  length: number
  content: string
}

const apply = (text: string, e: Edit): string => text.slice(0, e.offset) + e.content + text.slice(e.offset + e.length)

/** The edit that removes one member (an object's property or an array's element). */
const removal = (text: string, container: JsonNode, index: number): Edit => {
  const members = container.children ?? []
  const member = members[index] as JsonNode
  if (members.length === 1) {
    // The last one out: the container closes up (`{}`, `[]`).
    return { offset: container.offset + 1, length: container.length - 2, content: '' }
  }
  if (index > 0) {
    // From the end of the one before: the comma, line break and indentation go with it.
    const prev = members[index - 1] as JsonNode
    return { offset: prev.offset + prev.length, length: member.offset + member.length - (prev.offset + prev.length), content: '' }
  }
  const next = members[1] as JsonNode
  return { offset: member.offset, length: next.offset - member.offset, content: '' }
}

/** The edit that inserts `member` (`"key": value` text made by `make(pad)`) at `index`. */
const insertion = (text: string, container: JsonNode, index: number, make: (pad: string, colon: string) => string, l: TextLayout): Edit => {
  const members = container.children ?? []
  const colon = container.type === 'object' ? colonOf(text, members[0]) : ' '
  if (members.length === 0) {
    const outer = lineIndentAt(text, container.offset)
    const pad = outer + l.indent
    return { offset: container.offset + 1, length: container.length - 2, content: `${l.eol}${pad}${make(pad, colon)}${l.eol}${outer}` }
  }
  if (index >= members.length) {
    const prev = members[members.length - 1] as JsonNode
    const end = prev.offset + prev.length
    if (!startsLine(text, prev.offset)) return { offset: end, length: 0, content: `, ${make('', colon).replace(/\r?\n[ \t]*/g, '')}` }
    const pad = lineIndentAt(text, prev.offset)
    return { offset: end, length: 0, content: `,${l.eol}${pad}${make(pad, colon)}` }
  }
  const next = members[index] as JsonNode
  if (!startsLine(text, next.offset)) return { offset: next.offset, length: 0, content: `${make('', colon).replace(/\r?\n[ \t]*/g, '')}, ` }
  const pad = lineIndentAt(text, next.offset)
  return { offset: next.offset, length: 0, content: `${make(pad, colon)},${l.eol}${pad}` }
}

/**
 * Pure: `previous` edited so that it parses to `next` (its parse is `before`), or null when the
 * text cannot be edited to exactly that (the caller then rewrites the whole file).
 */
export const editJsonText = (previous: string, before: JsonObject, next: JsonObject): string | null => {
  const jsonc = loadJsonc()
  const l = detectLayout(previous)
  let text = previous
  const nodeAt = (path: JsonPath): JsonNode | undefined => {
    const root = jsonc.parseTree(text)
    return root ? jsonc.findNodeAtLocation(root, path) : undefined
  }
  const containerAt = (path: JsonPath): JsonNode => {
    const node = nodeAt(path)
    if (!node || (node.type !== 'object' && node.type !== 'array')) throw new Error(`no container at ${path.join('.')}`)
    return node
  }
  const remove = (path: JsonPath, key: string | number): void => {
    const container = containerAt(path)
    const members = container.children ?? []
    const index = typeof key === 'number' ? key : members.findIndex((p) => p.children?.[0]?.value === key)
    if (index < 0 || index >= members.length) throw new Error(`no member ${key} at ${path.join('.')}`)
    text = apply(text, removal(text, container, index))
  }
  const insert = (path: JsonPath, key: string | number, value: Json): void => {
    const container = containerAt(path)
    const members = container.children ?? []
    const index = typeof key === 'number' ? key : members.length
    const make = (pad: string, colon: string): string =>
      typeof key === 'number' ? renderValue(value, pad, l) : `${JSON.stringify(key)}:${colon}${renderValue(value, pad, l)}`
    text = apply(text, insertion(text, container, index, make, l))
  }
  const replace = (path: JsonPath, value: Json): void => {
    const node = nodeAt(path)
    if (!node) throw new Error(`nothing at ${path.join('.')}`)
    text = apply(text, { offset: node.offset, length: node.length, content: renderValue(value, lineIndentAt(text, node.offset), l) })
  }
  const walk = (path: JsonPath, a: Json, b: Json): void => {
    if (same(a, b)) return
    if (isObject(a) && isObject(b)) {
      for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) remove(path, key)
      for (const [key, value] of Object.entries(b)) {
        if (Object.hasOwn(a, key)) walk([...path, key], a[key] as Json, value)
        else insert(path, key, value)
      }
      return
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      let i = 0
      for (const part of diffArrays<Json>(a, b, { comparator: (x, y) => same(x, y) })) {
        for (const item of part.value) {
          if (part.removed) remove(path, i)
          else if (part.added) insert(path, i++, item)
          else i++
        }
      }
      return
    }
    replace(path, b)
  }
  try {
    walk([], before, next)
    return same(JSON.parse(text) as Json, next) ? text : null
  } catch {
    return null
  }
}
